public import Foundation
import PostgresNIO
public import SatchelRepository

/// ``SessionStore`` in the database every server process shares: a session started through one process is
/// honoured by the others, and failed logins sent to several processes are counted together.
extension PostgresMetadataStore: SessionStore {
    /// An INSERT that keeps a stored secret, then a read: whichever process comes first, all use its secret.
    public func sharedSecret(name: String, proposed: [UInt8]) async throws -> [UInt8] {
        _ = try await rows(
            "INSERT INTO server_secrets (name, value) VALUES (\(name), \(Data(proposed))) ON CONFLICT (name) DO NOTHING"
        )
        let stored = try await rows("SELECT value FROM server_secrets WHERE name = \(name)").first
        return try decoding { try stored.map { Array(try $0.decode(Data.self)) } } ?? proposed
    }

    /// One upsert.
    public func replaceSecret(name: String, value: [UInt8]) async throws {
        _ = try await rows(
            """
            INSERT INTO server_secrets (name, value) VALUES (\(name), \(Data(value)))
            ON CONFLICT (name) DO UPDATE SET value = excluded.value
            """)
    }

    /// One INSERT.
    public func startSession(_ session: StoredSession) async throws {
        _ = try await rows(
            """
            INSERT INTO sessions (digest, user_name, expires_at)
            VALUES (\(session.digest), \(session.user), \(StoredTime.milliseconds(session.expires)))
            """)
    }

    /// One primary-key read.
    public func session(digest: String) async throws -> StoredSession? {
        guard let row = try await rows("SELECT user_name, expires_at FROM sessions WHERE digest = \(digest)").first
        else { return nil }
        let (user, expires) = try decoding { try row.decode((String, Int64).self) }
        return StoredSession(digest: digest, user: user, expires: StoredTime.date(milliseconds: expires))
    }

    /// One UPDATE.
    public func extendSession(digest: String, until expires: Date) async throws {
        _ = try await rows(
            "UPDATE sessions SET expires_at = \(StoredTime.milliseconds(expires)) WHERE digest = \(digest)")
    }

    /// One DELETE.
    public func endSession(digest: String) async throws -> Bool {
        try await !rows("DELETE FROM sessions WHERE digest = \(digest) RETURNING digest").isEmpty
    }

    /// One DELETE over the expiry index.
    public func expireSessions(before time: Date) async throws -> Int {
        try await rows("DELETE FROM sessions WHERE expires_at < \(StoredTime.milliseconds(time)) RETURNING 1").count
    }

    /// One transaction holding each key's advisory lock (in key order), so that attempts on one user name or address
    /// go one at a time across processes: the read, the decision, the upserts.
    public func admitLogin(
        keys: [String], at time: Date, forgetBefore: Date, admit: @escaping @Sendable ([String: LoginFailures]) -> Bool
    ) async throws -> (admitted: Bool, failures: [String: LoginFailures]) {
        let unique = Array(Set(keys)).sorted()
        return try await transaction { connection in
            for key in unique {
                try await self.run(
                    "SELECT pg_advisory_xact_lock(\(PostgresSchema.loginLockClass), hashtext(\(key)))", on: connection)
            }
            var seen: [String: LoginFailures] = [:]
            for row in try await self.rows(
                "SELECT key, failures, last_failure FROM login_failures WHERE key = ANY(\(unique))", on: connection)
            {
                let (key, count, last) = try self.decoding { try row.decode((String, Int, Int64).self) }
                seen[key] = LoginFailures(count: count, last: StoredTime.date(milliseconds: last))
            }
            guard admit(seen) else { return (false, seen) }
            let now = StoredTime.milliseconds(time)
            let forget = StoredTime.milliseconds(forgetBefore)
            try await self.run(
                """
                INSERT INTO login_failures (key, failures, last_failure) SELECT k, 1, \(now) FROM unnest(\(unique)::text[]) AS k
                ON CONFLICT (key) DO UPDATE SET
                    failures = CASE WHEN login_failures.last_failure < \(forget) THEN 1
                        ELSE login_failures.failures + 1 END,
                    last_failure = excluded.last_failure
                """, on: connection)
            return (true, seen)
        }
    }

    /// One transaction.
    public func settleLogin(clearing: [String], takingBack: [String]) async throws {
        try await transaction { connection in
            try await self.run("DELETE FROM login_failures WHERE key = ANY(\(clearing))", on: connection)
            try await self.run(
                "UPDATE login_failures SET failures = failures - 1 WHERE key = ANY(\(takingBack))", on: connection)
            try await self.run(
                "DELETE FROM login_failures WHERE key = ANY(\(takingBack)) AND failures <= 0", on: connection)
        }
    }

    /// One DELETE over the index of last failures.
    public func forgetLoginFailures(before time: Date) async throws {
        _ = try await rows("DELETE FROM login_failures WHERE last_failure < \(StoredTime.milliseconds(time))")
    }
}
