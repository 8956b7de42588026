public import Foundation
import GRDB

/// ``SessionStore`` in the same SQLite file as the objects (tables in ``SQLiteSchema/sessionTables``).
extension SQLiteMetadataStore: SessionStore {
    /// An INSERT that keeps a stored secret, then a read, in one write transaction.
    public func sharedSecret(name: String, proposed: [UInt8]) async throws -> [UInt8] {
        try await stateWrite { db in
            try db.execute(
                sql: "INSERT INTO server_secrets (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING",
                arguments: [name, Data(proposed)])
            let stored = try Data.fetchOne(
                db, sql: "SELECT value FROM server_secrets WHERE name = ?", arguments: [name])
            return stored.map { Array($0) } ?? proposed
        }
    }

    /// One upsert.
    public func replaceSecret(name: String, value: [UInt8]) async throws {
        try await stateWrite { db in
            try db.execute(
                sql: """
                    INSERT INTO server_secrets (name, value) VALUES (?, ?)
                    ON CONFLICT (name) DO UPDATE SET value = excluded.value
                    """, arguments: [name, Data(value)])
        }
    }

    /// One INSERT.
    public func startSession(_ session: StoredSession) async throws {
        try await stateWrite { db in
            try db.cachedStatement(sql: "INSERT INTO sessions (digest, user_name, expires_at) VALUES (?, ?, ?)")
                .execute(arguments: [session.digest, session.user, StoredTime.milliseconds(session.expires)])
        }
    }

    /// One primary-key read.
    public func session(digest: String) async throws -> StoredSession? {
        try quickRead(isolated: false) { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT user_name, expires_at FROM sessions WHERE digest = ?"),
                arguments: [digest]
            ).map { StoredSession(digest: digest, user: $0[0], expires: StoredTime.date(milliseconds: $0[1])) }
        }
    }

    /// One UPDATE.
    public func extendSession(digest: String, until expires: Date) async throws {
        try await stateWrite { db in
            try db.cachedStatement(sql: "UPDATE sessions SET expires_at = ? WHERE digest = ?")
                .execute(arguments: [StoredTime.milliseconds(expires), digest])
        }
    }

    /// One DELETE.
    public func endSession(digest: String) async throws -> Bool {
        try await stateWrite { db in
            try db.cachedStatement(sql: "DELETE FROM sessions WHERE digest = ?").execute(arguments: [digest])
            return db.changesCount > 0
        }
    }

    /// One DELETE over the expiry index.
    public func expireSessions(before time: Date) async throws -> Int {
        try await stateWrite { db in
            try db.execute(
                sql: "DELETE FROM sessions WHERE expires_at < ?", arguments: [StoredTime.milliseconds(time)])
            return db.changesCount
        }
    }

    /// One write transaction (SQLite writes one at a time): the read, the decision, the upserts.
    public func admitLogin(
        keys: [String], at time: Date, forgetBefore: Date, admit: @escaping @Sendable ([String: LoginFailures]) -> Bool
    ) async throws -> (admitted: Bool, failures: [String: LoginFailures]) {
        try await stateWrite { db in
            var seen: [String: LoginFailures] = [:]
            let read = try db.cachedStatement(sql: "SELECT failures, last_failure FROM login_failures WHERE key = ?")
            for key in keys {
                if let row = try Row.fetchOne(read, arguments: [key]) {
                    seen[key] = LoginFailures(count: row[0], last: StoredTime.date(milliseconds: row[1]))
                }
            }
            guard admit(seen) else { return (false, seen) }
            let count = try db.cachedStatement(
                sql: """
                    INSERT INTO login_failures (key, failures, last_failure) VALUES (?1, 1, ?2)
                    ON CONFLICT (key) DO UPDATE SET
                        failures = CASE WHEN last_failure < ?3 THEN 1 ELSE failures + 1 END, last_failure = ?2
                    """)
            for key in Set(keys) {
                try count.execute(arguments: [
                    key, StoredTime.milliseconds(time), StoredTime.milliseconds(forgetBefore),
                ])
            }
            return (true, seen)
        }
    }

    /// One write transaction.
    public func settleLogin(clearing: [String], takingBack: [String]) async throws {
        try await stateWrite { db in
            for key in clearing { try db.execute(sql: "DELETE FROM login_failures WHERE key = ?", arguments: [key]) }
            for key in takingBack {
                try db.execute(
                    sql: "UPDATE login_failures SET failures = failures - 1 WHERE key = ?", arguments: [key])
                try db.execute(sql: "DELETE FROM login_failures WHERE key = ? AND failures <= 0", arguments: [key])
            }
        }
    }

    /// One DELETE over the index of last failures.
    public func forgetLoginFailures(before time: Date) async throws {
        try await stateWrite { db in
            try db.execute(
                sql: "DELETE FROM login_failures WHERE last_failure < ?", arguments: [StoredTime.milliseconds(time)])
        }
    }
}
