public import Foundation
import PostgresNIO
public import SatchelRepository

/// ``OfflineTierStore`` and ``OfflineUploadLedger`` in the database every server process shares (tables of
/// ``PostgresSchema`` migration 4): two `satchel serve --offline` processes see one row state and one ledger. A
/// refresh holds an advisory lock of its query for its transaction, so two processes refreshing one query apply
/// their reads one after the other; a ledger claim locks its entry.
extension PostgresMetadataStore: OfflineTierStore {
    /// One SELECT by the query's key.
    public func offlineState(_ query: OfflineQueryID) async throws -> OfflineQueryState? {
        try await withConnection { connection in try await self.offlineState(query, on: connection) }
    }

    /// One transaction under the query's refresh lock; the time is kept to whole milliseconds.
    public func applyFullRead(
        _ query: OfflineQueryID, rows: [OfflineRow], at time: Date, backendDeltaLink: String?
    ) async throws -> OfflineRefresh {
        try await transaction { connection in
            try await self.apply(
                query, rows: rows, removedKeys: [], fullRead: true, time, backendDeltaLink, on: connection)
        }
    }

    /// One transaction under the query's refresh lock; the time is kept to whole milliseconds.
    public func applyDelta(
        _ query: OfflineQueryID, upserts: [OfflineRow], removedKeys: [String], at time: Date, backendDeltaLink: String?
    ) async throws -> OfflineRefresh {
        try await transaction { connection in
            try await self.apply(
                query, rows: upserts, removedKeys: removedKeys, fullRead: false, time, backendDeltaLink,
                on: connection)
        }
    }

    /// One SELECT in key order; none when `limit` is 0 or less.
    public func offlineRows(_ query: OfflineQueryID, after key: String?, limit: Int) async throws -> [OfflineRow] {
        try await rows(
            """
            SELECT key, hash, body FROM offline_rows
            WHERE endpoint = \(query.endpoint) AND query = \(query.query) AND scope = \(query.scope)
                AND removed_at IS NULL AND key > \(key ?? "")
            ORDER BY key LIMIT \(max(limit, 0))
            """
        ).map { row in
            let (key, hash, body) = try decoding { try row.decode((String, Data, Data?).self) }
            return OfflineRow(key: key, hash: hash, body: body ?? Data())
        }
    }

    /// The state and the rows read in one snapshot. Nothing (at version 0) for a query that was never refreshed;
    /// `invalidContinuation` for a continuation this store did not make, or one older than `version`.
    public func offlineChanges(
        _ query: OfflineQueryID, since version: Int64, after continuation: String?, limit: Int
    ) async throws -> OfflineChanges {
        let (fromVersion, fromKey) = try OfflineContinuation.parse(continuation, since: version)
        // One snapshot: a removal forgotten between the state and the rows must not pass as "nothing removed".
        return try await transaction(snapshot: true) { connection in
            guard let state = try await self.offlineState(query, on: connection) else {
                return OfflineChanges(rows: [], removedKeys: [], version: 0, continuation: nil)
            }
            guard version >= state.oldestVersion else {
                throw OfflineTierError.tokenExpired(query: query, version: version, oldest: state.oldestVersion)
            }
            let found = try await self.rows(
                """
                SELECT key, hash, body, removed_at IS NOT NULL, version FROM offline_rows
                WHERE endpoint = \(query.endpoint) AND query = \(query.query) AND scope = \(query.scope)
                    AND version <= \(state.version)
                    AND (version > \(fromVersion) OR (version = \(fromVersion) AND key > \(fromKey)))
                ORDER BY version, key LIMIT \(max(limit, 0) + 1)
                """, on: connection
            ).map { row in try self.decoding { try row.decode((String, Data, Data?, Bool, Int64).self) } }
            var changes = OfflineChanges(rows: [], removedKeys: [], version: state.version, continuation: nil)
            for (key, hash, body, removed, _) in found.prefix(limit) {
                if removed {
                    changes.removedKeys.append(key)
                } else {
                    changes.rows.append(OfflineRow(key: key, hash: hash, body: body ?? Data()))
                }
            }
            if found.count > limit, let last = found.prefix(limit).last {
                changes.continuation = OfflineContinuation.make(version: last.4, key: last.0)
            }
            return changes
        }
    }

