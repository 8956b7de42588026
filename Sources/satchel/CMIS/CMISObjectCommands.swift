import ArgumentParser
import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP

/// `satchel cmis ls PATH`: a folder's children, fetched a page at a time.
struct CMISListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls", abstract: "List a folder: type, size, modified, name (--long: id, MIME type, modifier).")

    @Argument(help: ArgumentHelp("The folder path (default /).", valueName: "path"))
    var path = "/"

    @Flag(name: .shortAndLong, help: "Also show the object id, the MIME type and who modified it last.")
    var long = false

    @Option(help: ArgumentHelp("Children per request (default 100).", valueName: "n"))
    var pageSize: Int?

    @OptionGroup var cmis: CMISOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if let pageSize, pageSize < 1 { throw ValidationError("--page-size must be 1 or more") }
    }

    func run() async throws {
        let (path, long, pageSize) = (path, long, pageSize)
        try await CMISConnection(connection: connection, cmis: cmis, global: global).withSession { session in
            let folder = try await session.object(at: path)
            guard folder.baseType == .folder, let id = folder.id else {
                try CMISOutput.line(Self.row(folder, name: folder.name ?? path, long: long))
                return
            }
            var context = session.parameters.operationContext
            context.maxItemsPerPage = pageSize
            for try await child in session.children(of: id, context: context) {
                try CMISOutput.line(Self.row(child.object, name: child.pathSegment ?? child.object.name, long: long))
            }
        }
    }

    static func row(_ object: CMISObject, name: String?, long: Bool) -> String {
        let isFolder = object.baseType == .folder
        var columns = [
            isFolder ? "folder  " : "document",
            CMISOutput.pad(isFolder ? "-" : object.contentStreamLength.map(String.init) ?? "-", 12, right: true),
            CMISOutput.date(object.lastModificationDate),
        ]
        if long {
            columns += [
                CMISOutput.pad(object.id ?? "-", 12), CMISOutput.pad(object.contentStreamMimeType ?? "-", 24),
                CMISOutput.pad(object.lastModifiedBy ?? "-", 10),
            ]
        }
        columns.append((name ?? "") + (isFolder ? "/" : ""))
        return columns.joined(separator: "  ")
    }
}

/// `satchel cmis get PATH [-o FILE]`: a document's content, streamed.
struct CMISGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get", abstract: "Download a document's content to standard output or a file.")

    @Argument(help: ArgumentHelp("The document path.", valueName: "path"))
    var path: String

    @Option(name: .shortAndLong, help: ArgumentHelp("Write to FILE (replaced only on success).", valueName: "file"))
    var output: String?

    @OptionGroup var cmis: CMISOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let (path, output, quiet) = (path, output, global.quiet)
        try await CMISConnection(connection: connection, cmis: cmis, global: global).withSession { session in
            let document = try await session.object(at: path)
            guard document.baseType == .document, let id = document.id else {
                throw CLIError(.usage, "\(path) is not a document")
            }
            let target = output.map { URL(fileURLWithPath: $0) }
            if let target { try ResponseOutput.checkWritable(target) }
            let directory = try ResponseOutput.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = target ?? directory.appendingPathComponent("content")
            let progress = ProgressDisplay(quiet: quiet)
            var report: (@Sendable (TransferProgress) -> Void)?
            if let progress { report = { progress.report($0) } }
            do {
                try await session.downloadContent(of: id, to: file, progress: report)
                progress?.finish()
            } catch {
                progress?.abandon()
                throw error
            }
            if target == nil { try CMISOutput.copyToOutput(file) }
        }
    }
}

/// `satchel cmis put LOCALFILE REMOTEFOLDER`: a new document from a file, streamed.
struct CMISPutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "put", abstract: "Upload a local file as a new document in a folder.")

    @Argument(help: ArgumentHelp("The file to upload.", valueName: "local-file"))
    var localFile: String

    @Argument(help: ArgumentHelp("The folder path to create the document in.", valueName: "remote-folder"))
    var remoteFolder: String

    @Option(help: ArgumentHelp("The document's name (default: the file's name).", valueName: "name"))
    var name: String?

    @Option(help: ArgumentHelp("The MIME type (default: from the file name's extension).", valueName: "type"))
    var mime: String?

    @OptionGroup var cmis: CMISOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let (localFile, remoteFolder, name, mime, quiet) = (localFile, remoteFolder, name, mime, global.quiet)
        try await CMISConnection(connection: connection, cmis: cmis, global: global).withSession { session in
            let file = try CMISOutput.readableFile(localFile)
            let documentName = name ?? file.lastPathComponent
            let folder = try await session.object(at: remoteFolder)
            guard folder.baseType == .folder, let folderId = folder.id else {
                throw CLIError(.usage, "\(remoteFolder) is not a folder")
            }
            let content = ContentSource.file(
                file, filename: documentName, mimeType: mime ?? CMISOutput.mimeType(forFileName: documentName))
            let progress = ProgressDisplay(quiet: quiet)
            var report: (@Sendable (TransferProgress) -> Void)?
            if let progress { report = { progress.report($0) } }
            let document: CMISObject
            do {
                document = try await session.createDocument(
                    named: documentName, in: folderId, content: content, progress: report)
                progress?.finish()
            } catch {
                progress?.abandon()
                throw error
            }
            try CMISOutput.line(document.id ?? "")
        }
    }
}

