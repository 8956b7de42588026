import Foundation
import GRDB
import SatchelText
public import SatchelOData
public import SatchelStore
import Synchronization

/// An offline OData store: the data its defining queries name, downloaded into an encrypted local database, read
/// with the same queries as online (translated to SQL). See docs/offline.md.
///
/// ```swift
/// let store = OfflineStore(configuration: .init(
///     service: service, path: folder.appendingPathComponent("alice-shop.store").path,
///     definingQueries: [.init(name: "products", query: "Products?$filter=Price gt 10")], key: key))
/// try await store.open()                       // first time: $metadata and the initial download
/// let limit: Decimal = 20
/// let cheap = try await store.entities("Products", query: ODataQuery().filter(.property("Price") < limit))
/// ```
public final class OfflineStore: Sendable {
    /// What a store is made of: the service it syncs with, its file, its defining queries and key, and how it
    /// indexes and uploads.
    public struct Configuration: Sendable {
        /// The OData service the store downloads from and uploads to; its configuration holds the URL, the version
        /// and the auth providers.
        public var service: ODataService
        /// The store's file (one per user and service endpoint).
        public var path: String
        /// Added to the store (or updated) at each open. The store keeps its defining queries, these and those
        /// added by ``OfflineStore/addDefiningQuery(_:)``, until ``OfflineStore/removeDefiningQuery(named:)``.
        public var definingQueries: [OfflineDefiningQuery]
        /// Without a key the store is not encrypted.
        public var key: StoreKey?
        /// Secondary indexes: entity set (or qualified entity type: each of its sets) → property paths, one index
        /// each (SAP's `indexed_type`).
        public var indexes: [String: [String]]
        /// How the queue is sent: `$batch` requests of up to 100 requests unless told otherwise.
        public var upload: OfflineUploadMode
        /// Whether the service is Satchel's offline middle tier (`satchel serve --offline`): the first open then
        /// receives a store built on the server (docs/offline-server.md, "Prebuilt stores") instead of downloading
        /// entity by entity, and goes on as against any service when the server builds none.
        public var usesMiddleTier: Bool
        /// How many times a request is sent again after the service failed it (a 5xx, 408 or 429 answer) before it
        /// goes to the ErrorArchive with the service's last answer (`max_delta_resends` in the `.ini`). The
        /// requests that do not depend on it go on meanwhile. 5 unless told otherwise.
        public var maximumResends: Int
        /// Whether every queued request (and every `$batch`) carries a `Repeatability-Request-ID` and
        /// `Repeatability-First-Sent` (OData 4.01 repeatable requests), the same on every attempt and across
        /// restarts, so a service that supports them applies a request resent after a lost answer once. On unless
        /// told otherwise; off for a service that refuses requests with headers it does not know.
        public var repeatableRequests: Bool

        /// A configuration; by default no secondary indexes, uploads in `$batch` requests of up to 100 requests,
        /// no middle tier, 5 resends of a request the service fails, and repeatable requests.
        public init(
            service: ODataService, path: String, definingQueries: [OfflineDefiningQuery], key: StoreKey?,
            indexes: [String: [String]] = [:], upload: OfflineUploadMode = .batch(maximumRequests: 100),
            usesMiddleTier: Bool = false, maximumResends: Int = 5, repeatableRequests: Bool = true
        ) {
            self.service = service
            self.path = path
            self.definingQueries = definingQueries
            self.key = key
            self.indexes = indexes
            self.upload = upload
            self.usesMiddleTier = usesMiddleTier
            self.maximumResends = max(0, maximumResends)
            self.repeatableRequests = repeatableRequests
        }
    }

    /// What the store was made with.
    public let configuration: Configuration

    struct Opened: Sendable {
        let store: LocalStore<DatabasePool>
        let schema: OfflineSchema
        let version: ODataVersion
    }

    /// The store's life, one value behind one lock: every change to it is one step.
    struct State {
        /// The open database, its schema and the service's version; nil when closed.
        var opened: Opened?
        /// An `open()` under way or done: a second one is refused before it opens anything.
        var claimed = false
        /// Whether a download or an upload is running: one exchange with the service at a time, so a page read
        /// before an upload is never written after it.
        var exchanging = false
        /// Whether the service answered a `$batch` with 404, 405 or 501: uploads go one by one then.
        var batchUnsupported = false
        /// A `close()` under way: no download or upload starts any more.
        var closing = false
    }

    let state = Mutex(State())

    /// Progress subscribers and the cancel flag.
    let signals = OfflineSignals()

    /// The sync state, its subscribers, and the observations of the open database.
    let observers = OfflineObservers()

    /// Starts a download or an upload (`phase`); a second one while one runs is refused.
    func beginExchange(_ phase: OfflineSyncState.Phase) throws(OfflineStoreError) {
        let refusal = state.withLock { state -> OfflineStoreError? in
            if state.closing || state.opened == nil {
                return OfflineStoreError(.notOpen, "the offline store is not open (or is closing)")
            }
            if state.exchanging {
                return OfflineStoreError(.busy, "a download or upload of this offline store is already running")
            }
            state.exchanging = true
            return nil
        }
        if var refusal {
            refusal.storePath = configuration.path
            throw refusal
        }
        signals.reset()
        observers.update { $0.phase = phase }
    }

