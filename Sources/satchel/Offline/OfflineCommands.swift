import ArgumentParser
import Foundation
import Synchronization
import SatchelHTTP
import SatchelJSON
import SatchelOData
import SatchelOffline
import SatchelStore

/// `satchel offline`: an offline OData store from the shell, configured by an `.ini` file.
struct OfflineCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offline",
        abstract: "Work with offline OData stores: download, query and change locally, upload.",
        discussion: """
            CONFIG is an .ini file: an [endpoint] section (url, sap_client, store, user, csrf, indexed_type, timeout, max_delta_resends, repeatable_requests, payload_format) and one \
            section per defining query (query, streams, track_deltas). See docs/offline.md. The store is encrypted with a passphrase from \
            SATCHEL_STORE_PASSPHRASE (or --passphrase-stdin), or a raw key (64 hex digits) from SATCHEL_STORE_KEY (or \
            --key-stdin), or a random key kept in --key-file under the passcode in SATCHEL_KEY_PASSCODE; --unencrypted makes a \
            plain one. The service password comes from SATCHEL_PASSWORD.

            Examples:
              satchel offline open shop.ini                  # the initial download (later: resumes it)
              satchel offline query shop.ini Products --filter "Price gt 10" --orderby Name --top 5
              satchel offline get shop.ini Products 3 --select Name,Price
              satchel offline update shop.ini Products 3 --json '{"Stock": 7}' --category urgent
              satchel offline create shop.ini Orders --json '{"ID": 9}' --transaction order-9
              satchel offline update shop.ini Documents 1 --media notes.txt --content-type text/plain
              satchel offline upload shop.ini --category urgent && satchel offline errors shop.ini
            """,
        subcommands: [
            OfflineOpenCommand.self, OfflineStatusCommand.self, OfflineQueryCommand.self, OfflineGetCommand.self,
            OfflineCreateCommand.self, OfflineUpdateCommand.self, OfflineDeleteCommand.self,
            OfflineUploadCommand.self, OfflineDownloadCommand.self, OfflineRequestsCommand.self,
            OfflineErrorsCommand.self, OfflineRevertCommand.self, OfflineCancelCommand.self, OfflineRetryCommand.self,
            OfflineCloseCommand.self, OfflineRemoveCommand.self,
        ]
    )
}

/// The configuration file and the store's key, shared by every `satchel offline` command.
struct OfflineOptions: ParsableArguments {
    @OptionGroup var global: GlobalOptions

    @Argument(help: "The store's configuration (.ini).")
    var config: String

    @OptionGroup var storeKey: StoreKeyOptions

    @Flag(help: "Make (or open) a store that is not encrypted.")
    var unencrypted = false

    @Option(
        help: """
            Keep the store's key in this key file, sealed under the passcode in SATCHEL_KEY_PASSCODE: a random key is \
            made and kept the first time (instead of a passphrase or a raw key).
            """)
    var keyFile: String?

    @Option(help: "Seconds a request to the service may be silent (default: the file's timeout, else 60).")
    var timeout: Double?

    /// The configuration; a key it does not use is said on standard error with its line (once per run).
    /// A configuration that cannot be used is said as one line (with its line number) and exits 2, wherever the
    /// command reads it.
    func file() throws -> OfflineConfigurationFile {
        let file: OfflineConfigurationFile
        do {
            file = try OfflineConfigurationFile(contentsOf: config)
        } catch {
            let code = ErrorReport.report(error, verbose: false)
            throw ExitCode(code.rawValue)
        }
        if Self.warned.withLock({ $0.insert(config).inserted }) {
            for warning in file.warnings { Terminal.writeError("satchel: warning: \(warning)\n") }
        }
        return file
    }

    private static let warned = Mutex<Set<String>>([])

    /// The store's key: none with `--unencrypted`; from `--key-file` (kept there under the store file's path); else
    /// the passphrase or raw key given.
    func key(storePath: String) async throws -> StoreKey? {
        if unencrypted { return nil }
        guard let keyFile else { return try storeKey.required() }
        guard let passcode = Terminal.environment("SATCHEL_KEY_PASSCODE"), !passcode.isEmpty else {
            throw CLIError(.usage, "--key-file needs the key file's passcode in SATCHEL_KEY_PASSCODE")
        }
        // Named by the store's canonical path: two spellings of one store find one key.
        let name = URL(fileURLWithPath: storePath).standardizedFileURL.resolvingSymlinksInPath().path
        return try await PasscodeKeyFile(path: keyFile, passcode: passcode).key(namedOrNew: name)
    }

