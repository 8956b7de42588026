public import Foundation
import GRDB

/// ``OfflineTierStore`` in the same SQLite file as the objects (tables in ``SQLiteSchema/offlineTierTables``).
extension SQLiteMetadataStore: OfflineTierStore {
    /// One SELECT by the query's key.
    public func offlineState(_ query: OfflineQueryID) async throws -> OfflineQueryState? {
        try quickRead { db in try Self.offlineState(query, db) }
    }

    /// One write transaction; the time is kept to whole milliseconds.
    public func applyFullRead(
        _ query: OfflineQueryID, rows: [OfflineRow], at time: Date, backendDeltaLink: String?
    ) async throws -> OfflineRefresh {
        try await stateWrite { db in
            try Self.apply(query, rows: rows, removedKeys: [], fullRead: true, time, backendDeltaLink, db)
        }
    }

    /// One write transaction; the time is kept to whole milliseconds.
    public func applyDelta(
        _ query: OfflineQueryID, upserts: [OfflineRow], removedKeys: [String], at time: Date, backendDeltaLink: String?
    ) async throws -> OfflineRefresh {
        try await stateWrite { db in
            try Self.apply(query, rows: upserts, removedKeys: removedKeys, fullRead: false, time, backendDeltaLink, db)
        }
    }

