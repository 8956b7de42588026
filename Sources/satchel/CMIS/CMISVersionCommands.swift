import ArgumentParser
import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP

/// `satchel cmis checkout PATH`: prints the private working copy's id.
struct CMISCheckOutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checkout", abstract: "Check a document out; prints the private working copy's id.")

    @Argument(help: ArgumentHelp("The document path.", valueName: "path"))
    var path: String

    @OptionGroup var cmis: CMISOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let path = path
        try await CMISConnection(connection: connection, cmis: cmis, global: global).withSession { session in
            let document = try await CMISOutput.document(at: path, in: session)
            let workingCopy = try await session.checkOut(document.id ?? "")
            try CMISOutput.line(workingCopy.id ?? "")
        }
    }
}

/// `satchel cmis checkin PATH [--file F] [--minor] [-m COMMENT]`: a new version from the working copy.
struct CMISCheckInCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "checkin",
        abstract: "Check a checked-out document in as a new version; prints the new version's id and label.")

    @Argument(help: ArgumentHelp("The document path (or the working copy's).", valueName: "path"))
    var path: String

    @Option(name: .shortAndLong, help: ArgumentHelp("New content for this version.", valueName: "file"))
    var file: String?

    @Option(name: [.customShort("m"), .long], help: ArgumentHelp("The check-in comment.", valueName: "text"))
    var message: String?

    @Flag(help: "A minor version (1.0 → 1.1) instead of a major one (1.0 → 2.0).")
    var minor = false

    @OptionGroup var cmis: CMISOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let (path, file, message, minor, quiet) = (path, file, message, minor, global.quiet)
        try await CMISConnection(connection: connection, cmis: cmis, global: global).withSession { session in
            let document = try await CMISOutput.document(at: path, in: session)
            let workingCopyId =
                document.properties["cmis:versionSeriesCheckedOutId"]?.stringValue ?? document.id ?? ""
            var content: ContentSource?
            if let file {
                let url = try CMISOutput.readableFile(file)
                let name = document.contentStreamFileName ?? document.name ?? url.lastPathComponent
                content = .file(
                    url, filename: name,
                    mimeType: document.contentStreamMimeType ?? CMISOutput.mimeType(forFileName: name))
            }
            let progress = content == nil ? nil : ProgressDisplay(quiet: quiet)
            var report: (@Sendable (TransferProgress) -> Void)?
            if let progress { report = { progress.report($0) } }
            let version: CMISObject
            do {
                version = try await session.checkIn(
                    workingCopyId, major: !minor, content: content, comment: message, progress: report)
                progress?.finish()
            } catch {
                progress?.abandon()
                throw error
            }
            try CMISOutput.line("\(version.id ?? "")  \(version.versionLabel ?? "")")
        }
    }
}

/// `satchel cmis cancel-checkout PATH`.
struct CMISCancelCheckOutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel-checkout", abstract: "Throw away a document's private working copy.")

    @Argument(help: ArgumentHelp("The document path.", valueName: "path"))
    var path: String

    @OptionGroup var cmis: CMISOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let path = path
        try await CMISConnection(connection: connection, cmis: cmis, global: global).withSession { session in
            let document = try await CMISOutput.document(at: path, in: session)
            guard let workingCopyId = document.properties["cmis:versionSeriesCheckedOutId"]?.stringValue else {
                throw CLIError(.usage, "\(path) is not checked out")
            }
            try await session.cancelCheckOut(workingCopyId)
        }
    }
}

/// `satchel cmis versions PATH`: label, modified, size, comment, newest first.
struct CMISVersionsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "versions",
        abstract: "List a document's versions, newest first: label, modified, size, id, comment.")

    @Argument(help: ArgumentHelp("The document path.", valueName: "path"))
    var path: String

    @OptionGroup var cmis: CMISOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var global: GlobalOptions

    func run() async throws {
        let path = path
        try await CMISConnection(connection: connection, cmis: cmis, global: global).withSession { session in
            let document = try await CMISOutput.document(at: path, in: session)
            for version in try await session.allVersions(of: document.id ?? "") {
                let columns = [
                    CMISOutput.pad(version.versionLabel ?? "-", 6), CMISOutput.date(version.lastModificationDate),
                    CMISOutput.pad(version.contentStreamLength.map(String.init) ?? "-", 12, right: true),
                    CMISOutput.pad(version.id ?? "-", 12),
                    version.properties["cmis:checkinComment"]?.stringValue ?? "",
                ]
                try CMISOutput.line(columns.joined(separator: "  "))
            }
        }
    }
}