    /// `--timeout`, else the file's `timeout`, else 60 seconds.
    func requestTimeout(_ file: OfflineConfigurationFile) throws -> Duration {
        guard let timeout else { return file.timeout ?? .seconds(60) }
        guard timeout > 0, timeout <= 86_400 else {
            throw CLIError(.usage, "--timeout is a number of seconds (up to 86400), not \(timeout)")
        }
        return .milliseconds(Int64((timeout * 1000).rounded()))
    }

    /// The store, not yet opened. `local`: the command works on the store alone (no password needed).
    func store(local: Bool = false) async throws -> OfflineStore {
        let file = try file()
        var auth: [any HTTPAuthProvider] = []
        if let user = file.user {
            if let password = Terminal.environment("SATCHEL_PASSWORD") {
                auth.append(BasicAuth(user: user, password: password))
            } else if !local {
                throw CLIError(.usage, "no password for \(user): set SATCHEL_PASSWORD")
            }
        }
        if file.csrf { auth.append(CSRFTokenAuth()) }
        var configuration = ODataService.Configuration(
            serviceURL: file.serviceURL, sapClient: file.sapClient,
            http: HTTPClient.Configuration(timeout: try requestTimeout(file)), auth: auth)
        configuration.payloadFormat = file.payloadFormat ?? .automatic
        let service = ODataService(configuration: configuration)
        return OfflineStore(
            configuration: .init(
                service: service, path: file.storePath, definingQueries: file.definingQueries,
                key: try await key(storePath: file.storePath),
                indexes: file.indexes, usesMiddleTier: file.usesMiddleTier, maximumResends: file.maximumResends ?? 5,
                repeatableRequests: file.repeatableRequests ?? true))
    }

    /// Opens the store, runs `body`, closes it; failures become one line and an exit code. `local`: nothing is
    /// sent to the service (a store already opened once answers from its database).
    func run(local: Bool = false, _ body: @escaping @Sendable (OfflineStore) async throws -> Void) async throws {
        try await CommandRunner.run(global) {
            let store = try await store(local: local)
            try await store.open(resuming: !local, localOnly: local)
            do {
                try await body(store)
            } catch {
                try? await store.close()
                throw error
            }
            try await store.close()
        }
    }
}

/// One entity as a line of JSON (V4 shape), with the store's `@satchel.entityID` (how an entity created offline
/// without a key is addressed) first.
func jsonLine(_ entity: ODataEntity, serviceURL: URL) throws -> String {
    var plain = entity
    plain.annotations = [:]
    var written = try ODataPayloadWriter(version: .v4, serviceURL: serviceURL).json(for: plain)
    if let id = entity.offlineEntityID, case .object(let properties) = written {
        var object = JSONObject()
        object.append(key: "@satchel.entityID", value: .number(JSONNumber(id)))
        for (key, value) in properties { object.append(key: key, value: value) }
        written = .object(object)
    }
    return String(decoding: written.serialized(), as: UTF8.self)
}

/// An entity from a JSON object given on the command line.
func entity(fromJSON text: String) throws -> ODataEntity {
    guard case .object(let object)? = try? JSONValue(parsing: Data(text.utf8)) else {
        throw CLIError(.usage, "--json needs a JSON object")
    }
    func value(_ json: JSONValue) -> ODataValue {
        switch json {
        case .object(let members): .complex(properties(members.map { ($0.key, $0.value) }))
        case .array(let items): .collection(items.map(value))
        case .null: .null
        default: .json(json)
        }
    }
    func properties(_ members: [(String, JSONValue)]) -> ODataProperties {
        var result = ODataProperties()
        for (name, member) in members { result[name] = value(member) }
        return result
    }
    return ODataEntity(properties: properties(object.map { ($0.key, $0.value) }))
}

/// How a local change is queued: `--transaction`, `--category`, `--unmodifiable`.
struct ChangeQueueOptions: ParsableArguments {
    @Option(help: "A transaction id: changes with the same one are uploaded in one changeset (all or none).")
    var transaction: String?
    @Option(help: "The upload category (`upload --category` sends only the categories it names).")
    var category: String?
    @Flag(help: "Never merge later changes into this request, nor cancel it by a deletion.")
    var unmodifiable = false