    /// One transaction under the query's refresh lock, which also raises the query's oldest version to the newest
    /// removal forgotten.
    public func forgetRemovals(_ query: OfflineQueryID, before time: Date) async throws -> Int {
        try await transaction { connection in
            try await self.lockRefreshes(of: query, on: connection)
            let removed = try await self.rows(
                """
                DELETE FROM offline_rows
                WHERE endpoint = \(query.endpoint) AND query = \(query.query) AND scope = \(query.scope)
                    AND removed_at IS NOT NULL AND removed_at < \(StoredTime.milliseconds(time))
                RETURNING version
                """, on: connection
            ).map { row in try self.decoding { try row.decode(Int64.self) } }
            guard let newest = removed.max() else { return 0 }
            try await self.run(
                """
                UPDATE offline_queries SET oldest_version = GREATEST(oldest_version, \(newest))
                WHERE endpoint = \(query.endpoint) AND query = \(query.query) AND scope = \(query.scope)
                """, on: connection)
            return removed.count
        }
    }

    /// One upsert: the client's sync point replaces the one before.
    public func recordSyncPoint(_ query: OfflineQueryID, client: String, version: Int64, at time: Date) async throws {
        _ = try await rows(
            """
            INSERT INTO offline_sync_points (endpoint, query, scope, client, version, seen_at)
            VALUES (\(query.endpoint), \(query.query), \(query.scope), \(client), \(version),
                \(StoredTime.milliseconds(time)))
            ON CONFLICT (endpoint, query, scope, client) DO UPDATE SET
                version = excluded.version, seen_at = excluded.seen_at
            """)
    }

    /// Each query's sync points ordered by client (the states and the sync points are two statements, not one
    /// snapshot).
    public func offlineOverview() async throws -> [OfflineQueryOverview] {
        let points = try await rows(
            """
            SELECT endpoint, query, scope, client, version, seen_at FROM offline_sync_points
            ORDER BY endpoint, query, scope, client
            """
        ).map { row in
            let (endpoint, query, scope, client, version, seen) = try decoding {
                try row.decode((String, String, String, String, Int64, Int64).self)
            }
            return (
                OfflineQueryID(endpoint: endpoint, query: query, scope: scope),
                OfflineSyncPoint(client: client, version: version, at: StoredTime.date(milliseconds: seen))
            )
        }
        let states = try await rows(
            """
            SELECT endpoint, query, scope, version, oldest_version, refreshed_at, backend_delta_link, row_count,
                byte_count
            FROM offline_queries ORDER BY endpoint, query, scope
            """
        ).map { row in
            let (endpoint, query, scope, version, oldest, refreshed, link, count, bytes) = try decoding {
                try row.decode((String, String, String, Int64, Int64, Int64, String?, Int64, Int64).self)
            }
            return (
                OfflineQueryID(endpoint: endpoint, query: query, scope: scope),
                OfflineQueryState(
                    version: version, oldestVersion: oldest, refreshedAt: StoredTime.date(milliseconds: refreshed),
                    backendDeltaLink: link, rows: Int(count), bytes: bytes)
            )
        }
        return OfflineQueryOverview.joining(states: states, syncPoints: points)
    }

    // MARK: Plumbing

    private func offlineState(
        _ query: OfflineQueryID, on connection: PostgresConnection
    ) async throws -> OfflineQueryState? {
        try await rows(
            """
            SELECT version, oldest_version, refreshed_at, backend_delta_link, row_count, byte_count
            FROM offline_queries
            WHERE endpoint = \(query.endpoint) AND query = \(query.query) AND scope = \(query.scope)
            """, on: connection
        ).first.map { row in
            let (version, oldest, refreshed, link, count, bytes) = try decoding {
                try row.decode((Int64, Int64, Int64, String?, Int64, Int64).self)
            }
            return OfflineQueryState(
                version: version, oldestVersion: oldest, refreshedAt: StoredTime.date(milliseconds: refreshed),
                backendDeltaLink: link, rows: Int(count), bytes: bytes)
        }
    }

    /// Holds the query's refresh lock until the transaction ends: refreshes of one query, from any process, apply
    /// one after the other.
    private func lockRefreshes(of query: OfflineQueryID, on connection: PostgresConnection) async throws {
        let name = [query.endpoint, query.query, query.scope].joined(separator: "\u{1}")
        try await run(
            "SELECT pg_advisory_xact_lock(\(PostgresSchema.offlineRefreshLockClass), hashtext(\(name)))",
            on: connection)
    }