    /// One SELECT in key order, read on a reader queue.
    public func offlineRows(_ query: OfflineQueryID, after key: String?, limit: Int) async throws -> [OfflineRow] {
        try await longRead { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT key, hash, body FROM offline_rows
                        WHERE endpoint = ? AND query = ? AND scope = ? AND removed_at IS NULL AND key > ?
                        ORDER BY key LIMIT ?
                        """),
                arguments: [query.endpoint, query.query, query.scope, key ?? "", limit]
            ).map { OfflineRow(key: $0[0], hash: $0[1], body: $0[2]) }
        }
    }

    /// One read of the state and the rows. Nothing (at version 0) for a query that was never refreshed;
    /// `invalidContinuation` for a continuation this store did not make, or one older than `version`.
    public func offlineChanges(
        _ query: OfflineQueryID, since version: Int64, after continuation: String?, limit: Int
    ) async throws -> OfflineChanges {
        let (fromVersion, fromKey) = try OfflineContinuation.parse(continuation, since: version)
        return try await longRead { db in
            guard let state = try Self.offlineState(query, db) else {
                return OfflineChanges(rows: [], removedKeys: [], version: 0, continuation: nil)
            }
            guard version >= state.oldestVersion else {
                throw OfflineTierError.tokenExpired(query: query, version: version, oldest: state.oldestVersion)
            }
            // By version, then key: the index on (…, version) finds what changed without visiting the rest.
            let found = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT key, hash, body, removed_at IS NOT NULL, version FROM offline_rows
                        WHERE endpoint = ? AND query = ? AND scope = ? AND version <= ?
                          AND (version > ? OR (version = ? AND key > ?))  -- after the continuation
                        ORDER BY version, key LIMIT ?
                        """),
                arguments: [
                    query.endpoint, query.query, query.scope, state.version, fromVersion, fromVersion, fromKey,
                    limit + 1,
                ])
            var changes = OfflineChanges(rows: [], removedKeys: [], version: state.version, continuation: nil)
            for row in found.prefix(limit) {
                if row[3] as Bool {
                    changes.removedKeys.append(row[0])
                } else {
                    changes.rows.append(OfflineRow(key: row[0], hash: row[1], body: row[2]))
                }
            }
            if found.count > limit, let last = found.prefix(limit).last {
                changes.continuation = OfflineContinuation.make(version: last[4], key: last[0])
            }
            return changes
        }
    }

    /// One write transaction that also raises the query's oldest version to the newest removal forgotten.
    public func forgetRemovals(_ query: OfflineQueryID, before time: Date) async throws -> Int {
        try await stateWrite { db in
            let arguments: StatementArguments = [
                query.endpoint, query.query, query.scope, StoredTime.milliseconds(time),
            ]
            let condition = """
                endpoint = ? AND query = ? AND scope = ? AND removed_at IS NOT NULL AND removed_at < ?
                """
            guard
                let newest = try Int64.fetchOne(
                    db, sql: "SELECT max(version) FROM offline_rows WHERE \(condition)", arguments: arguments)
            else { return 0 }
            try db.execute(sql: "DELETE FROM offline_rows WHERE \(condition)", arguments: arguments)
            let forgotten = db.changesCount
            try db.execute(
                sql: """
                    UPDATE offline_queries SET oldest_version = max(oldest_version, ?)
                    WHERE endpoint = ? AND query = ? AND scope = ?
                    """, arguments: [newest, query.endpoint, query.query, query.scope])
            return forgotten
        }
    }

    /// One upsert: the client's sync point replaces the one before.
    public func recordSyncPoint(_ query: OfflineQueryID, client: String, version: Int64, at time: Date) async throws {
        try await stateWrite { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO offline_sync_points (endpoint, query, scope, client, version, seen_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (endpoint, query, scope, client) DO UPDATE SET
                        version = excluded.version, seen_at = excluded.seen_at
                    """
            ).execute(
                arguments: [query.endpoint, query.query, query.scope, client, version, StoredTime.milliseconds(time)])
        }
    }

    /// Each query's sync points ordered by client.
    public func offlineOverview() async throws -> [OfflineQueryOverview] {
        try await longRead { db in
            let points = try Row.fetchAll(
                db,
                sql: """
                    SELECT endpoint, query, scope, client, version, seen_at FROM offline_sync_points
                    ORDER BY endpoint, query, scope, client
                    """
            ).map { row in
                (
                    OfflineQueryID(endpoint: row[0], query: row[1], scope: row[2]),
                    OfflineSyncPoint(client: row[3], version: row[4], at: StoredTime.date(milliseconds: row[5]))
                )
            }
            let states = try Row.fetchAll(
                db,
                sql: """
                    SELECT endpoint, query, scope, version, oldest_version, refreshed_at, backend_delta_link,
                        row_count, byte_count
                    FROM offline_queries ORDER BY endpoint, query, scope
                    """
            ).map { row in
                (
                    OfflineQueryID(endpoint: row[0], query: row[1], scope: row[2]),
                    OfflineQueryState(
                        version: row[3], oldestVersion: row[4], refreshedAt: StoredTime.date(milliseconds: row[5]),
                        backendDeltaLink: row[6], rows: row[7], bytes: row[8])
                )
            }
            return OfflineQueryOverview.joining(states: states, syncPoints: points)
        }
    }

    // MARK: Plumbing

    private static func offlineState(_ query: OfflineQueryID, _ db: Database) throws -> OfflineQueryState? {
        try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT version, oldest_version, refreshed_at, backend_delta_link, row_count, byte_count
                    FROM offline_queries WHERE endpoint = ? AND query = ? AND scope = ?
                    """), arguments: [query.endpoint, query.query, query.scope]
        ).map {
            OfflineQueryState(
                version: $0[0], oldestVersion: $0[1], refreshedAt: StoredTime.date(milliseconds: $0[2]),
                backendDeltaLink: $0[3], rows: $0[4], bytes: $0[5])
        }
    }

    /// One refresh, in the caller's transaction.
    private static func apply(
        _ query: OfflineQueryID, rows: [OfflineRow], removedKeys: [String], fullRead: Bool, _ time: Date,
        _ backendDeltaLink: String?, _ db: Database
    ) throws -> OfflineRefresh {
        let id: StatementArguments = [query.endpoint, query.query, query.scope]
        let previous = try offlineState(query, db)
        var existing: [String: (hash: Data, removed: Bool)] = [:]
        if fullRead {
            let cursor = try Row.fetchCursor(
                db.cachedStatement(
                    sql: """
                        SELECT key, hash, removed_at IS NOT NULL FROM offline_rows
                        WHERE endpoint = ? AND query = ? AND scope = ?
                        """), arguments: id)
            while let row = try cursor.next() { existing[row[0]] = (row[1], row[2]) }
        } else {
            for row in rows {
                if let found = try Row.fetchOne(
                    db.cachedStatement(
                        sql: """
                            SELECT hash, removed_at IS NOT NULL FROM offline_rows
                            WHERE endpoint = ? AND query = ? AND scope = ? AND key = ?
                            """), arguments: id + [row.key])
                {
                    existing[row.key] = (found[0], found[1])
                }
            }
        }
        var diff = OfflineRowDiff.diff(existing: existing, incoming: rows, fullRead: fullRead)
        if !fullRead {
            for key in Set(removedKeys) {
                let live =
                    try Bool.fetchOne(
                        db.cachedStatement(
                            sql: """
                                SELECT 1 FROM offline_rows
                                WHERE endpoint = ? AND query = ? AND scope = ? AND key = ? AND removed_at IS NULL
                                """), arguments: id + [key]) ?? false
                if live { diff.removedKeys.append(key) }
            }
        }
        let changed = !diff.write.isEmpty || !diff.removedKeys.isEmpty
        let version = (previous?.version ?? 0) + (changed ? 1 : 0)
        let milliseconds = StoredTime.milliseconds(time)
        let upsert = try db.cachedStatement(
            sql: """
                INSERT INTO offline_rows (endpoint, query, scope, key, hash, body, version, removed_at)
                VALUES (?, ?, ?, ?, ?, ?, ?, NULL)
                ON CONFLICT (endpoint, query, scope, key) DO UPDATE SET
                    hash = excluded.hash, body = excluded.body, version = excluded.version, removed_at = NULL
                """)
        for row in diff.write { try upsert.execute(arguments: id + [row.key, row.hash, row.body, version]) }
        let remove = try db.cachedStatement(
            sql: """
                UPDATE offline_rows SET hash = X'', body = NULL, version = ?, removed_at = ?
                WHERE endpoint = ? AND query = ? AND scope = ? AND key = ?
                """)
        for key in diff.removedKeys { try remove.execute(arguments: [version, milliseconds] + id + [key]) }
        let totals = try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT count(*), coalesce(sum(length(body)), 0) FROM offline_rows
                    WHERE endpoint = ? AND query = ? AND scope = ? AND removed_at IS NULL
                    """), arguments: id)!
        let state = OfflineQueryState(
            version: version, oldestVersion: previous?.oldestVersion ?? 0,
            refreshedAt: StoredTime.date(milliseconds: milliseconds),
            backendDeltaLink: backendDeltaLink, rows: totals[0], bytes: totals[1])
        try db.cachedStatement(
            sql: """
                INSERT INTO offline_queries
                    (endpoint, query, scope, version, oldest_version, refreshed_at, backend_delta_link, row_count,
                     byte_count)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)
                ON CONFLICT (endpoint, query, scope) DO UPDATE SET
                    version = excluded.version, refreshed_at = excluded.refreshed_at,
                    backend_delta_link = excluded.backend_delta_link, row_count = excluded.row_count,
                    byte_count = excluded.byte_count
                """
        ).execute(
            arguments: id + [
                state.version, state.oldestVersion, milliseconds, backendDeltaLink, state.rows, state.bytes,
            ])
        return OfflineRefresh(
            state: state, added: diff.added, changed: diff.changed, removed: diff.removedKeys.count)
    }
}

/// The continuation of a page of changes: the version and key of the last entry given.
package enum OfflineContinuation {
    package static func make(version: Int64, key: String) -> String { "\(version) \(key)" }

    /// (version, key) to continue after. Without a continuation: every row of the version after `since` (no key
    /// is empty).
    package static func parse(_ text: String?, since: Int64) throws(OfflineTierError) -> (Int64, String) {
        guard let text else { return (since + 1, "") }
        guard let space = text.firstIndex(of: " "), let version = Int64(text[..<space]), version >= since else {
            throw OfflineTierError.invalidContinuation(String(text.prefix(80)))
        }
        return (version, String(text[text.index(after: space)...]))
    }
}