    var options: OfflineChangeOptions {
        OfflineChangeOptions(transactionID: transaction, uploadCategory: category, unmodifiable: unmodifiable)
    }
}

/// Properties and links of a created or changed entity.
struct EntityInputOptions: ParsableArguments {
    @Option(help: "The entity's properties as a JSON object.") var json: String?
    @Option(
        name: .customLong("bind"),
        help: ArgumentHelp(
            "Link a navigation property to an entity: NAV=Set(key), or NAV=Set(satchel_eid=N) for one created offline.",
            valueName: "nav=path"))
    var bindings: [String] = []

    func entity() throws -> ODataEntity {
        var result = try json.map(entity(fromJSON:)) ?? ODataEntity()
        for binding in bindings {
            guard let equals = binding.firstIndex(of: "="), equals > binding.startIndex else {
                throw CLIError(.usage, "--bind needs NAV=PATH, not \(binding)")
            }
            result.bind(String(binding[..<equals]), to: String(binding[binding.index(after: equals)...]))
        }
        return result
    }
}

/// A key given on the command line: `3`, `'HT-1000'`, or `OrderID=1,LineNumber=2`.
func entityKey(_ text: String) throws -> OfflineStore.EntityReference {
    if text.hasPrefix("#"), let id = Int64(text.dropFirst()) { return .id(id) }
    return .key(try odataKey(text))
}

struct OfflineOpenCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "open", abstract: "Open the store; the first time, download every defining query.")
    @OptionGroup var options: OfflineOptions

    func run() async throws {
        let file = try options.file()
        try await options.run { store in
            for query in file.definingQueries {
                print("\(query.name): \(try await store.count(query.entitySet)) \(query.entitySet)")
            }
        }
    }
}

struct OfflineStatusCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(commandName: "status", abstract: "Print the store's state.")
    @OptionGroup var options: OfflineOptions

    func run() async throws {
        let file = try options.file()
        try await options.run(local: true) { store in
            print("store: \(file.storePath)")
            print("encrypted: \(try StoreFile(path: file.storePath).info().isEncrypted ? "yes" : "no")")
            print("initial download complete: \(try await store.isInitialDownloadComplete ? "yes" : "no")")
            print("pending requests: \(try await store.requests().count)")
            print("errors: \(try await store.errors().count)")
            var seen = Set<String>()
            for set in file.definingQueries.map(\.entitySet) where seen.insert(set).inserted {
                print("\(set): \(try await store.count(set))")
            }
        }
    }
}

struct OfflineQueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query", abstract: "Query the store (no network): entities as JSON lines, or a count.")
    @OptionGroup var options: OfflineOptions
    @Argument(help: "The entity set.") var entitySet: String
    @Option(help: "A $filter expression.") var filter: String?
    @OptionGroup var shape: QueryShapeOptions
    @Flag(help: "Print only how many match.") var count = false

    func run() async throws {
        let file = try options.file()
        try await options.run(local: true) { [self] store in
            let version = try await store.version()
            var query = ODataQuery()
            if let filter { query = query.filter(try ODataExpression.parse(filter, version: version)) }
            query = shape.apply(to: query)
            if count {
                print(try await store.count(entitySet, query: query))
                return
            }
            for entity in try await store.entities(entitySet, query: query) {
                print(try jsonLine(entity, serviceURL: file.serviceURL))
            }
        }
    }
}

/// `--media FILE --content-type TYPE`: a media entity's content.
struct MediaInputOptions: ParsableArguments {
    @Option(help: "A file with the media entity's content.") var media: String?
    @Option(help: "The content's media type.") var contentType = "application/octet-stream"

    func data() throws -> Data? {
        guard let media else { return nil }
        do {
            return try Data(contentsOf: URL(fileURLWithPath: media))
        } catch {
            throw CLIError(.usage, "cannot read \(media): \(error.localizedDescription)")
        }
    }
}

