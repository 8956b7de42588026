import ArgumentParser
import Foundation
import SatchelText
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP

/// The options every `satchel cmis` and `satchel notes` command adds to the connection options.
/// `--binding browser|atom`.
enum CMISBindingOption: String, ExpressibleByArgument, Sendable, CaseIterable {
    case browser
    case atom

    var sessionBinding: SessionParameters.Binding { self == .atom ? .atomPub : .browser }
    var mobileDocumentsBinding: MobileDocuments.Binding { self == .atom ? .atomPub : .browser }
}

struct CMISOptions: ParsableArguments, Sendable {
    @Option(help: "The CMIS binding --url speaks: browser (JSON, the default) or atom (AtomPub).")
    var binding: CMISBindingOption = .browser

    @Option(
        help: ArgumentHelp(
            "The repository id (default: the only one; MyDocuments with --mobile-documents).", valueName: "id"))
    var repository: String?

    @Flag(
        help: """
            SAP Mobile Documents: complete a bare server URL with mcm/b/json (mcm/b/atom with --binding atom), \
            prefer the MyDocuments repository \
            and send its XSRF token back in an X-CSRF-Token header.
            """
    )
    var mobileDocuments = false
}

/// Everything a CMIS command needs to reach its repository: the connection options turned into
/// `SessionParameters`, and the run loop around the work.
struct CMISConnection: Sendable {
    var connection: ConnectionOptions
    var cmis: CMISOptions
    var global: GlobalOptions
    /// Notes: always complete a bare server URL, prefer MyDocuments and pass its token on, whether or not
    /// `--mobile-documents` was given (the seed's Notes app always talks to SAP Mobile Documents).
    var mobileDocumentsDefaults = false

    /// Runs `work` with logging, Ctrl-C and error reporting (`CommandRunner`).
    func run(_ work: @escaping @Sendable (SessionParameters) async throws -> Void) async throws {
        try await CommandRunner.run(global) {
            try await work(try parameters())
        }
    }

    /// Connects to the chosen repository and runs `work` with the session.
    func withSession(_ work: @escaping @Sendable (CMISSession) async throws -> Void) async throws {
        try await run { parameters in
            let session: CMISSession
            do {
                session = try await CMISSession.connect(parameters)
            } catch let error as CMISError where error.code == .invalidArgument && parameters.repositoryId == nil {
                // Several repositories and none chosen: name the option, not the library's parameter.
                let infos = (try? await CMISSession.repositories(parameters)) ?? []
                guard infos.count > 1 else { throw error }
                throw CLIError(
                    .usage,
                    "the service offers \(infos.count) repositories (\(infos.map(\.id).joined(separator: ", "))):"
                        + " choose one with --repository")
            }
            try await work(session)
        }
    }

    /// Session parameters from the connection options: URL, auth providers, and the HTTP configuration (headers,
    /// User-Agent, timeout).
    func parameters() throws -> SessionParameters {
        guard let text = connection.url else {
            throw CLIError(
                .usage, "--url is needed: the CMIS service URL (Browser binding, or AtomPub with --binding atom)")
        }
        var url = try ConnectionOptions.url(text, option: "--url")
        if cmis.mobileDocuments || mobileDocumentsDefaults {
            url = MobileDocuments.endpoint(for: url, binding: cmis.binding.mobileDocumentsBinding)
        }
        let client = try connection.makeClient()
        let http = client.configuration  // headers, User-Agent, timeout and `--retries`
        let preferMyDocuments = cmis.mobileDocuments || mobileDocumentsDefaults
        return SessionParameters(
            binding: cmis.binding.sessionBinding, url: url, repositoryId: cmis.repository,
            preferMyDocuments: preferMyDocuments,
            auth: client.auth, tokenHeader: preferMyDocuments ? "X-CSRF-Token" : nil, http: http,
            transport: client.transport)
    }
}

/// Small helpers the CMIS and Notes commands share.
enum CMISOutput {
    /// The document at `path`, or a usage error when it is something else.
    static func document(at path: String, in session: CMISSession) async throws -> CMISObject {
        let object = try await session.object(at: path, useCache: false)
        guard object.baseType == .document, object.id != nil else {
            throw CLIError(.usage, "\(path) is not a document")
        }
        return object
    }

    static func line(_ text: String) throws {
        try Terminal.writeOutput(Data((text + "\n").utf8))
    }

    static func date(_ date: Date?) -> String {
        guard let date else { return "-" }
        return ISO8601Timestamp.string(from: date, milliseconds: false).dropLast()
            .replacingOccurrences(of: "T", with: " ")
    }

    static func pad(_ text: String, _ width: Int, right: Bool = false) -> String {
        guard text.count < width else { return text }
        let fill = String(repeating: " ", count: width - text.count)
        return right ? fill + text : text + fill
    }

    /// Copies a file to standard output in 1 MiB chunks.
    static func copyToOutput(_ file: URL) throws {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty {
            try Task.checkCancellation()
            try Terminal.writeOutput(chunk)
        }
    }

    /// `/a/b/c` → (`/a/b`, `c`).
    static func split(_ path: String) throws -> (parent: String, name: String) {
        let segments = path.split(separator: "/").map(String.init)
        guard let name = segments.last else { throw CLIError(.usage, "\(path) has no name to create") }
        return ("/" + segments.dropLast().joined(separator: "/"), name)
    }

    /// A MIME type for a file name's extension; `application/octet-stream` when unknown.
    static func mimeType(forFileName name: String) -> String {
        let types: [String: String] = [
            "txt": "text/plain", "md": "text/markdown", "html": "text/html", "htm": "text/html", "css": "text/css",
            "csv": "text/csv", "xml": "application/xml", "json": "application/json", "pdf": "application/pdf",
            "zip": "application/zip", "png": "image/png", "jpg": "image/jpeg", "jpeg": "image/jpeg",
            "gif": "image/gif", "svg": "image/svg+xml", "mp4": "video/mp4", "mp3": "audio/mpeg",
            "docx": "application/vnd.openxmlformats-officedocument.wordprocessingml.document",
            "xlsx": "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet",
            "pptx": "application/vnd.openxmlformats-officedocument.presentationml.presentation",
        ]
        let ext = (name as NSString).pathExtension.lowercased()
        return types[ext] ?? "application/octet-stream"
    }

    /// A readable local file, or exit code 8.
    static func readableFile(_ path: String) throws -> URL {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
            FileManager.default.isReadableFile(atPath: path)
        else {
            throw CLIError(.localFile, "\(path) is not a readable file")
        }
        return URL(fileURLWithPath: path)
    }
}
