import ArgumentParser
import Foundation
import SatchelHTTP
import SatchelCache
import SatchelCacheNuxeo
import SatchelJSON
import SatchelNuxeo

/// `satchel nuxeo`: a Nuxeo server's REST API from the shell (or `satchel serve`'s, at `…/nuxeo`).
struct NuxeoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nuxeo",
        abstract: "Talk to a Nuxeo server: documents, children, NXQL, blobs, Automation.",
        discussion: """
            --url is the server with its context path (https://host/nuxeo). Documents are named by path (/a/b) or \
            uid. The password comes from SATCHEL_PASSWORD or --password-stdin; without --user, a token from \
            `satchel nuxeo token` in SATCHEL_NUXEO_TOKEN is sent instead.

            Examples:
              satchel nuxeo info --url https://host/nuxeo --user alice
              satchel nuxeo ls /default-domain/workspaces --url … --user alice
              satchel nuxeo query "SELECT * FROM Document WHERE dc:title LIKE 'Q3%'" --url … --user alice
              satchel nuxeo fetch /ws/report.pdf report.pdf --url … --user alice
              satchel nuxeo op Document.Fetch --param value=/ws --url … --user alice
              export SATCHEL_NUXEO_TOKEN=$(satchel nuxeo token --app satchel --device laptop --url … --user alice)
              satchel nuxeo ls / --url …
            """,
        subcommands: [
            NuxeoInfoCommand.self, NuxeoGetCommand.self, NuxeoListCommand.self, NuxeoQueryCommand.self,
            NuxeoMakeDocumentCommand.self, NuxeoPutCommand.self, NuxeoFetchCommand.self, NuxeoRemoveCommand.self,
            NuxeoOperationCommand.self, NuxeoTokenCommand.self, NuxeoSyncCommand.self,
        ]
    )
}

/// Connection and repository, shared by every `satchel nuxeo` command.
struct NuxeoOptions: ParsableArguments {
    @OptionGroup var global: GlobalOptions
    @OptionGroup var connection: ConnectionOptions
    @Option(help: "The repository (sent as repo/NAME/; default: the server's).") var repository: String?
    @Option(
        help: ArgumentHelp(
            "A shared configuration file (JSON: url, repository, apiPrefix, schemas, headers; never credentials).",
            valueName: "file"))
    var config: String?

    func session() throws -> NuxeoSession {
        var auth = try connection.authProviders()
        if auth.isEmpty, let token = Terminal.environment("SATCHEL_NUXEO_TOKEN"), !token.isEmpty {
            auth = [NuxeoSession.tokenAuth(token)]
        }
        var configuration: NuxeoSession.Configuration
        if let config {
            do {
                configuration = try NuxeoSession.Configuration(file: URL(fileURLWithPath: config), auth: auth)
            } catch {
                throw CLIError(.usage, error.message)
            }
            if let text = connection.url { configuration.serverURL = try ConnectionOptions.url(text, option: "--url") }
        } else {
            guard let text = connection.url else {
                throw CLIError(.usage, "satchel nuxeo needs --url (https://host/nuxeo) or --config FILE")
            }
            configuration = .init(serverURL: try ConnectionOptions.url(text, option: "--url"), auth: auth)
            configuration.http.timeout = .milliseconds(Int64(connection.timeout * 1000))
        }
        if let repository { configuration.repository = repository }
        configuration.http.retry.maximumAttempts = connection.retries + 1
        return NuxeoSession(configuration: configuration)
    }

    /// Runs `body` with a session; failures become one line and an exit code.
    func run(_ body: @escaping @Sendable (NuxeoSession) async throws -> Void) async throws {
        try await CommandRunner.run(global) {
            let session = try session()
            do {
                try await body(session)
            } catch let error as NuxeoError {
                let code: SatchelExitCode =
                    switch error.status {
                    case 401: .authentication
                    case 404: .notFound
                    default: .failure
                    }
                throw CLIError(code, error.description)
            }
        }
    }

    /// A document named by path (`/a/b`) or uid.
    static func document(_ reference: String, in session: NuxeoSession) async throws -> NuxeoDocument {
        reference.hasPrefix("/")
            ? try await session.document(path: reference) : try await session.document(id: reference)
    }

    /// One line per document: type, uid, path.
    static func line(_ document: NuxeoDocument) -> String {
        "\(document.type)\t\(document.uid)\t\(document.path ?? "-")"
    }
}