struct OfflineGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get",
        abstract: "Read one entity from the store (no network) as a JSON line, or its media content to a file.")
    @OptionGroup var options: OfflineOptions
    @Argument(help: "The entity set.") var entitySet: String
    @Argument(help: "The key (3, 'HT-1000', A=1,B=2) or #entity-id.") var key: String
    @Option(help: "Properties to print, comma-separated.") var select: String?
    @Option(help: "Write the media entity's content to this file (- for standard output).") var mediaTo: String?

    func run() async throws {
        let file = try options.file()
        try await options.run(local: true) { [self] store in
            let reference = try entityKey(key)
            if let mediaTo {
                let media = try await store.media(entitySet, reference)
                if mediaTo == "-" {
                    FileHandle.standardOutput.write(media.data)
                } else {
                    try media.data.write(to: URL(fileURLWithPath: mediaTo), options: .atomic)
                    print("\(media.data.count) bytes, \(media.contentType ?? "no content type") → \(mediaTo)")
                }
                return
            }
            let fields = select.map { $0.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) } }
            let entity = try await store.entity(entitySet, reference, query: ODataQuery().select(fields ?? []))
            print(try jsonLine(entity, serviceURL: file.serviceURL))
        }
    }
}

struct OfflineCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create",
        abstract: "Create an entity locally (queued for upload); prints its entity id.",
        discussion: "With --media, a media entity is created from the file (its properties follow as an update).")
    @OptionGroup var options: OfflineOptions
    @Argument(help: "The entity set.") var entitySet: String
    @OptionGroup var input: EntityInputOptions
    @OptionGroup var media: MediaInputOptions
    @OptionGroup var queue: ChangeQueueOptions

    func run() async throws {
        try await options.run(local: true) { [self] store in
            let entity = try input.entity()
            if let data = try media.data() {
                let id = try await store.createMedia(
                    entitySet, data: data, contentType: media.contentType, properties: entity, options: queue.options)
                print("#\(id)")
                return
            }
            guard input.json != nil || !input.bindings.isEmpty else {
                throw CLIError(.usage, "create needs --json (or --media)")
            }
            print("#\(try await store.create(entitySet, entity, options: queue.options))")
        }
    }
}

struct OfflineUpdateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "update", abstract: "Change an entity (merge) or its media content locally (queued for upload).")
    @OptionGroup var options: OfflineOptions
    @Argument(help: "The entity set.") var entitySet: String
    @Argument(help: "The key (3, 'HT-1000', A=1,B=2) or #entity-id.") var key: String
    @OptionGroup var input: EntityInputOptions
    @OptionGroup var media: MediaInputOptions
    @OptionGroup var queue: ChangeQueueOptions

    func run() async throws {
        try await options.run(local: true) { [self] store in
            let reference = try entityKey(key)
            let data = try media.data()
            guard data != nil || input.json != nil || !input.bindings.isEmpty else {
                throw CLIError(.usage, "update needs --json, --bind or --media")
            }
            if let data {
                try await store.updateMedia(
                    entitySet, reference, data: data, contentType: media.contentType, options: queue.options)
            }
            if input.json != nil || !input.bindings.isEmpty {
                try await store.update(entitySet, reference, with: try input.entity(), options: queue.options)
            }
        }
    }
}

struct OfflineDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete an entity locally (queued for upload).")
    @OptionGroup var options: OfflineOptions
    @Argument(help: "The entity set.") var entitySet: String
    @Argument(help: "The key (3, 'HT-1000', A=1,B=2) or #entity-id.") var key: String
    @OptionGroup var queue: ChangeQueueOptions

    func run() async throws {
        try await options.run(local: true) { [self] store in
            try await store.delete(entitySet, try entityKey(key), options: queue.options)
        }
    }
}

struct OfflineUploadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "upload", abstract: "Send the queued requests; refused ones go to the ErrorArchive.")
    @OptionGroup var options: OfflineOptions
    @Option(help: "Send only the requests of this upload category (repeat for several).")
    var category: [String] = []
    @Option(help: "Send only the requests of this transaction (repeat for several).")
    var transaction: [String] = []

    func run() async throws {
        try await options.run { [self] store in
            let result = try await store.upload(
                categories: category.isEmpty ? nil : Set(category),
                transactions: transaction.isEmpty ? nil : Set(transaction))
            print(
                "sent: \(result.sent), failed: \(result.failed), held: \(result.held)"
                    + (result.deferred > 0 ? ", deferred: \(result.deferred)" : ""))
            if let failure = result.lastFailure {
                // Kept queued: the next upload sends them again (see `requests`, `cancel`).
                throw CLIError(
                    .httpStatus,
                    "the service failed \(result.deferred) request(s), kept queued; its last answer: \(failure)")
            }
        }
    }
}

