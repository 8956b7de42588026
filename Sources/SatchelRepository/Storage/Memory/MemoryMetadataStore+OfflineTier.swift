public import Foundation
import Synchronization

/// One defining query's rows in memory.
struct MemoryOfflineQuery: Sendable {
    struct Entry: Sendable {
        var hash: Data
        var body: Data?
        var version: Int64
        var removedAt: Date?
    }

    var state: OfflineQueryState
    var rows: [String: Entry] = [:]
    var syncPoints: [String: OfflineSyncPoint] = [:]
}

/// ``OfflineTierStore`` in memory, for tests and `--memory` servers: the same rules as the SQLite store's.
extension MemoryMetadataStore: OfflineTierStore {
    /// The query's state, nil before its first refresh.
    public func offlineState(_ query: OfflineQueryID) async throws -> OfflineQueryState? {
        offline.withLock { $0[query]?.state }
    }

    /// Under the store's lock; the time is kept to whole milliseconds, as the SQLite store keeps it.
    public func applyFullRead(
        _ query: OfflineQueryID, rows: [OfflineRow], at time: Date, backendDeltaLink: String?
    ) async throws -> OfflineRefresh {
        apply(query, rows: rows, removedKeys: [], fullRead: true, time, backendDeltaLink)
    }

    /// Under the store's lock; the time is kept to whole milliseconds, as the SQLite store keeps it.
    public func applyDelta(
        _ query: OfflineQueryID, upserts: [OfflineRow], removedKeys: [String], at time: Date, backendDeltaLink: String?
    ) async throws -> OfflineRefresh {
        apply(query, rows: upserts, removedKeys: removedKeys, fullRead: false, time, backendDeltaLink)
    }

    /// Records nothing for a query that was never refreshed.
    public func recordSyncPoint(_ query: OfflineQueryID, client: String, version: Int64, at time: Date) async throws {
        offline.withLock {
            $0[query]?.syncPoints[client] = OfflineSyncPoint(client: client, version: version, at: time)
        }
    }

    /// Each query's sync points ordered by client.
    public func offlineOverview() async throws -> [OfflineQueryOverview] {
        offline.withLock { queries in
            queries.map { id, stored in
                OfflineQueryOverview(
                    query: id, state: stored.state,
                    syncPoints: stored.syncPoints.values.sorted { $0.client < $1.client })
            }.sorted {
                ($0.query.endpoint, $0.query.query, $0.query.scope) < (
                    $1.query.endpoint, $1.query.query, $1.query.scope
                )
            }
        }
    }

    /// None for a query that was never refreshed.
    public func offlineRows(_ query: OfflineQueryID, after key: String?, limit: Int) async throws -> [OfflineRow] {
        offline.withLock { queries in
            guard let stored = queries[query] else { return [] }
            return stored.rows.filter { $0.value.removedAt == nil && $0.key > (key ?? "") }
                .sorted { $0.key < $1.key }.prefix(limit)
                .map { OfflineRow(key: $0.key, hash: $0.value.hash, body: $0.value.body ?? Data()) }
        }
    }

    /// Nothing (at version 0) for a query that was never refreshed; `invalidContinuation` for a continuation that is
    /// not one this store made, or that is older than `version`.
    public func offlineChanges(
        _ query: OfflineQueryID, since version: Int64, after continuation: String?, limit: Int
    ) async throws -> OfflineChanges {
        let (fromVersion, fromKey) = try OfflineContinuation.parse(continuation, since: version)
        return try offline.withLock { queries throws(OfflineTierError) -> OfflineChanges in
            guard let stored = queries[query] else {
                return OfflineChanges(rows: [], removedKeys: [], version: 0, continuation: nil)
            }
            guard version >= stored.state.oldestVersion else {
                throw .tokenExpired(query: query, version: version, oldest: stored.state.oldestVersion)
            }
            let found = stored.rows.filter {
                $0.value.version > fromVersion || ($0.value.version == fromVersion && $0.key > fromKey)
            }.sorted { ($0.value.version, $0.key) < ($1.value.version, $1.key) }
            var changes = OfflineChanges(rows: [], removedKeys: [], version: stored.state.version, continuation: nil)
            for (key, entry) in found.prefix(limit) {
                if entry.removedAt != nil {
                    changes.removedKeys.append(key)
                } else {
                    changes.rows.append(OfflineRow(key: key, hash: entry.hash, body: entry.body ?? Data()))
                }
            }
            if found.count > limit, let last = found.prefix(limit).last {
                changes.continuation = OfflineContinuation.make(version: last.value.version, key: last.key)
            }
            return changes
        }
    }

    /// Raises the query's oldest version to the newest removal forgotten.
    public func forgetRemovals(_ query: OfflineQueryID, before time: Date) async throws -> Int {
        offline.withLock { queries in
            guard var stored = queries[query] else { return 0 }
            let old = stored.rows.filter { ($0.value.removedAt ?? .distantFuture) < time }
            guard let newest = old.map(\.value.version).max() else { return 0 }
            for key in old.keys { stored.rows[key] = nil }
            stored.state.oldestVersion = max(stored.state.oldestVersion, newest)
            queries[query] = stored
            return old.count
        }
    }

    private func apply(
        _ query: OfflineQueryID, rows: [OfflineRow], removedKeys: [String], fullRead: Bool, _ time: Date,
        _ backendDeltaLink: String?
    ) -> OfflineRefresh {
        // Times as the SQLite store keeps them: whole milliseconds.
        let time = StoredTime.date(milliseconds: StoredTime.milliseconds(time))
        return offline.withLock { queries in
            var stored =
                queries[query]
                ?? MemoryOfflineQuery(
                    state: OfflineQueryState(
                        version: 0, oldestVersion: 0, refreshedAt: time, backendDeltaLink: nil, rows: 0, bytes: 0))
            let existing = stored.rows.mapValues { (hash: $0.hash, removed: $0.removedAt != nil) }
            var diff = OfflineRowDiff.diff(existing: existing, incoming: rows, fullRead: fullRead)
            if !fullRead {
                diff.removedKeys += Set(removedKeys).filter { key in
                    stored.rows[key].map { $0.removedAt == nil } ?? false
                }.sorted()
            }
            let changed = !diff.write.isEmpty || !diff.removedKeys.isEmpty
            let version = stored.state.version + (changed ? 1 : 0)
            for row in diff.write {
                stored.rows[row.key] = MemoryOfflineQuery.Entry(
                    hash: row.hash, body: row.body, version: version, removedAt: nil)
            }
            for key in diff.removedKeys {
                stored.rows[key] = MemoryOfflineQuery.Entry(hash: Data(), body: nil, version: version, removedAt: time)
            }
            let live = stored.rows.values.filter { $0.removedAt == nil }
            stored.state = OfflineQueryState(
                version: version, oldestVersion: stored.state.oldestVersion, refreshedAt: time,
                backendDeltaLink: backendDeltaLink, rows: live.count,
                bytes: live.reduce(0) { $0 + Int64($1.body?.count ?? 0) })
            queries[query] = stored
            return OfflineRefresh(
                state: stored.state, added: diff.added, changed: diff.changed, removed: diff.removedKeys.count)
        }
    }
}