    /// One refresh, in the caller's transaction.
    private func apply(
        _ query: OfflineQueryID, rows incoming: [OfflineRow], removedKeys: [String], fullRead: Bool, _ time: Date,
        _ backendDeltaLink: String?, on connection: PostgresConnection
    ) async throws -> OfflineRefresh {
        try await lockRefreshes(of: query, on: connection)
        let previous = try await offlineState(query, on: connection)
        let keys = fullRead ? nil : Array(Set(incoming.map(\.key)))
        var existing: [String: (hash: Data, removed: Bool)] = [:]
        if keys?.isEmpty != true {
            let found = try await rows(
                """
                SELECT key, hash, removed_at IS NOT NULL FROM offline_rows
                WHERE endpoint = \(query.endpoint) AND query = \(query.query) AND scope = \(query.scope)
                    AND (\(keys == nil) OR key = ANY(\(keys ?? [])))
                """, on: connection)
            for row in found {
                let (key, hash, removed) = try decoding { try row.decode((String, Data, Bool).self) }
                existing[key] = (hash, removed)
            }
        }
        var diff = OfflineRowDiff.diff(existing: existing, incoming: incoming, fullRead: fullRead)
        if !fullRead, !removedKeys.isEmpty {
            let live = try await rows(
                """
                SELECT key FROM offline_rows
                WHERE endpoint = \(query.endpoint) AND query = \(query.query) AND scope = \(query.scope)
                    AND key = ANY(\(Array(Set(removedKeys)))) AND removed_at IS NULL
                """, on: connection
            ).map { row in try decoding { try row.decode(String.self) } }
            diff.removedKeys += live
        }
        let changed = !diff.write.isEmpty || !diff.removedKeys.isEmpty
        let version = (previous?.version ?? 0) + (changed ? 1 : 0)
        let milliseconds = StoredTime.milliseconds(time)
        // Rows in statements of up to 1,000 (3 parameters each, 4 shared).
        var start = diff.write.startIndex
        while start < diff.write.endIndex {
            let chunk = diff.write[start..<min(start + 1000, diff.write.endIndex)]
            var binds = PostgresBindings()
            binds.append(query.endpoint)
            binds.append(query.query)
            binds.append(query.scope)
            binds.append(version)
            var values: [String] = []
            for (offset, row) in chunk.enumerated() {
                let first = 5 + offset * 3
                values.append("($1, $2, $3, $\(first), $\(first + 1), $\(first + 2), $4, NULL)")
                binds.append(row.key)
                try binds.append(row.hash)
                try binds.append(row.body)
            }
            try await run(
                PostgresQuery(
                    unsafeSQL: """
                        INSERT INTO offline_rows (endpoint, query, scope, key, hash, body, version, removed_at)
                        VALUES \(values.joined(separator: ", "))
                        ON CONFLICT (endpoint, query, scope, key) DO UPDATE SET
                            hash = excluded.hash, body = excluded.body, version = excluded.version, removed_at = NULL
                        """, binds: binds), on: connection)
            start = chunk.endIndex
        }
        if !diff.removedKeys.isEmpty {
            try await run(
                """
                UPDATE offline_rows SET hash = '\\x'::bytea, body = NULL, version = \(version),
                    removed_at = \(milliseconds)
                WHERE endpoint = \(query.endpoint) AND query = \(query.query) AND scope = \(query.scope)
                    AND key = ANY(\(diff.removedKeys))
                """, on: connection)
        }
        let totals = try await rows(
            """
            SELECT count(*), coalesce(sum(length(body)), 0)::bigint FROM offline_rows
            WHERE endpoint = \(query.endpoint) AND query = \(query.query) AND scope = \(query.scope)
                AND removed_at IS NULL
            """, on: connection)
        guard let total = totals.first else { throw MetadataStoreError.backend("no totals of \(query)") }
        let (count, bytes) = try decoding { try total.decode((Int64, Int64).self) }
        let state = OfflineQueryState(
            version: version, oldestVersion: previous?.oldestVersion ?? 0,
            refreshedAt: StoredTime.date(milliseconds: milliseconds), backendDeltaLink: backendDeltaLink,
            rows: Int(count), bytes: bytes)
        try await run(
            """
            INSERT INTO offline_queries
                (endpoint, query, scope, version, oldest_version, refreshed_at, backend_delta_link, row_count,
                 byte_count)
            VALUES (\(query.endpoint), \(query.query), \(query.scope), \(version), \(state.oldestVersion),
                \(milliseconds), \(backendDeltaLink), \(count), \(bytes))
            ON CONFLICT (endpoint, query, scope) DO UPDATE SET
                version = excluded.version, refreshed_at = excluded.refreshed_at,
                backend_delta_link = excluded.backend_delta_link, row_count = excluded.row_count,
                byte_count = excluded.byte_count
            """, on: connection)
        return OfflineRefresh(
            state: state, added: diff.added, changed: diff.changed, removed: diff.removedKeys.count)
    }