struct NuxeoInfoCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "info", abstract: "Who you are on the server.")
    @OptionGroup var options: NuxeoOptions

    func run() async throws {
        try await options.run { session in
            let login = try await session.login()
            print("user: \(login.username)")
            print("administrator: \(login.isAdministrator ? "yes" : "no")")
            if !login.groups.isEmpty { print("groups: \(login.groups.joined(separator: ", "))") }
        }
    }
}

struct NuxeoGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "get", abstract: "Show a document.")
    @OptionGroup var options: NuxeoOptions
    @Argument(help: "The document: a path (/a/b) or a uid.") var document: String

    func run() async throws {
        try await options.run { [document] session in
            let found = try await NuxeoOptions.document(document, in: session)
            print("uid: \(found.uid)")
            print("path: \(found.path ?? "-")")
            print("type: \(found.type)")
            print("title: \(found.title ?? "-")")
            if let modified = found.lastModified { print("modified: \(modified)") }
            if let blob = found.blob {
                print(
                    "blob: \(blob.name ?? "-") (\(blob.length.map(String.init) ?? "?") bytes, \(blob.mimeType ?? "-"))")
            }
        }
    }
}

struct NuxeoListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "ls", abstract: "List a folder's children (type, uid, path), page by page.")
    @OptionGroup var options: NuxeoOptions
    @Argument(help: "The folder's path.") var path: String = "/"
    @Option(help: "Documents per request.") var pageSize = 50

    func run() async throws {
        try await options.run { [path, pageSize] session in
            for try await child in session.children(ofPath: path, pageSize: pageSize) {
                print(NuxeoOptions.line(child))
            }
        }
    }
}

struct NuxeoQueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query", abstract: "Run an NXQL query (type, uid, path of each document), page by page.")
    @OptionGroup var options: NuxeoOptions
    @Argument(help: "The NXQL query.") var nxql: String
    @Option(help: "Documents per request.") var pageSize = 50

    func run() async throws {
        try await options.run { [nxql, pageSize] session in
            for try await document in session.query(nxql, pageSize: pageSize) { print(NuxeoOptions.line(document)) }
        }
    }
}

struct NuxeoMakeDocumentCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "mkdoc", abstract: "Create a document (Folder, Workspace, File, Note…) in a folder.")
    @OptionGroup var options: NuxeoOptions
    @Argument(help: "The parent folder's path.") var parent: String
    @Argument(help: "The new document's name.") var name: String
    @Option(help: "The document type.") var type = "File"
    @Option(help: "Its description (dc:description).") var description: String?

    func run() async throws {
        try await options.run { [parent, name, type, description] session in
            let created = try await session.create(
                in: parent, type: type, name: name,
                properties: description.map { ["dc:description": .string($0)] } ?? [:])
            print(NuxeoOptions.line(created))
        }
    }
}

struct NuxeoPutCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "put",
        abstract: "Upload a file as a document's content (a new File in a folder), in chunks if asked; resumable.",
        discussion: """
            With --chunk-size the file goes in chunks; run the same command again after a dropped connection with \
            --batch (printed when the upload starts) and only the chunks the server lacks are sent.
            """)
    @OptionGroup var options: NuxeoOptions
    @Argument(help: "The file to upload.") var file: String
    @Argument(help: "The folder's path.") var parent: String
    @Option(help: "The document's name (default: the file's).") var name: String?
    @Option(help: "The content's media type.") var contentType = "application/octet-stream"
    @Option(help: "Send in chunks of this many bytes.") var chunkSize: Int?
    @Option(help: "Resume this batch (from a run that was cut).") var batch: String?

    func run() async throws {
        try await options.run { [file, parent, name, contentType, chunkSize, batch] session in
            let url = URL(fileURLWithPath: file)
            guard FileManager.default.isReadableFile(atPath: file) else {
                throw CLIError(.localFile, "cannot read \(file)")
            }
            let documentName = name ?? url.lastPathComponent
            let path = (parent == "/" ? "" : parent) + "/" + documentName
            let document: NuxeoDocument
            do {
                document = try await session.document(path: path)
            } catch let error as NuxeoError where error.status == 404 {
                document = try await session.create(in: parent, type: "File", name: documentName)
            }
            let upload = try await session.upload(
                file: url, name: documentName, mimeType: contentType, chunkSize: chunkSize, batchID: batch)
            let attached = try await session.attach(upload, to: document.uid)
            print(
                "\(attached.blob?.length.map(String.init) ?? "?") bytes → \(attached.path ?? path) (batch \(upload.batchID))"
            )
        }
    }
}

