public import Foundation
import GRDB

/// ``OfflineUploadLedger`` in the same SQLite file as the objects (``SQLiteSchema/offlineLedgerTable``).
extension SQLiteMetadataStore: OfflineUploadLedger {
    /// One write transaction: two claims of one request never both get `new`.
    public func claimUpload(_ request: OfflineLedgerRequest, at time: Date) async throws -> OfflineLedgerClaim {
        try await stateWrite { db in
            guard let found = try Self.ledgerEntry(request.key, db) else {
                try db.execute(
                    sql: """
                        INSERT INTO offline_ledger
                            (endpoint, user, request_id, method, target, body_hash, state, attempts, updated_at)
                        VALUES (?, ?, ?, ?, ?, ?, 'sent', 1, ?)
                        """,
                    arguments: Self.keyArguments(request.key) + [
                        request.method, request.target, request.bodyHash, StoredTime.milliseconds(time),
                    ])
                return .new
            }
            guard found.state != .done, found.matches(request) else { return .known(found) }
            var before = found
            before.attempts += 1
            try db.execute(
                sql: """
                    UPDATE offline_ledger SET state = 'sent', attempts = ?, updated_at = ?
                    WHERE endpoint = ? AND user = ? AND request_id = ?
                    """,
                arguments: [before.attempts, StoredTime.milliseconds(time)] + Self.keyArguments(request.key))
            return .known(before)
        }
    }

    /// One UPDATE; nothing changes for a key that was never claimed.
    public func finishUpload(
        _ key: OfflineLedgerKey, state: OfflineLedgerEntry.State, answer: OfflineLedgerAnswer?, at time: Date
    ) async throws {
        try await stateWrite { db in
            try db.execute(
                sql: """
                    UPDATE offline_ledger SET state = ?, status = ?, headers = ?, body = ?, updated_at = ?
                    WHERE endpoint = ? AND user = ? AND request_id = ?
                    """,
                arguments: [
                    state.rawValue, answer?.status, answer?.headerText, answer?.body,
                    StoredTime.milliseconds(time),
                ] + Self.keyArguments(key))
        }
    }

    /// One SELECT by key.
    public func uploadEntry(_ key: OfflineLedgerKey) async throws -> OfflineLedgerEntry? {
        try await longRead { db in try Self.ledgerEntry(key, db) }
    }

    /// One DELETE; entries still `sent` are kept, however old.
    public func forgetUploads(endpoint: String, finishedBefore time: Date) async throws -> Int {
        try await stateWrite { db in
            try db.execute(
                sql: "DELETE FROM offline_ledger WHERE endpoint = ? AND state <> 'sent' AND updated_at < ?",
                arguments: [endpoint, StoredTime.milliseconds(time)])
            return db.changesCount
        }
    }

    private static func keyArguments(_ key: OfflineLedgerKey) -> StatementArguments {
        [key.endpoint, key.user, key.requestID]
    }

    private static func ledgerEntry(_ key: OfflineLedgerKey, _ db: Database) throws -> OfflineLedgerEntry? {
        try Row.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT method, target, body_hash, state, attempts, status, headers, body, updated_at
                    FROM offline_ledger WHERE endpoint = ? AND user = ? AND request_id = ?
                    """), arguments: keyArguments(key)
        ).map { row in
            let status: Int? = row[5]
            return OfflineLedgerEntry(
                request: OfflineLedgerRequest(key: key, method: row[0], target: row[1], bodyHash: row[2]),
                state: OfflineLedgerEntry.State(rawValue: row[3]) ?? .sent, attempts: row[4],
                answer: status.map {
                    OfflineLedgerAnswer(
                        status: $0, headers: OfflineLedgerAnswer.headers(fromText: row[6] ?? ""), body: row[7] ?? Data()
                    )
                },
                updatedAt: StoredTime.date(milliseconds: row[8]))
        }
    }
}
