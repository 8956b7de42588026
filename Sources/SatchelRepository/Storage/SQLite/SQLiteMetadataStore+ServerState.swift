public import Foundation
import GRDB
import Synchronization

/// ``ServerStateStore`` in the same SQLite file as the objects (tables in ``SQLiteSchema/serverStateTables``).
extension SQLiteMetadataStore: ServerStateStore {
    // MARK: Locks

    /// One write transaction. The time is kept to whole milliseconds.
    public func lock(repositoryId: String, key: String, owner: String, at time: Date) async throws -> LockOutcome {
        try await write { db in
            // One write transaction: nothing changes between the look and the insert.
            if let existing = try Self.lock(repositoryId, key, db) { return .alreadyLocked(existing) }
            let created = StoredTime.milliseconds(time)
            try db.cachedStatement(
                sql: "INSERT INTO document_locks (repository, object, owner, created_at) VALUES (?, ?, ?, ?)"
            ).execute(arguments: [repositoryId, key, owner, created])
            return .locked(DocumentLock(owner: owner, created: StoredTime.date(milliseconds: created)))
        }
    }

    /// One write transaction.
    public func unlock(repositoryId: String, key: String, owner: String, override: Bool) async throws -> UnlockOutcome {
        try await write { db in
            guard let existing = try Self.lock(repositoryId, key, db) else { return .notLocked }
            guard existing.owner == owner || override else { return .lockedByOther(existing) }
            try db.cachedStatement(sql: "DELETE FROM document_locks WHERE repository = ? AND object = ?")
                .execute(arguments: [repositoryId, key])
            return .unlocked
        }
    }

    /// The keys that are locked, with their locks: 500 keys to a statement.
    public func locks(repositoryId: String, keys: [String]) async throws -> [String: DocumentLock] {
        try readByKeys(
            keys, sql: "SELECT object, owner, created_at FROM document_locks WHERE repository = ? AND object IN",
            repositoryId: repositoryId
        ) { row in
            DocumentLock(owner: row[1], created: StoredTime.date(milliseconds: row[2]))
        }
    }

