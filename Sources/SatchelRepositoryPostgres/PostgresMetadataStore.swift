import Foundation
public import Logging
import PostgresNIO
import SatchelCMISCore
public import SatchelRepository
import Synchronization

/// A ``MetadataStore`` in PostgreSQL, for servers that share one database or want PostgreSQL's tooling.
///
/// Same tables and semantics as ``SQLiteMetadataStore``. Every ``apply(_:)`` is one transaction: the objects
/// with expected change tokens are locked (`SELECT … FOR UPDATE`, in id order, so two writers never deadlock),
/// names stay unique per folder through the filings table's primary key, and the change-log rows are written
/// under a transaction-scoped advisory lock, so tokens become visible in increasing order.
///
/// ```swift
/// let store = try await PostgresMetadataStore.connect(url: "postgres://satchel:secret@db:5432/satchel")
/// try await store.migrate()
/// …
/// await store.shutdown()
/// ```
public final class PostgresMetadataStore: MetadataStore, TimedStore {
    let client: PostgresClient
    let logger: Logger
    private let runner: Task<Void, Never>
    /// ``ServerStateStore/trashGeneration``.
    let trashChanges = Atomic<UInt64>(0)
    /// How long statements and transactions take (``TimedStore``).
    public let timings = OperationTimings()
    /// ``StoreChangeFeed``: who follows, and the task that listens for them.
    let followers = Mutex<(handlers: [@Sendable (StoreChangeEvent) -> Void], listener: Task<Void, Never>?)>(([], nil))

    private init(client: PostgresClient, logger: Logger) {
        self.client = client
        self.logger = logger
        runner = Task { await client.run() }
    }

    /// Connects to the database at `url` and brings its schema up to date.
    ///
    /// `url` is `postgres://user:password@host:port/database`; `?host=/run/postgresql` connects through the unix
    /// socket in that folder instead, and `?sslmode=require` asks for TLS.
    ///
    /// - Throws: ``MetadataStoreError/backend(_:)`` for a malformed URL, or when the database cannot be reached or
    ///   migrated within `timeout`.
    public static func connect(
        url: String, logger: Logger? = nil, timeout: Duration = .seconds(30)
    ) async throws -> PostgresMetadataStore {
        try await connect(url: url, logger: logger, timeout: timeout, migrating: true)
    }

    /// ``connect(url:logger:timeout:)``, leaving the schema as it is when `migrating` is false (upgrade tests).
    static func connect(
        url: String, logger: Logger? = nil, timeout: Duration, migrating: Bool
    ) async throws -> PostgresMetadataStore {
        let configuration = try configuration(url: url)
        let logger = logger ?? Logger(label: "satchel.postgres", factory: { _ in SwiftLogNoOpLogHandler() })
        let client = PostgresClient(configuration: configuration, backgroundLogger: logger)
        let store = PostgresMetadataStore(client: client, logger: logger)
        do {
            // The pool keeps retrying an unreachable server; give up after `timeout`.
            try await withThrowingTaskGroup(of: Void.self) { group in
                group.addTask {
                    if migrating { try await store.migrate() } else { _ = try await store.rows("SELECT 1") }
                }
                group.addTask {
                    try await Task.sleep(for: timeout)
                    throw MetadataStoreError.backend("PostgreSQL at \(redacted(url)) did not answer within \(timeout)")
                }
                defer { group.cancelAll() }
                try await group.next()
            }
        } catch {
            await store.shutdown()
            throw error
        }
        return store
    }

    /// Closes every connection. The store cannot be used afterwards.
    public func shutdown() async {
        // The listener ends with its connection (its notifications end when it is cancelled).
        followers.withLock { $0.listener?.cancel() }
        runner.cancel()
        await runner.value
    }

    /// The client configuration a URL describes.
    static func configuration(url: String) throws -> PostgresClient.Configuration {
        guard let components = URLComponents(string: url), let scheme = components.scheme?.lowercased(),
            scheme == "postgres" || scheme == "postgresql"
        else {
            throw MetadataStoreError.backend("not a postgres:// URL: \(redacted(url))")
        }
        let user = components.user ?? "postgres"
        let password = components.password
        let path = components.path.hasPrefix("/") ? String(components.path.dropFirst()) : components.path
        let database = path.isEmpty ? nil : path
        let query = components.queryItems ?? []
        let port = components.port ?? 5432
        var configuration: PostgresClient.Configuration
        if let socketFolder = query.first(where: { $0.name == "host" })?.value, socketFolder.hasPrefix("/") {
            configuration = .init(
                unixSocketPath: socketFolder + "/.s.PGSQL.\(port)", username: user, password: password,
                database: database)
        } else {
            var tls = PostgresClient.Configuration.TLS.disable
            switch query.first(where: { $0.name == "sslmode" })?.value {
            case "require", "verify-ca", "verify-full": tls = .require(.makeClientConfiguration())
            case "prefer": tls = .prefer(.makeClientConfiguration())
            default: break
            }
            configuration = .init(
                host: components.host ?? "localhost", port: port, username: user, password: password,
                database: database, tls: tls)
        }
        configuration.options.maximumConnections = 16
        return configuration
    }

