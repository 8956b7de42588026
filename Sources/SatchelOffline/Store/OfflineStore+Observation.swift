public import Foundation
import GRDB
public import SatchelOData
import Synchronization

/// What a store is doing and how its syncing went: what a UI shows beside the data.
public struct OfflineSyncState: Sendable, Hashable {
    /// What the store is doing.
    public enum Phase: Sendable, Hashable {
        /// Not open.
        case closed
        /// Opening: the local database, and the first time `$metadata` and the initial download.
        case opening
        /// Downloading its defining queries.
        case downloading
        /// Uploading its queued requests.
        case uploading
        /// Open, exchanging nothing with the service.
        case idle
    }

    /// What the store is doing now.
    public var phase: Phase
    /// When the last download that completed ended (kept in the store across restarts); nil before the first.
    public var lastDownload: Date?
    /// When the last upload that completed ended (whatever it sent or deferred; kept across restarts).
    public var lastUpload: Date?
    /// Requests queued and not failed: what the next upload sends.
    public var pendingRequests: Int

    /// A state with these values.
    public init(phase: Phase, lastDownload: Date? = nil, lastUpload: Date? = nil, pendingRequests: Int = 0) {
        self.phase = phase
        self.lastDownload = lastDownload
        self.lastUpload = lastUpload
        self.pendingRequests = pendingRequests
    }
}

/// The sync state behind one lock, its subscribers, and the observations running on the open database (stopped
/// before the database closes).
final class OfflineObservers: Sendable {
    private let current = Mutex(OfflineSyncState(phase: .closed))
    private let subscribers = Mutex<[UUID: AsyncStream<OfflineSyncState>.Continuation]>([:])
    /// The observations running, and whether new ones may start (not while the store closes or is closed).
    private let running = Mutex<(tasks: [UUID: Task<Void, Never>], accepting: Bool)>(([:], false))

    var state: OfflineSyncState { current.withLock { $0 } }

    /// Changes the state; subscribers hear of it when it differs. States are handed to subscribers under the state's
    /// lock (yielding does not wait), so every subscriber sees them in the order they happened.
    func update(_ change: (inout OfflineSyncState) -> Void) {
        current.withLock { state in
            let before = state
            change(&state)
            guard state != before else { return }
            for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(state) }
        }
    }

    func states() -> AsyncStream<OfflineSyncState> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<OfflineSyncState>.makeStream(bufferingPolicy: .bufferingNewest(64))
        // The same lock order as `update`: the state, then the subscribers.
        current.withLock { state in
            subscribers.withLock { $0[id] = continuation }
            continuation.yield(state)
        }
        continuation.onTermination = { [weak self] _ in self?.subscribers.withLock { _ = $0.removeValue(forKey: id) } }
        return stream
    }

    /// Runs `work` until it ends, ``stop(_:)`` or ``stopAll()``; returns what ``stop(_:)`` takes, or nil (and runs
    /// nothing) when the store is closing or closed.
    @discardableResult
    func run(_ work: @escaping @Sendable () async -> Void) -> UUID? {
        let id = UUID()
        return running.withLock { running -> UUID? in
            guard running.accepting else { return nil }
            running.tasks[id] = Task { [weak self] in
                await work()
                self?.running.withLock { _ = $0.tasks.removeValue(forKey: id) }
            }
            return id
        }
    }

    /// Lets observations start (the database is open).
    func accept() {
        running.withLock { $0.accepting = true }
    }

    /// Cancels one running observation (its consumer went away).
    func stop(_ id: UUID) {
        running.withLock { $0.tasks.removeValue(forKey: id) }?.cancel()
    }

    /// Cancels every running observation, lets no new one start, and waits for them to end.
    func stopAll() async {
        let tasks = running.withLock { running in
            defer { running = ([:], false) }
            return Array(running.tasks.values)
        }
        for task in tasks { task.cancel() }
        for task in tasks { await task.value }
    }
}