    /// The first `limit` locks held by others, in key order.
    public func locks(repositoryId: String, notOwnedBy owner: String, limit: Int) async throws -> [String: DocumentLock]
    {
        try quickRead { db in
            let rows = try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT object, owner, created_at FROM document_locks
                        WHERE repository = ? AND owner <> ? ORDER BY object LIMIT ?
                        """), arguments: [repositoryId, owner, max(limit, 0)])
            var result: [String: DocumentLock] = [:]
            for row in rows {
                result[row[0]] = DocumentLock(owner: row[1], created: StoredTime.date(milliseconds: row[2]))
            }
            return result
        }
    }

    private static func lock(_ repositoryId: String, _ key: String, _ db: Database) throws -> DocumentLock? {
        let row = try Row.fetchOne(
            db.cachedStatement(sql: "SELECT owner, created_at FROM document_locks WHERE repository = ? AND object = ?"),
            arguments: [repositoryId, key])
        return row.map { DocumentLock(owner: $0[0], created: StoredTime.date(milliseconds: $0[1])) }
    }

    // MARK: Trash

    /// One INSERT that keeps an existing mark; counts a change of the trash generation when the mark is new.
    public func trash(_ mark: TrashMark) async throws -> Bool {
        let added = try await write { db in
            try db.cachedStatement(
                sql: """
                    INSERT INTO document_trash (repository, object, parent, owner, created_at) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (repository, object) DO NOTHING
                    """
            ).execute(arguments: [
                mark.repositoryId, mark.key, mark.parentId, mark.owner, StoredTime.milliseconds(mark.created),
            ])
            return db.changesCount > 0
        }
        if added { trashChanges.add(1, ordering: .relaxed) }
        return added
    }

    /// One DELETE; counts a change of the trash generation when there was a mark.
    public func untrash(repositoryId: String, key: String) async throws -> Bool {
        let removed = try await write { db in
            try db.cachedStatement(sql: "DELETE FROM document_trash WHERE repository = ? AND object = ?")
                .execute(arguments: [repositoryId, key])
            return db.changesCount > 0
        }
        if removed { trashChanges.add(1, ordering: .relaxed) }
        return removed
    }

    /// The keys that are in the trash, with their marks: 500 keys to a statement.
    public func trashMarks(repositoryId: String, keys: [String]) async throws -> [String: TrashMark] {
        try readByKeys(
            keys,
            sql: "SELECT object, parent, owner, created_at FROM document_trash WHERE repository = ? AND object IN",
            repositoryId: repositoryId
        ) { row in
            TrashMark(
                repositoryId: repositoryId, key: row[0], parentId: row[1], owner: row[2],
                created: StoredTime.date(milliseconds: row[3]))
        }
    }

    /// In key order; none when `limit` is 0 or less.
    public func trashKeys(repositoryId: String, limit: Int) async throws -> [String] {
        try quickRead(isolated: false) { db in
            try String.fetchAll(
                db.cachedStatement(
                    sql: "SELECT object FROM document_trash WHERE repository = ? ORDER BY object LIMIT ?"),
                arguments: [repositoryId, max(limit, 0)])
        }
    }

    /// One EXISTS query.
    public func holdsTrash(repositoryId: String, folderId: String) async throws -> Bool {
        try quickRead(isolated: false) { db in
            try Bool.fetchOne(
                db.cachedStatement(
                    sql: "SELECT EXISTS (SELECT 1 FROM document_trash WHERE repository = ? AND parent = ?)"),
                arguments: [repositoryId, folderId]) ?? false
        }
    }

    /// One UPDATE; nothing changes when `key` is not in the trash.
    public func moveTrashMark(repositoryId: String, key: String, to folderId: String) async throws {
        try await write { db in
            try db.cachedStatement(sql: "UPDATE document_trash SET parent = ? WHERE repository = ? AND object = ?")
                .execute(arguments: [folderId, repositoryId, key])
        }
    }

    /// One write transaction; counts a change of the trash generation.
    public func forgetMarks(repositoryId: String, keys: [String]) async throws {
        guard !keys.isEmpty else { return }
        try await write { db in
            let locks = try db.cachedStatement(sql: "DELETE FROM document_locks WHERE repository = ? AND object = ?")
            let trash = try db.cachedStatement(sql: "DELETE FROM document_trash WHERE repository = ? AND object = ?")
            for key in Set(keys) {
                try locks.execute(arguments: [repositoryId, key])
                try trash.execute(arguments: [repositoryId, key])
            }
        }
        trashChanges.add(1, ordering: .relaxed)
    }

    /// Counts this store object's changes of trash marks, and its batches that deleted objects.
    public var trashGeneration: UInt64 { trashChanges.load(ordering: .relaxed) }

    // MARK: Access tokens

    /// One write transaction: a grant over the user's quota rolls back the replacement too.
    public func issue(_ grant: AccessGrant, maximumPerUser: Int) async throws -> Bool {
        do {
            return try await issueOrRefuse(grant, maximumPerUser: maximumPerUser)
        } catch is GrantRefused {
            return false
        }
    }

    private func issueOrRefuse(_ grant: AccessGrant, maximumPerUser: Int) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(
                sql: "DELETE FROM access_grants WHERE user_name = ? AND application = ? AND device = ?"
            ).execute(arguments: [grant.user, grant.application, grant.device])
            let held =
                try Int.fetchOne(
                    db.cachedStatement(sql: "SELECT COUNT(*) FROM access_grants WHERE user_name = ?"),
                    arguments: [grant.user]) ?? 0
            // Refusing throws, so the delete above is rolled back with it.
            guard held < maximumPerUser else { throw GrantRefused() }
            try db.cachedStatement(
                sql: """
                    INSERT INTO access_grants (digest, user_name, application, device, description, permission,
                        created_at)
                    VALUES (?, ?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                grant.digest, grant.user, grant.application, grant.device, grant.deviceDescription, grant.permission,
                StoredTime.milliseconds(grant.created),
            ])
            return true
        }
    }

    /// One DELETE.
    public func revokeGrant(user: String, application: String, device: String) async throws -> Bool {
        try await write { db in
            try db.cachedStatement(
                sql: "DELETE FROM access_grants WHERE user_name = ? AND application = ? AND device = ?"
            ).execute(arguments: [user, application, device])
            return db.changesCount > 0
        }
    }

    /// One SELECT by primary key.
    public func grant(digest: String) async throws -> AccessGrant? {
        try quickRead(isolated: false) { db in
            try Row.fetchOne(
                db.cachedStatement(sql: "SELECT \(Self.grantColumns) FROM access_grants WHERE digest = ?"),
                arguments: [digest]
            ).map(Self.grant(from:))
        }
    }

    /// Ordered by creation time, then digest.
    public func grants(user: String) async throws -> [AccessGrant] {
        try quickRead(isolated: false) { db in
            try Row.fetchAll(
                db.cachedStatement(
                    sql: """
                        SELECT \(Self.grantColumns) FROM access_grants WHERE user_name = ?
                        ORDER BY created_at, digest
                        """),
                arguments: [user]
            ).map(Self.grant(from:))
        }
    }

    private static let grantColumns = "digest, user_name, application, device, description, permission, created_at"

    private static func grant(from row: Row) -> AccessGrant {
        AccessGrant(
            digest: row[0], user: row[1], application: row[2], device: row[3], deviceDescription: row[4],
            permission: row[5], created: StoredTime.date(milliseconds: row[6]))
    }

    // MARK: Plumbing

    /// Thrown inside a write transaction to roll it back: a grant over the user's quota.
    private struct GrantRefused: StoreRefusal {}

    private func write<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await stateWrite(body)
    }

    /// Rows by key, 500 keys to a statement, each made into a value by `make` (the row's column 0 is the key).
    private func readByKeys<Value>(
        _ keys: [String], sql: String, repositoryId: String, _ make: (Row) -> Value
    ) throws -> [String: Value] {
        let unique = Array(Set(keys))
        guard !unique.isEmpty else { return [:] }
        return try quickRead { db in
            var result: [String: Value] = [:]
            for start in stride(from: 0, to: unique.count, by: 500) {
                let chunk = Array(unique[start..<min(start + 500, unique.count)])
                let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let rows = try Row.fetchAll(
                    db.cachedStatement(sql: sql + " (\(placeholders))"),
                    arguments: StatementArguments([repositoryId] + chunk))
                for row in rows { result[row[0]] = make(row) }
            }
            return result
        }
    }
}