    /// The URL without its password, for messages.
    static func redacted(_ url: String) -> String {
        guard var components = URLComponents(string: url), components.password != nil else { return url }
        components.password = "***"
        return components.string ?? "(unparsable URL)"
    }

    // MARK: Schema

    /// Applies the migrations the database lacks, each in its own transaction, under an advisory lock: processes that
    /// start together migrate one after the other. `connect(url:logger:timeout:)` has migrated already.
    public func migrate() async throws {
        try await withConnection { connection in
            try await self.run("SELECT pg_advisory_lock(\(PostgresSchema.migrationLock))", on: connection)
            do {
                try await self.run(
                    "CREATE TABLE IF NOT EXISTS satchel_schema_versions (version integer PRIMARY KEY)", on: connection)
                let applied = Set(
                    try await self.rows("SELECT version FROM satchel_schema_versions", on: connection).map {
                        try $0.decode(Int.self)
                    })
                for migration in PostgresSchema.migrations where !applied.contains(migration.version) {
                    try await self.run("BEGIN", on: connection)
                    do {
                        for statement in migration.sql {
                            try await self.run(PostgresQuery(unsafeSQL: statement), on: connection)
                        }
                        try await self.run(
                            "INSERT INTO satchel_schema_versions (version) VALUES (\(migration.version))",
                            on: connection)
                        try await self.run("COMMIT", on: connection)
                    } catch {
                        try? await self.run("ROLLBACK", on: connection)
                        throw error
                    }
                }
            } catch {
                try? await self.run("SELECT pg_advisory_unlock(\(PostgresSchema.migrationLock))", on: connection)
                throw error
            }
            try await self.run("SELECT pg_advisory_unlock(\(PostgresSchema.migrationLock))", on: connection)
        }
    }

    // MARK: Plumbing

    func withConnection<T: Sendable>(_ body: (PostgresConnection) async throws -> T) async throws -> T {
        do {
            return try await client.withConnection(body)
        } catch {
            throw Self.storeError(error)
        }
    }

    /// Runs `body` in one transaction on one connection: committed when it returns, rolled back when it throws.
    /// `snapshot`: a read-only transaction that sees one snapshot throughout (REPEATABLE READ).
    func transaction<T: Sendable>(
        snapshot: Bool = false, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await timings.measure("transaction") { () async throws -> T in try await transactionUntimed(snapshot, body)
        }
    }

    private func transactionUntimed<T: Sendable>(
        _ snapshot: Bool, _ body: (PostgresConnection) async throws -> T
    ) async throws -> T {
        try await withConnection { connection in
            try await self.run(
                snapshot ? "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY" : "BEGIN", on: connection)
            do {
                let result = try await body(connection)
                try await self.run("COMMIT", on: connection)
                return result
            } catch {
                try? await self.run("ROLLBACK", on: connection)
                throw Self.storeError(error)
            }
        }
    }

    func rows(_ query: PostgresQuery) async throws -> [PostgresRow] {
        try await timings.measure("query") { () async throws -> [PostgresRow] in
            do {
                return try await client.query(query, logger: logger).collect()
            } catch {
                throw Self.storeError(error)
            }
        }
    }

    func rows(_ query: PostgresQuery, on connection: PostgresConnection) async throws -> [PostgresRow] {
        try await connection.query(query, logger: logger).collect()
    }

    func run(_ query: PostgresQuery, on connection: PostgresConnection) async throws {
        _ = try await connection.query(query, logger: logger).collect()
    }

    /// The SQLSTATE of a server error, if `error` is one.
    static func sqlState(_ error: any Error) -> String? {
        (error as? PSQLError)?.serverInfo?[.sqlState]
    }

    static func storeError(_ error: any Error) -> any Error {
        switch error {
        case let error as MetadataStoreError: return error
        // A refusal the store's protocol names (an expired delta token) is the caller's to see as it is.
        case let error as any StoreRefusal: return error
        case let error as StoredCodingError: return MetadataStoreError.backend(error.message)
        case is CancellationError: return error
        case let error as PSQLError:
            let message = error.serverInfo?[.message] ?? "\(error.code)"
            return MetadataStoreError.backend("PostgreSQL: \(message)")
        default: return MetadataStoreError.backend("PostgreSQL: \(String(reflecting: error))")
        }
    }
}
