public import Foundation
import PostgresNIO
import Synchronization
public import SatchelRepository

/// ``ServerStateStore`` in the database every server process shares: one process's lock, trash mark or token is
/// the others' as soon as its statement commits.
extension PostgresMetadataStore: ServerStateStore {
    // MARK: Locks

    /// An INSERT that keeps an existing lock, then a look at its holder; when the holder unlocked in between, up to
    /// five tries before `MetadataStoreError.backend(_:)`. The time is kept to whole milliseconds.
    public func lock(repositoryId: String, key: String, owner: String, at time: Date) async throws -> LockOutcome {
        let created = StoredTime.milliseconds(time)
        // The insert and the look at who holds it are two statements: when the holder unlocks between them, try
        // again (a few times; each round either takes the lock or finds its holder).
        for _ in 0..<5 {
            let inserted = try await rows(
                """
                INSERT INTO document_locks (repository, object, owner, created_at)
                VALUES (\(repositoryId), \(key), \(owner), \(created))
                ON CONFLICT (repository, object) DO NOTHING RETURNING owner
                """)
            if !inserted.isEmpty {
                return .locked(DocumentLock(owner: owner, created: StoredTime.date(milliseconds: created)))
            }
            if let existing = try await lock(repositoryId, key) { return .alreadyLocked(existing) }
        }
        throw MetadataStoreError.backend("the lock of \(key) kept changing hands: try again")
    }

    /// One DELETE of the owner's lock (any lock, with `override`), then a look at the holder when nothing was deleted.
    public func unlock(repositoryId: String, key: String, owner: String, override: Bool) async throws -> UnlockOutcome {
        let removed = try await rows(
            """
            DELETE FROM document_locks WHERE repository = \(repositoryId) AND object = \(key)
                AND (owner = \(owner) OR \(override)) RETURNING owner
            """)
        if !removed.isEmpty { return .unlocked }
        guard let existing = try await lock(repositoryId, key) else { return .notLocked }
        return .lockedByOther(existing)
    }

    /// The keys that are locked, with their locks, in one SELECT.
    public func locks(repositoryId: String, keys: [String]) async throws -> [String: DocumentLock] {
        guard !keys.isEmpty else { return [:] }
        let unique = Array(Set(keys))
        return try await locks(
            """
            SELECT object, owner, created_at FROM document_locks
            WHERE repository = \(repositoryId) AND object = ANY(\(unique))
            """)
    }

    /// The first `limit` locks held by others, in key order.
    public func locks(repositoryId: String, notOwnedBy owner: String, limit: Int) async throws -> [String: DocumentLock]
    {
        try await locks(
            """
            SELECT object, owner, created_at FROM document_locks
            WHERE repository = \(repositoryId) AND owner <> \(owner) ORDER BY object LIMIT \(max(limit, 0))
            """)
    }

    private func lock(_ repositoryId: String, _ key: String) async throws -> DocumentLock? {
        try await locks(
            """
            SELECT object, owner, created_at FROM document_locks WHERE repository = \(repositoryId) AND object = \(key)
            """
        )[key]
    }

    private func locks(_ query: PostgresQuery) async throws -> [String: DocumentLock] {
        var result: [String: DocumentLock] = [:]
        for row in try await rows(query) {
            let (key, owner, created) = try decoding { try row.decode((String, String, Int64).self) }
            result[key] = DocumentLock(owner: owner, created: StoredTime.date(milliseconds: created))
        }
        return result
    }

    // MARK: Trash

    /// One INSERT that keeps an existing mark; counts a change of the trash generation when the mark is new.
    public func trash(_ mark: TrashMark) async throws -> Bool {
        // With its announcement, in one statement (sent at its commit).
        let inserted = try await rows(
            """
            WITH changed AS (
                INSERT INTO document_trash (repository, object, parent, owner, created_at)
                VALUES (\(mark.repositoryId), \(mark.key), \(mark.parentId), \(mark.owner),
                    \(StoredTime.milliseconds(mark.created)))
                ON CONFLICT (repository, object) DO NOTHING RETURNING object
            ) SELECT object, pg_notify(\(Self.changeChannel), 't') FROM changed
            """)
        if !inserted.isEmpty { trashChanges.add(1, ordering: .relaxed) }
        return !inserted.isEmpty
    }

    /// One DELETE; counts a change of the trash generation when there was a mark.
    public func untrash(repositoryId: String, key: String) async throws -> Bool {
        let removed = try await rows(
            """
            WITH changed AS (
                DELETE FROM document_trash WHERE repository = \(repositoryId) AND object = \(key) RETURNING object
            ) SELECT object, pg_notify(\(Self.changeChannel), 't') FROM changed
            """)
        if !removed.isEmpty { trashChanges.add(1, ordering: .relaxed) }
        return !removed.isEmpty
    }

    /// The keys that are in the trash, with their marks, in one SELECT.
    public func trashMarks(repositoryId: String, keys: [String]) async throws -> [String: TrashMark] {
        guard !keys.isEmpty else { return [:] }
        let unique = Array(Set(keys))
        var result: [String: TrashMark] = [:]
        for row in try await rows(
            """
            SELECT object, parent, owner, created_at FROM document_trash
            WHERE repository = \(repositoryId) AND object = ANY(\(unique))
            """)
        {
            let (key, parent, owner, created) = try decoding { try row.decode((String, String?, String, Int64).self) }
            result[key] = TrashMark(
                repositoryId: repositoryId, key: key, parentId: parent, owner: owner,
                created: StoredTime.date(milliseconds: created))
        }
        return result
    }