    func endExchange() {
        state.withLock { $0.exchanging = false }
        observers.update { state in
            if state.phase == .downloading || state.phase == .uploading { state.phase = .idle }
        }
        signals.emit(.finished)
    }

    /// Whether queued requests carry their repeatability headers (``Configuration/repeatableRequests``).
    var repeatable: Bool { configuration.repeatableRequests }

    /// A store for `configuration`; nothing is opened, read or sent until `open(resuming:localOnly:)`.
    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    func current() throws(OfflineStoreError) -> Opened {
        guard let opened = state.withLock({ $0.closing ? nil : $0.opened }) else {
            throw OfflineStoreError(
                .notOpen, "the offline store is not open (call open() first)", storePath: configuration.path)
        }
        return opened
    }

    // MARK: Open and close

    /// Opens the store. The first time: reads `$metadata`, creates the tables and downloads every defining query
    /// (the initial download); through the middle tier (``Configuration/usesMiddleTier``) the store arrives built
    /// instead, and only defining queries it lacks are downloaded. Later: opens the local database without the
    /// network, and downloads only defining queries not downloaded completely yet (an interrupted initial download
    /// resumes) unless `resuming` is false (then nothing is sent once the store has its `$metadata`: reads, local
    /// changes and the queue work offline).
    /// When the download fails, `open` throws its error and the store stays open with what it has (its initial
    /// download not complete): call `download()` again, or `close()`.
    ///
    /// `localOnly`: nothing is sent at all, whatever the store's state: a store that does not exist yet, or whose
    /// first open ended before its `$metadata` was stored, throws ``OfflineStoreError/Code/noLocalStore`` instead of asking the service.
    public func open(resuming: Bool = true, localOnly: Bool = false) async throws {
        let free = state.withLock { state -> Bool in
            defer { state.claimed = true }
            return !state.claimed
        }
        guard free else { throw OfflineStoreError(.alreadyOpen, "the offline store is open already") }
        let path = configuration.path
        observers.update { $0.phase = .opening }
        if localOnly, !FileManager.default.fileExists(atPath: path) {
            observers.update { $0.phase = .closed }
            state.withLock { $0.claimed = false }
            throw OfflineStoreError(
                .noLocalStore, "there is no offline store at \(path) yet: open it once with the service reachable")
        }
        let store: LocalStore<DatabasePool>
        do {
            // A store's folder that is not there yet (a per-user store's, say) is made, for its owner alone.
            let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
            if !FileManager.default.fileExists(atPath: folder.path) {
                try FileManager.default.createDirectory(
                    at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
            }
            if configuration.usesMiddleTier, !FileManager.default.fileExists(atPath: configuration.path) {
                _ = try await receivePrebuiltStore()
            }
            var database = GRDB.Configuration()
            database.prepareDatabase { db in
                db.add(function: Self.lowercased)
                db.add(function: Self.uppercased)
            }
            store = try await StoreFile(path: configuration.path).openPoolDetached(
                key: configuration.key, configuration: database)
        } catch {
            observers.update { $0.phase = .closed }
            state.withLock { $0.claimed = false }
            throw error
        }
        do {
            try await store.database.write { db in
                try db.execute(sql: "CREATE TABLE IF NOT EXISTS s_store (name TEXT PRIMARY KEY, value BLOB NOT NULL)")
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS s_defining_queries (
                            name TEXT PRIMARY KEY, query TEXT NOT NULL, complete INTEGER NOT NULL DEFAULT 0,
                            delta_link TEXT, generation INTEGER NOT NULL DEFAULT 0)
                        """)
                // Added since the first stores were made: whether a query's media streams come along.
                let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(s_defining_queries)").map {
                    $0["name"] as String
                }
                if !columns.contains("streams") {
                    try db.execute(
                        sql: "ALTER TABLE s_defining_queries ADD COLUMN streams INTEGER NOT NULL DEFAULT 0")
                }
                if !columns.contains("track") {
                    try db.execute(sql: "ALTER TABLE s_defining_queries ADD COLUMN track TEXT NOT NULL DEFAULT 'auto'")
                }
                // Which defining query brought which entity, in which full download (rows no query names any
                // more are removed after a full refresh). Keyed by the row first: whether anything still names a
                // row is one lookup, and a download adds to one b-tree.
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS s_members (
                            entity_set TEXT NOT NULL, entity_id INTEGER NOT NULL, query TEXT NOT NULL,
                            generation INTEGER NOT NULL, PRIMARY KEY (entity_set, entity_id, query)) WITHOUT ROWID
                        """)
                // Links a defining query's `$expand` brought for navigations without a referential constraint (and
                // the ones local changes made), by their source row, and by their target.
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS s_links (
                            entity_set TEXT NOT NULL, entity_id INTEGER NOT NULL, navigation TEXT NOT NULL,
                            target_set TEXT NOT NULL, target_id INTEGER NOT NULL,
                            PRIMARY KEY (entity_set, entity_id, navigation, target_set, target_id)) WITHOUT ROWID
                        """)
                try db.execute(sql: "CREATE INDEX IF NOT EXISTS s_links_target ON s_links (target_set, target_id)")
                try OfflineQueue.create(in: db)
                try OfflineMediaTable.create(in: db)
            }
            let stored = try await store.database.read {
                try Data.fetchOne($0, sql: "SELECT value FROM s_store WHERE name = 'metadata'")
            }
            let document: Data
            if let stored {
                document = stored
            } else if localOnly {
                throw OfflineStoreError(
                    .noLocalStore,
                    "the offline store at \(path) has no $metadata: its first open did not get that far; open it once "
                        + "with the service reachable")
            } else {
                signals.emit(.loadingMetadata)
                document = try await configuration.service.metadataDocument()
            }
            let metadata = try ODataMetadata.parse(data: document)
            configuration.service.use(metadata)
            let schema = OfflineSchema(metadata: metadata)
            let version = configuration.service.configuration.version ?? metadata.version
            // Check every defining query before anything is stored.
            for query in configuration.definingQueries {
                _ = try query.shape(version: version, schema: schema)
            }
            try await store.database.write { [configuration] db in
                try schema.create(in: db)
                try schema.createIndexes(configuration.indexes, db: db)
                try db.execute(
                    sql: "INSERT OR IGNORE INTO s_store (name, value) VALUES ('metadata', ?)", arguments: [document])
                for query in configuration.definingQueries {
                    try db.execute(
                        sql: """
                            INSERT INTO s_defining_queries (name, query, streams, track) VALUES (?, ?, ?, ?)
                            ON CONFLICT (name) DO UPDATE SET query = excluded.query, streams = excluded.streams,
                                track = excluded.track,
                                complete = CASE WHEN query = excluded.query AND streams >= excluded.streams
                                    THEN complete ELSE 0 END,
                                delta_link = CASE WHEN query = excluded.query AND streams >= excluded.streams
                                    AND track = excluded.track THEN delta_link ELSE NULL END
                            """,
                        arguments: [query.name, query.query, query.retrievesStreams, query.deltaTracking.rawValue])
                }
            }
            let opened = Opened(store: store, schema: schema, version: version)
            state.withLock { $0.opened = opened }
            observers.accept()
            try await startSyncState(opened)
        } catch {
            await observers.stopAll()
            state.withLock { $0.opened = nil }
            try? await BlockingWork.shared.run { [store] in try store.close() }
            observers.update { $0.phase = .closed }
            state.withLock { $0.claimed = false }
            throw error
        }
        observers.update { $0.phase = .idle }
        if resuming, !localOnly { try await download(onlyIncomplete: true) }
    }

    /// `tolower` and `toupper` in SQL, for every letter (SQLite's `lower` and `upper` change ASCII letters only).
    static let lowercased = DatabaseFunction("satchel_lower", argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0]).map { $0.lowercased() }
    }
    static let uppercased = DatabaseFunction("satchel_upper", argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0]).map { $0.uppercased() }
    }

    /// Closes the local database, on a dispatch thread (`BlockingWork`): closing waits for SQLite to checkpoint
    /// and release its files, which must not hold a thread of the concurrency pool.
    ///
    /// While a download or an upload runs, or another `close` is under way, `close` refuses with
    /// ``OfflineStoreError/Code/busy`` (``cancel()`` it and wait for it
    /// to end); once `close` has begun, no download, upload or observation starts.
    public func close() async throws {
        let claim = state.withLock { state -> (Opened?, busy: Bool) in
            guard let opened = state.opened else { return (nil, false) }
            if state.exchanging || state.closing { return (nil, true) }
            state.closing = true
            return (opened, false)
        }
        if claim.busy {
            throw OfflineStoreError(
                .busy,
                "a download or upload of this offline store is running, or it is closing: cancel it and let it end "
                    + "first", storePath: configuration.path)
        }
        guard let current = claim.0 else { return }
        // Observations end first: they read the database; none starts from now on.
        await observers.stopAll()
        do {
            // Forgotten only once closed: a database GRDB refused to close (a read running) stays reachable.
            try await BlockingWork.shared.run { [store = current.store] in try store.close() }
        } catch {
            state.withLock { $0.closing = false }
            observers.accept()
            // Still open: the pending count follows commits again.
            try? await startSyncState(current)
            throw error
        }
        state.withLock { state in
            state.opened = nil
            state.claimed = false
            state.closing = false
        }
        observers.update { $0.phase = .closed }
    }

    /// Whether the store is open (``open(resuming:localOnly:)`` got as far as its local database and `$metadata`).
    public var isOpen: Bool { state.withLock { $0.opened != nil } }

    /// Whether every defining query has been downloaded completely at least once.
    public var isInitialDownloadComplete: Bool {
        get async throws {
            let opened = try current()
            return try await opened.store.database.read {
                try Int.fetchOne($0, sql: "SELECT count(*) FROM s_defining_queries WHERE complete = 0") == 0
            }
        }
    }
}