/// `satchel cmis mkdir PATH`.
struct CMISMkdirCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mkdir", abstract: "Create a folder (its parent must exist); prints the new folder's id.")

    @Argument(help: ArgumentHelp("The new folder's path.", valueName: "path"))
    var path: String

    @OptionGroup var cmis: CMISOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let path = path
        try await CMISConnection(connection: connection, cmis: cmis, global: global).withSession { session in
            let (parentPath, name) = try CMISOutput.split(path)
            let parent = try await session.object(at: parentPath)
            guard parent.baseType == .folder, let parentId = parent.id else {
                throw CLIError(.usage, "\(parentPath) is not a folder")
            }
            let folder = try await session.createFolder(named: name, in: parentId)
            try CMISOutput.line(folder.id ?? "")
        }
    }
}

/// `satchel cmis rm PATH`.
struct CMISRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm", abstract: "Delete a document (all versions) or an empty folder.")

    @Argument(help: ArgumentHelp("The path to delete.", valueName: "path"))
    var path: String

    @OptionGroup var cmis: CMISOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let path = path
        try await CMISConnection(connection: connection, cmis: cmis, global: global).withSession { session in
            let object = try await session.object(at: path)
            guard let id = object.id else { throw CLIError(.invalidResponse, "\(path) came back without an id") }
            guard id != session.repositoryInfo.rootFolderId else {
                throw CLIError(.usage, "the root folder cannot be deleted")
            }
            try await session.delete(id)
        }
    }
}

/// `satchel cmis mv PATH TARGET`: a rename, a move into another folder, or both.
struct CMISMoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mv",
        abstract: "Rename or move a document or folder.",
        discussion: """
            TARGET is a new name (no slash: rename in place), an existing folder (move into it, keeping the name), \
            or a path whose parent folder exists (move there under the new name).
            """)

    @Argument(help: ArgumentHelp("The path of the object to move or rename.", valueName: "path"))
    var path: String

    @Argument(help: ArgumentHelp("A new name, a folder, or a new path.", valueName: "target"))
    var target: String

    @OptionGroup var cmis: CMISOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var global: GlobalOptions

    func validate() throws {
        if target.isEmpty { throw ValidationError("TARGET is empty") }
    }

    func run() async throws {
        let (path, target) = (path, target)
        try await CMISConnection(connection: connection, cmis: cmis, global: global).withSession { session in
            let object = try await session.object(at: path, useCache: false)
            guard let id = object.id else { throw CLIError(.invalidResponse, "\(path) came back without an id") }
            guard target.contains("/") else {
                _ = try await session.rename(id, to: target)
                return
            }
            // An existing folder: move into it. Otherwise: the parent is the destination, the last part the name.
            var destination: CMISObject?
            do {
                destination = try await session.object(at: target, useCache: false)
            } catch let error as CMISError where error.code == .objectNotFound {
                destination = nil
            }
            let folder: CMISObject
            var newName: String?
            if let destination, destination.baseType == .folder {
                folder = destination
            } else if destination != nil {
                throw CLIError(.usage, "\(target) already exists")
            } else {
                let (parentPath, name) = try CMISOutput.split(target)
                folder = try await session.object(at: parentPath, useCache: false)
                guard folder.baseType == .folder else { throw CLIError(.usage, "\(parentPath) is not a folder") }
                newName = name
            }
            guard let folderId = folder.id else { throw CLIError(.invalidResponse, "the target folder has no id") }
            var source = object.parentId
            if source == nil { source = try await session.parents(of: id).first?.object.id }
            if source != folderId {
                _ = try await session.move(id, to: folderId, from: source)
            }
            if let newName, newName != object.name { _ = try await session.rename(id, to: newName) }
        }
    }
}