    /// In key order; none when `limit` is 0 or less.
    public func trashKeys(repositoryId: String, limit: Int) async throws -> [String] {
        try await rows(
            """
            SELECT object FROM document_trash WHERE repository = \(repositoryId) ORDER BY object LIMIT \(max(limit, 0))
            """
        ).map { row in try decoding { try row.decode(String.self) } }
    }

    /// One EXISTS query.
    public func holdsTrash(repositoryId: String, folderId: String) async throws -> Bool {
        let rows = try await rows(
            """
            SELECT EXISTS (SELECT 1 FROM document_trash WHERE repository = \(repositoryId) AND parent = \(folderId))
            """)
        return try rows.first.map { row in try decoding { try row.decode(Bool.self) } } ?? false
    }

    /// One UPDATE; nothing changes when `key` is not in the trash.
    public func moveTrashMark(repositoryId: String, key: String, to folderId: String) async throws {
        let moved = try await rows(
            """
            WITH changed AS (
                UPDATE document_trash SET parent = \(folderId) WHERE repository = \(repositoryId) AND object = \(key)
                RETURNING object
            ) SELECT object, pg_notify(\(Self.changeChannel), 't') FROM changed
            """)
        if !moved.isEmpty { trashChanges.add(1, ordering: .relaxed) }
    }

    /// Two DELETEs (locks, then trash marks), not one transaction; counts a change of the trash generation.
    public func forgetMarks(repositoryId: String, keys: [String]) async throws {
        guard !keys.isEmpty else { return }
        let unique = Array(Set(keys))
        _ = try await rows("DELETE FROM document_locks WHERE repository = \(repositoryId) AND object = ANY(\(unique))")
        _ = try await rows(
            """
            WITH changed AS (
                DELETE FROM document_trash WHERE repository = \(repositoryId) AND object = ANY(\(unique)) RETURNING object
            ) SELECT pg_notify(\(Self.changeChannel), 't') FROM changed
            """)
        trashChanges.add(1, ordering: .relaxed)
    }

    /// Counts this store object's changes of trash marks, its batches that deleted objects, and the trash changes
    /// of other processes its ``StoreChangeFeed`` heard of (and each time the feed was lost or found). Meaningful
    /// while the feed listens.
    public var trashGeneration: UInt64 { trashChanges.load(ordering: .relaxed) }

    // MARK: Access tokens

    /// One transaction under an advisory lock of the user: processes issuing the same user's grants take turns, and a
    /// grant over the quota rolls back the replacement too.
    public func issue(_ grant: AccessGrant, maximumPerUser: Int) async throws -> Bool {
        try await withConnection { connection in
            try await self.run("BEGIN", on: connection)
            do {
                // The user's grants are counted and changed by one transaction at a time, across processes.
                try await self.run(
                    "SELECT pg_advisory_xact_lock(\(PostgresSchema.grantLockClass), hashtext(\(grant.user)))",
                    on: connection)
                try await self.run(
                    """
                    DELETE FROM access_grants WHERE user_name = \(grant.user) AND application = \(grant.application)
                        AND device = \(grant.device)
                    """, on: connection)
                let held =
                    try await self.rows(
                        "SELECT COUNT(*) FROM access_grants WHERE user_name = \(grant.user)", on: connection
                    ).first?.decode(Int64.self) ?? 0
                guard held < maximumPerUser else {
                    try await self.run("ROLLBACK", on: connection)
                    return false
                }
                try await self.run(
                    """
                    INSERT INTO access_grants (digest, user_name, application, device, description, permission,
                        created_at)
                    VALUES (\(grant.digest), \(grant.user), \(grant.application), \(grant.device),
                        \(grant.deviceDescription), \(grant.permission), \(StoredTime.milliseconds(grant.created)))
                    """, on: connection)
                try await self.run("COMMIT", on: connection)
                return true
            } catch {
                try? await self.run("ROLLBACK", on: connection)
                throw Self.storeError(error)
            }
        }
    }

    /// One DELETE.
    public func revokeGrant(user: String, application: String, device: String) async throws -> Bool {
        !(try await rows(
            """
            DELETE FROM access_grants WHERE user_name = \(user) AND application = \(application)
                AND device = \(device) RETURNING digest
            """
        ).isEmpty)
    }

    /// One SELECT by primary key.
    public func grant(digest: String) async throws -> AccessGrant? {
        try await grants("SELECT \(unescaped: Self.grantColumns) FROM access_grants WHERE digest = \(digest)").first
    }

    /// Ordered by creation time, then digest.
    public func grants(user: String) async throws -> [AccessGrant] {
        try await grants(
            """
            SELECT \(unescaped: Self.grantColumns) FROM access_grants WHERE user_name = \(user)
            ORDER BY created_at, digest
            """)
    }

    private static let grantColumns = "digest, user_name, application, device, description, permission, created_at"

    private func grants(_ query: PostgresQuery) async throws -> [AccessGrant] {
        try await rows(query).map { row in
            let (digest, user, application, device, description, permission, created) = try decoding {
                try row.decode((String, String, String, String, String?, String, Int64).self)
            }
            return AccessGrant(
                digest: digest, user: user, application: application, device: device, deviceDescription: description,
                permission: permission, created: StoredTime.date(milliseconds: created))
        }
    }
}