    /// What `body` decodes from a row; a cell of another type is the store's error.
    func decoding<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch {
            throw Self.storeError(error)
        }
    }
}

extension PostgresMetadataStore: OfflineUploadLedger {
    /// One transaction: the insert of a new entry, or the entry locked (`FOR UPDATE`) while this claim is counted, so
    /// two processes' claims of one request never both get `new`.
    public func claimUpload(_ request: OfflineLedgerRequest, at time: Date) async throws -> OfflineLedgerClaim {
        let key = request.key
        let milliseconds = StoredTime.milliseconds(time)
        return try await transaction { connection in
            let inserted = try await self.rows(
                """
                INSERT INTO offline_ledger
                    (endpoint, user_name, request_id, method, target, body_hash, state, attempts, updated_at)
                VALUES (\(key.endpoint), \(key.user), \(key.requestID), \(request.method), \(request.target),
                    \(request.bodyHash), 'sent', 1, \(milliseconds))
                ON CONFLICT (endpoint, user_name, request_id) DO NOTHING RETURNING request_id
                """, on: connection)
            if !inserted.isEmpty { return .new }
            guard let found = try await self.ledgerEntry(key, lock: true, on: connection) else {
                throw MetadataStoreError.backend(
                    "the upload ledger's entry \(key.requestID) vanished while it was claimed")
            }
            guard found.state != .done, found.matches(request) else { return .known(found) }
            // As the other stores answer: the entry as it was, with this attempt counted.
            var before = found
            before.attempts += 1
            try await self.run(
                """
                UPDATE offline_ledger SET state = 'sent', attempts = \(before.attempts), updated_at = \(milliseconds)
                WHERE endpoint = \(key.endpoint) AND user_name = \(key.user) AND request_id = \(key.requestID)
                """, on: connection)
            return .known(before)
        }
    }

    /// One UPDATE; nothing changes for a key that was never claimed.
    public func finishUpload(
        _ key: OfflineLedgerKey, state: OfflineLedgerEntry.State, answer: OfflineLedgerAnswer?, at time: Date
    ) async throws {
        _ = try await rows(
            """
            UPDATE offline_ledger SET state = \(state.rawValue), status = \(answer?.status),
                headers = \(answer?.headerText), body = \(answer?.body), updated_at = \(StoredTime.milliseconds(time))
            WHERE endpoint = \(key.endpoint) AND user_name = \(key.user) AND request_id = \(key.requestID)
            """)
    }

    /// One SELECT by key.
    public func uploadEntry(_ key: OfflineLedgerKey) async throws -> OfflineLedgerEntry? {
        try await withConnection { connection in try await self.ledgerEntry(key, lock: false, on: connection) }
    }

    /// One DELETE; entries still `sent` are kept, however old.
    public func forgetUploads(endpoint: String, finishedBefore time: Date) async throws -> Int {
        try await rows(
            """
            DELETE FROM offline_ledger
            WHERE endpoint = \(endpoint) AND state <> 'sent' AND updated_at < \(StoredTime.milliseconds(time))
            RETURNING request_id
            """
        ).count
    }

    private func ledgerEntry(
        _ key: OfflineLedgerKey, lock: Bool, on connection: PostgresConnection
    ) async throws -> OfflineLedgerEntry? {
        let rows = try await self.rows(
            """
            SELECT method, target, body_hash, state, attempts, status, headers, body, updated_at FROM offline_ledger
            WHERE endpoint = \(key.endpoint) AND user_name = \(key.user) AND request_id = \(key.requestID)
            \(unescaped: lock ? "FOR UPDATE" : "")
            """, on: connection)
        guard let row = rows.first else { return nil }
        let (method, target, hash, state, attempts, status, headers, body, updated) = try decoding {
            try row.decode((String, String, Data, String, Int32, Int32?, String?, Data?, Int64).self)
        }
        return OfflineLedgerEntry(
            request: OfflineLedgerRequest(key: key, method: method, target: target, bodyHash: hash),
            state: OfflineLedgerEntry.State(rawValue: state) ?? .sent, attempts: Int(attempts),
            answer: status.map {
                OfflineLedgerAnswer(
                    status: Int($0), headers: OfflineLedgerAnswer.headers(fromText: headers ?? ""),
                    body: body ?? Data())
            },
            updatedAt: StoredTime.date(milliseconds: updated))
    }
}
