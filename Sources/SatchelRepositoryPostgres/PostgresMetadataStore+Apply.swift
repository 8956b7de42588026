import Foundation
import PostgresNIO
import Synchronization
import SatchelCMISCore
public import SatchelRepository

extension PostgresMetadataStore {
    /// One transaction. A batch that deletes anything also counts as a change of the trash generation, since it may
    /// forget marks.
    @discardableResult
    public func apply(_ batch: StoreBatch) async throws -> StoreBatchResult {
        // A delete may forget trash marks: searches that left them out are stale.
        if !batch.deletes.isEmpty { trashChanges.add(1, ordering: .relaxed) }
        return try await transaction { connection in try await self.apply(batch, on: connection) }
    }

    /// The batch's statements, inside the caller's transaction; the order matches ``MemoryMetadataStore``.
    private func apply(_ batch: StoreBatch, on connection: PostgresConnection) async throws -> StoreBatchResult {
        let repositoryId = batch.repositoryId
        for repository in batch.newRepositories {
            do {
                try await run(
                    """
                    INSERT INTO repositories (id, name, description, owner, root_folder_id, created_at)
                    VALUES (\(repository.id), \(repository.name), \(repository.description), \(repository.owner),
                        \(repository.rootFolderId), \(StoredTime.milliseconds(repository.createdAt)))
                    """, on: connection)
            } catch  where Self.sqlState(error) == "23505" {
                throw MetadataStoreError.duplicateId(repository.id)
            }
        }
        if !batch.expectedChangeTokens.isEmpty {
            // Locks the rows (in id order) until the transaction ends: a concurrent writer of the same object
            // waits here, then sees the new token.
            let ids = batch.expectedChangeTokens.keys.sorted()
            let rows = try await rows(
                """
                SELECT id, change_token FROM objects WHERE repository = \(repositoryId) AND id = ANY(\(ids))
                ORDER BY id FOR UPDATE
                """, on: connection)
            var current: [String: Int64] = [:]
            for row in rows {
                let (id, token) = try row.decode((String, Int64).self)
                current[id] = token
            }
            for id in ids {
                guard let token = current[id] else { throw MetadataStoreError.notFound(objectId: id) }
                guard token == batch.expectedChangeTokens[id] else { throw MetadataStoreError.conflict(objectId: id) }
            }
        }
        // The content of every object the batch deletes or changes: candidates for release.
        var dropped: Set<String> = []
        let changed = batch.updates.map(\.id)
        if !changed.isEmpty {
            for row in try await rows(
                """
                SELECT content_hash FROM objects WHERE repository = \(repositoryId) AND id = ANY(\(changed))
                    AND content_hash IS NOT NULL ORDER BY id FOR UPDATE
                """, on: connection)
            {
                dropped.insert(try row.decode(String.self))
            }
        }
        var markKeys: Set<String> = []
        for id in batch.deletes {
            let deleted = try await rows(
                """
                DELETE FROM objects WHERE repository = \(repositoryId) AND id = \(id)
                RETURNING coalesce(content_hash, ''), coalesce(version_series, '')
                """, on: connection)
            guard let row = deleted.first else { throw MetadataStoreError.notFound(objectId: id) }
            let (hash, series) = try row.decode((String, String).self)
            if !hash.isEmpty { dropped.insert(hash) }
            markKeys.insert(id)
            if !series.isEmpty { markKeys.insert(series) }
            try await run(
                "DELETE FROM filings WHERE repository = \(repositoryId) AND object = \(id)", on: connection)
        }
        if !markKeys.isEmpty {
            // A mark never outlives its document: forget those whose key no object is named by or versioned under.
            let keys = markKeys.sorted()
            try await run(
                """
                DELETE FROM document_locks m WHERE m.repository = \(repositoryId) AND m.object = ANY(\(keys))
                    AND NOT EXISTS (SELECT 1 FROM objects o WHERE o.repository = m.repository
                        AND (o.id = m.object OR o.version_series = m.object))
                """, on: connection)
            try await run(
                """
                DELETE FROM document_trash m WHERE m.repository = \(repositoryId) AND m.object = ANY(\(keys))
                    AND NOT EXISTS (SELECT 1 FROM objects o WHERE o.repository = m.repository
                        AND (o.id = m.object OR o.version_series = m.object))
                """, on: connection)
        }
        for object in batch.updates {
            let updated = try await rows(Self.updateQuery(object, repositoryId: repositoryId), on: connection)
            guard !updated.isEmpty else { throw MetadataStoreError.notFound(objectId: object.id) }
            try await run(
                "DELETE FROM filings WHERE repository = \(repositoryId) AND object = \(object.id)", on: connection)
        }
        for object in batch.inserts {
            do {
                try await run(Self.insertQuery(object, repositoryId: repositoryId), on: connection)
            } catch  where Self.sqlState(error) == "23505" {
                throw MetadataStoreError.duplicateId(object.id)
            }
        }
        var filed: [String: StoredObject] = [:]
        var order: [String] = []
        for object in batch.updates + batch.inserts {
            if filed.updateValue(object, forKey: object.id) == nil { order.append(object.id) }
        }
        for id in order {
            guard let object = filed[id] else { continue }
            var seen = Set<String>()
            for folder in object.parentIds where seen.insert(folder).inserted {
                do {
                    try await run(
                        """
                        INSERT INTO filings (repository, folder, name, object)
                        VALUES (\(repositoryId), \(folder), \(object.name), \(object.id))
                        """, on: connection)
                } catch  where Self.sqlState(error) == "23505" {
                    throw MetadataStoreError.nameTaken(folderId: folder, name: object.name)
                }
            }
        }
        // The repository's advisory lock, held until commit: tokens are drawn and committed one writer at a time per
        // repository, so a reader that has seen token n never later finds a smaller one appear. (A counter row
        // updated by every writer would do the same, and turn into a hot, ever-longer row version chain.)
        var locked: Set<String> = []
        for change in batch.changes {
            if locked.insert(change.repositoryId).inserted {
                // With the announcement of the change (sent at the commit): every process's answers and folders of
                // the repository go stale then. One round trip for both.
                try await run(
                    """
                    SELECT pg_advisory_xact_lock(\(PostgresSchema.changeLogLockClass), hashtext(\(change.repositoryId))),
                        pg_notify(
                            \(Self.changeChannel),
                            \(Self.announcement(change.repositoryId, folders: batch.changesFolders)))
                    """, on: connection)
            }
            // The next token after the repository's largest, drawn in the insert itself (each statement sees
            // everything committed before it, and the lock keeps other writers of the repository out).
            let readers = change.readers.map { StoredPropertyCodec.text(StoredPropertyCodec.encode($0)) }
            try await run(
                """
                INSERT INTO changes (repository, token, object_id, change_type, time, type_id, base_type, readers)
                SELECT \(change.repositoryId), COALESCE(MAX(token), 0) + 1, \(change.objectId),
                    \(change.changeType.rawValue), \(StoredTime.milliseconds(change.time)), \(change.typeId),
                    \(change.baseTypeId.rawValue), \(readers)
                FROM changes WHERE repository = \(change.repositoryId)
                """, on: connection)
        }
        if !locked.contains(repositoryId) {
            try await announceChange(of: repositoryId, folders: batch.changesFolders, on: connection)
        }
        for object in batch.updates { if let hash = object.content?.hash { dropped.remove(hash) } }
        return StoreBatchResult(releasedContentHashes: try await unreferenced(dropped, on: connection))
    }