extension OfflineStore {
    /// The store's sync state now.
    public var syncState: OfflineSyncState { observers.state }

    /// The store's sync state, now and at every change: phase (opening, downloading, uploading, idle, closed), the
    /// end of the last completed download and upload, and the count of pending requests (which follows every local
    /// change, upload and revert as it is committed).
    ///
    /// ```swift
    /// Task { for await state in store.syncStates() { badge.count = state.pendingRequests } }
    /// ```
    public func syncStates() -> AsyncStream<OfflineSyncState> { observers.states() }

    /// The entities of `entitySet` that `query` selects, now and again after every committed change to the tables
    /// the query reads (a downloaded page, a local change, an upload's answer); a result equal to the last one is
    /// not sent again. The stream ends with an error when the store is not open, and ends when it closes.
    ///
    /// ```swift
    /// for try await products in store.observe("Products", query: ODataQuery().filter(.property("Stock") < 5)) {
    ///     table.show(products)
    /// }
    /// ```
    public func observe(
        _ entitySet: String, query: ODataQuery = ODataQuery()
    ) -> AsyncThrowingStream<[ODataEntity], any Error> {
        observe(ODataPath(entitySet), query: query)
    }

    /// ``observe(_:query:)`` for a path: an entity set, or a navigation from one entity.
    public func observe(
        _ path: ODataPath, query: ODataQuery
    ) -> AsyncThrowingStream<[ODataEntity], any Error> {
        let (stream, continuation) = AsyncThrowingStream<[ODataEntity], any Error>.makeStream(
            bufferingPolicy: .bufferingNewest(1))
        let opened: Opened
        let target: OfflineTarget
        do {
            opened = try current()
            target = try OfflineTarget(path: path, schema: opened.schema)
        } catch {
            continuation.finish(throwing: error)
            return stream
        }
        let observation = ValueObservation.tracking { db in
            try Self.read(target, query: query, opened: opened, db: db)
        }.removeDuplicates()
        let started = observers.run {
            do {
                for try await entities in observation.values(in: opened.store.database) {
                    continuation.yield(entities)
                }
                continuation.finish()
            } catch is CancellationError {
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        guard let started else {
            continuation.finish(throwing: OfflineStoreError(.notOpen, "the offline store is closing"))
            return stream
        }
        // A consumer that stops listening stops the observation: no query runs for nobody.
        continuation.onTermination = { [weak observers] _ in observers?.stop(started) }
        return stream
    }

    /// Starts following the pending-request count of a store just opened, and reads its last sync times.
    func startSyncState(_ opened: Opened) async throws {
        let times = try await opened.store.database.read { db in
            (
                try Double.fetchOne(db, sql: "SELECT CAST(value AS REAL) FROM s_store WHERE name = 'last_download'"),
                try Double.fetchOne(db, sql: "SELECT CAST(value AS REAL) FROM s_store WHERE name = 'last_upload'")
            )
        }
        observers.update { state in
            state.lastDownload = times.0.map(Date.init(timeIntervalSince1970:))
            state.lastUpload = times.1.map(Date.init(timeIntervalSince1970:))
        }
        let pending = ValueObservation.tracking { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM q_requests WHERE failed = 0") ?? 0
        }.removeDuplicates()
        observers.run { [observers] in
            do {
                for try await count in pending.values(in: opened.store.database) {
                    observers.update { $0.pendingRequests = count }
                }
            } catch {
                // Cancelled when the store closes; nothing else ends a read of one table.
            }
        }
    }

    /// Records the end of a completed download or upload, in the store and in the sync state.
    func recordSync(download: Bool, opened: Opened) async throws {
        let now = Date()
        try await opened.store.database.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO s_store (name, value) VALUES (?, CAST(? AS TEXT))",
                arguments: [download ? "last_download" : "last_upload", now.timeIntervalSince1970])
        }
        observers.update { state in
            if download { state.lastDownload = now } else { state.lastUpload = now }
        }
    }
}