struct NuxeoFetchCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "fetch", abstract: "Download a document's blob (file:content) into a file, streamed.")
    @OptionGroup var options: NuxeoOptions
    @Argument(help: "The document: a path or a uid.") var document: String
    @Argument(help: "The file to write.") var file: String

    func run() async throws {
        try await options.run { [document, file] session in
            let found = try await NuxeoOptions.document(document, in: session)
            let url = URL(fileURLWithPath: file)
            try await session.downloadBlob(id: found.uid, to: url)
            let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
            print("\(size) bytes → \(file)")
        }
    }
}

struct NuxeoRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rm", abstract: "Delete a document (a folder with what it holds).")
    @OptionGroup var options: NuxeoOptions
    @Argument(help: "The document: a path or a uid.") var document: String

    func run() async throws {
        try await options.run { [document] session in
            let found = try await NuxeoOptions.document(document, in: session)
            try await session.delete(id: found.uid)
        }
    }
}

struct NuxeoOperationCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "op", abstract: "Run an Automation operation; prints what it answered (documents as lines).")
    @OptionGroup var options: NuxeoOptions
    @Argument(help: "The operation (Document.Fetch, Repository.Query…).") var operation: String
    @Option(help: "The input document (a path or a uid).") var input: String?
    @Option(name: .customLong("param"), help: ArgumentHelp("A parameter.", valueName: "name=value"))
    var params: [String] = []

    func run() async throws {
        var values: [String: JSONValue] = [:]
        for param in params {
            guard let equals = param.firstIndex(of: "=") else { throw CLIError(.usage, "--param needs name=value") }
            let value = String(param[param.index(after: equals)...])
            values[String(param[..<equals])] = Int64(value).map { .number(JSONNumber($0)) } ?? .string(value)
        }
        try await options.run { [operation, input, values] session in
            switch try await session.execute(operation, input: input, params: values) {
            case nil: print("done")
            case .document(let document)?: print(NuxeoOptions.line(document))
            case .documents(let page)?: for document in page.entries { print(NuxeoOptions.line(document)) }
            case .login(let login)?: print("user: \(login.username)")
            case let other?: print(other)
            }
        }
    }
}

struct NuxeoTokenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "token",
        abstract: "Acquire (or revoke) a token for an application on a device; prints it.",
        discussion: """
            Signs in with the password once; the token then stands for it (SATCHEL_NUXEO_TOKEN). Asking again for \
            the same application and device may replace the previous token.
            """)
    @OptionGroup var options: NuxeoOptions
    @Option(help: "The application's name.") var app = "satchel"
    @Option(help: "This device's id.") var device: String
    @Option(help: "This device, in words.") var deviceDescription: String?
    @Flag(help: "A token that may only read.") var readOnly = false
    @Flag(help: "Revoke the token of this application and device instead.") var revoke = false

    func run() async throws {
        try await options.run { [app, device, deviceDescription, readOnly, revoke] session in
            if revoke {
                try await session.revokeToken(application: app, device: device)
                return
            }
            print(
                try await session.acquireToken(
                    application: app, device: device, deviceDescription: deviceDescription,
                    permission: readOnly ? .read : .readWrite))
        }
    }
}

struct NuxeoSyncCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sync",
        abstract: "Load a tree (and with --content its documents' content) into the offline cache.",
        discussion: """
            The tree under ROOT is read with one NXQL query, page by page; it replaces the cached tree NAME only when \
            the load completes. Browse it offline with `satchel cache ls NAME`. See `satchel cache --help` for the \
            cache's folder and key.
            """)
    @OptionGroup var options: NuxeoOptions
    @OptionGroup var cache: CacheOptions
    @Argument(help: "The name to keep the tree under.") var name: String
    @Argument(help: "The root's path.") var root: String
    @Option(name: .customLong("where"), help: "An NXQL condition the documents must meet (dc:title LIKE 'Q%').")
    var condition: String?
    @Flag(help: "Also fetch every document's content (the blob cache's limits still hold).") var content = false
    @Option(help: "Documents per request.") var pageSize = 500

    func validate() throws {
        if pageSize < 1 { throw ValidationError("--page-size must be 1 or more") }
    }

    func run() async throws {
        try await options.run { [cache, name, root, condition, content, pageSize] session in
            let source = NuxeoHierarchySource(
                session: session, rootPath: root, condition: condition, pageSize: pageSize)
            try await cache.with { cache in
                let summary = try await cache.load(name, from: source)
                let fetched = content ? try await cache.fetchContent(of: name, from: source) : nil
                print(try await CacheOptions.report(summary, fetched: fetched, cache: cache))
            }
        }
    }
}