struct OfflineDownloadCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "download", abstract: "Download every defining query again (local changes are kept).")
    @OptionGroup var options: OfflineOptions

    func run() async throws {
        try await options.run { store in try await store.download() }
    }
}

struct OfflineRequestsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "requests", abstract: "List the queued requests, oldest first.")
    @OptionGroup var options: OfflineOptions

    func run() async throws {
        try await options.run(local: true) { store in
            for request in try await store.requests() {
                var flags: [String] = []
                if request.failed { flags.append("failed") }
                if let transaction = request.transactionID { flags.append("transaction=\(transaction)") }
                if let category = request.uploadCategory { flags.append("category=\(category)") }
                if request.unmodifiable { flags.append("unmodifiable") }
                if request.resends > 0 { flags.append("resends=\(request.resends)") }
                print(
                    "\(request.requestID)\t\(request.method)\t\(request.entitySet) #\(request.entityID)\t"
                        + (flags.isEmpty ? "-" : flags.joined(separator: ",")) + "\t\(request.repeatabilityRequestID)"
                        + (request.lastFailure.map { "\tlast failure: \($0)" } ?? ""))
            }
        }
    }
}

struct OfflineErrorsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "errors", abstract: "List the ErrorArchive: requests the service refused.")
    @OptionGroup var options: OfflineOptions

    func run() async throws {
        try await options.run(local: true) { store in
            for error in try await store.errors() {
                print(
                    "\(error.errorID)\t\(error.httpStatus.map(String.init) ?? "-")\t\(error.requestMethod) \(error.requestURL)\t\(error.message)"
                )
            }
        }
    }
}

struct OfflineRevertCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "revert", abstract: "Give up a refused change: drop it and restore the entity as downloaded.")
    @OptionGroup var options: OfflineOptions
    @Argument(help: "The ErrorArchive entry (from `errors`).") var errorID: Int64

    func run() async throws {
        try await options.run(local: true) { [self] store in try await store.revert(errorID: errorID) }
    }
}

struct OfflineCancelCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cancel",
        abstract:
            "Give up a queued request: it and the other requests on its entity are dropped, the entity restored as downloaded."
    )
    @OptionGroup var options: OfflineOptions
    @Argument(help: "The queued request (from `requests`).") var requestID: Int64

    func run() async throws {
        try await options.run(local: true) { [self] store in try await store.cancel(requestID: requestID) }
    }
}

struct OfflineRetryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "retry", abstract: "Queue an ErrorArchive entry's request again, as it was, for the next upload.")
    @OptionGroup var options: OfflineOptions
    @Argument(help: "The ErrorArchive entry (from `errors`).") var errorID: Int64

    func run() async throws {
        try await options.run(local: true) { [self] store in try await store.retry(errorID: errorID) }
    }
}

struct OfflineCloseCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "close",
        abstract: "Close the store cleanly: its write-ahead log folded into the store file, which can then be copied.",
        discussion: """
            Every command closes the store when it ends; this one also checks that the log beside the store file \
            is empty (a process killed mid-write leaves one that the next open replays).
            """)
    @OptionGroup var options: OfflineOptions

    func run() async throws {
        let path = try options.file().storePath
        try await CommandRunner.run(options.global) {
            let store = try await options.store(local: true)
            try await store.open(resuming: false, localOnly: true)
            try await store.close()
            let left = ["-wal", "-journal"].filter {
                ((try? FileManager.default.attributesOfItem(atPath: path + $0)[.size] as? Int) ?? 0) > 0
            }
            guard left.isEmpty else {
                let names = left.map { path + $0 }.joined(separator: ", ")
                throw CLIError(
                    .failure, "the store did not close cleanly (open in another process?): \(names) not empty")
            }
            let size = (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? 0
            print("closed: \(path) (\(size) bytes)")
        }
    }
}

struct OfflineRemoveCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "remove",
        abstract: "Delete the store's files; refused while requests are queued, unless --force (they are lost then).")
    @OptionGroup var options: OfflineOptions
    @Flag(help: "Remove the store even with requests still queued (their changes are lost); needs no store key.")
    var force = false

    func run() async throws {
        if force {
            try await CommandRunner.run(options.global) { try StoreFile(path: try options.file().storePath).destroy() }
            return
        }
        try await CommandRunner.run(options.global) {
            try await options.store(local: true).clear()
        }
    }
}