    private static func binds(_ object: StoredObject, repositoryId: String) throws -> PostgresBindings {
        var binds = PostgresBindings(capacity: 21)
        binds.append(repositoryId)
        binds.append(object.id)
        binds.append(object.baseTypeId.rawValue)
        binds.append(object.typeId)
        binds.append(object.name)
        binds.append(StoredPropertyCodec.text(StoredPropertyCodec.encode(object.parentIds)))
        binds.append(StoredPropertyCodec.text(StoredPropertyCodec.encode(object.properties)))
        binds.append(object.changeToken)
        binds.append(object.content?.hash)
        binds.append(object.content?.length)
        binds.append(object.content?.mimeType)
        binds.append(object.content?.fileName)
        binds.append(object.versionSeriesId)
        binds.append(object.isLatestVersion)
        binds.append(object.isPrivateWorkingCopy)
        binds.append(object.sourceId)
        binds.append(object.targetId)
        binds.append(StoredPropertyCodec.text(StoredPropertyCodec.encode(object.acl)))
        binds.append(StoredPropertyCodec.text(StoredPropertyCodec.encode(object.policyIds)))
        binds.append(StoredTime.milliseconds(object.createdAt))
        binds.append(StoredTime.milliseconds(object.modifiedAt))
        return binds
    }

    private static func insertQuery(_ object: StoredObject, repositoryId: String) throws -> PostgresQuery {
        let placeholders = (1...21).map { "$\($0)" }.joined(separator: ", ")
        return PostgresQuery(
            unsafeSQL: "INSERT INTO objects (\(PostgresSchema.objectColumns)) VALUES (\(placeholders))",
            binds: try binds(object, repositoryId: repositoryId))
    }

    private static func updateQuery(_ object: StoredObject, repositoryId: String) throws -> PostgresQuery {
        PostgresQuery(
            unsafeSQL: """
                UPDATE objects SET base_type = $3, type_id = $4, name = $5, parents = $6, properties = $7,
                    change_token = $8, content_hash = $9, content_length = $10, content_mime = $11,
                    content_filename = $12, version_series = $13, is_latest = $14, is_pwc = $15, source_id = $16,
                    target_id = $17, acl = $18, policies = $19, created_at = $20, modified_at = $21
                WHERE repository = $1 AND id = $2 RETURNING id
                """,
            binds: try binds(object, repositoryId: repositoryId))
    }
}
