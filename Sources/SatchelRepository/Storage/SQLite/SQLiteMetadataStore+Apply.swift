import Foundation
import GRDB
import Synchronization
import SatchelCMISCore

extension SQLiteMetadataStore {
    /// One write transaction. A batch that deletes anything also counts as a change of the trash generation, since it
    /// may forget marks.
    @discardableResult
    public func apply(_ batch: StoreBatch) async throws -> StoreBatchResult {
        // A delete may forget trash marks (``forgetOrphanedMarks(of:in:)``): searches that left them out are stale.
        if !batch.deletes.isEmpty { trashChanges.add(1, ordering: .relaxed) }
        do {
            return try await timings.measure("write") { () async throws -> StoreBatchResult in
                try await database.write { db in try Self.apply(batch, in: db) }
            }
        } catch let error as MetadataStoreError {
            throw error
        } catch {
            throw MetadataStoreError.backend("SQLite write failed: \(error)")
        }
    }

    /// Applies the batch inside the caller's write transaction; throwing rolls all of it back.
    ///
    /// The order matches ``MemoryMetadataStore``: preconditions, deletes, updates, inserts. Filings of updated
    /// objects are removed before any filing is written, so a batch may swap two names in one folder.
    static func apply(_ batch: StoreBatch, in db: Database) throws -> StoreBatchResult {
        let repositoryId = batch.repositoryId
        // The content of every object the batch deletes or changes: candidates for release.
        var dropped: Set<String> = []
        let contentStatement = try db.cachedStatement(
            sql: "SELECT content_hash FROM objects WHERE repository = ? AND id = ?")
        for id in batch.deletes + batch.updates.map(\.id) {
            if let hash = try String.fetchOne(contentStatement, arguments: [repositoryId, id]) { dropped.insert(hash) }
        }
        for object in batch.updates { if let hash = object.content?.hash { dropped.remove(hash) } }
        for repository in batch.newRepositories {
            try insert(repository, in: db)
        }
        let tokenStatement = try db.cachedStatement(
            sql: "SELECT change_token FROM objects WHERE repository = ? AND id = ?")
        for (id, expected) in batch.expectedChangeTokens.sorted(by: { $0.key < $1.key }) {
            guard let current = try Int64.fetchOne(tokenStatement, arguments: [repositoryId, id]) else {
                throw MetadataStoreError.notFound(objectId: id)
            }
            guard current == expected else { throw MetadataStoreError.conflict(objectId: id) }
        }
        let deleteFilings = try db.cachedStatement(sql: "DELETE FROM filings WHERE repository = ? AND object = ?")
        let deleteObject = try db.cachedStatement(sql: "DELETE FROM objects WHERE repository = ? AND id = ?")
        var markKeys: Set<String> = []
        let seriesStatement = try db.cachedStatement(
            sql: "SELECT version_series FROM objects WHERE repository = ? AND id = ?")
        for id in batch.deletes {
            markKeys.insert(id)
            if let series = try String.fetchOne(seriesStatement, arguments: [repositoryId, id]) {
                markKeys.insert(series)
            }
            try deleteObject.execute(arguments: [repositoryId, id])
            guard db.changesCount > 0 else { throw MetadataStoreError.notFound(objectId: id) }
            try deleteFilings.execute(arguments: [repositoryId, id])
        }
        try forgetOrphanedMarks(of: markKeys, in: repositoryId, db)
        let update = try db.cachedStatement(
            sql: """
                UPDATE objects SET base_type = ?3, type_id = ?4, name = ?5, parents = ?6, properties = ?7,
                    change_token = ?8, content_hash = ?9, content_length = ?10, content_mime = ?11,
                    content_filename = ?12, version_series = ?13, is_latest = ?14, is_pwc = ?15, source_id = ?16,
                    target_id = ?17, acl = ?18, policies = ?19, created_at = ?20, modified_at = ?21
                WHERE repository = ?1 AND id = ?2
                """)
        for object in batch.updates {
            try update.execute(arguments: arguments(object, repositoryId: repositoryId))
            guard db.changesCount > 0 else { throw MetadataStoreError.notFound(objectId: object.id) }
            try deleteFilings.execute(arguments: [repositoryId, object.id])
        }
        let insert = try db.cachedStatement(
            sql: """
                INSERT INTO objects (\(SQLiteSchema.objectColumns))
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """)
        for object in batch.inserts {
            do {
                try insert.execute(arguments: arguments(object, repositoryId: repositoryId))
            } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                throw MetadataStoreError.duplicateId(object.id)
            }
        }
        // Each object's last state in the batch is filed.
        var filed: [String: StoredObject] = [:]
        var order: [String] = []
        for object in batch.updates + batch.inserts {
            if filed.updateValue(object, forKey: object.id) == nil { order.append(object.id) }
        }
        let insertFiling = try db.cachedStatement(
            sql: "INSERT INTO filings (repository, folder, name, object) VALUES (?, ?, ?, ?)")
        for id in order {
            guard let object = filed[id] else { continue }
            var seen = Set<String>()
            for folder in object.parentIds where seen.insert(folder).inserted {
                do {
                    try insertFiling.execute(arguments: [repositoryId, folder, object.name, object.id])
                } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
                    throw MetadataStoreError.nameTaken(folderId: folder, name: object.name)
                }
            }
        }
        // The next token after the repository's largest (the primary key's last entry for it): writes are one at a
        // time, so tokens are handed out and committed in order.
        let insertChange = try db.cachedStatement(
            sql: """
                INSERT INTO changes (repository, token, object_id, change_type, time, type_id, base_type, readers)
                SELECT ?1, COALESCE(MAX(token), 0) + 1, ?2, ?3, ?4, ?5, ?6, ?7 FROM changes WHERE repository = ?1
                """)
        for change in batch.changes {
            try insertChange.execute(arguments: [
                change.repositoryId, change.objectId, change.changeType.rawValue,
                StoredTime.milliseconds(change.time), change.typeId, change.baseTypeId.rawValue,
                change.readers.map { StoredPropertyCodec.text(StoredPropertyCodec.encode($0)) },
            ])
        }
        return StoreBatchResult(releasedContentHashes: try Self.unreferenced(dropped, db))
    }

    /// Forgets the locks and trash marks of those of `keys` no object is named by (its id) or versioned under (its
    /// version series) any more: a mark never outlives its document.
    private static func forgetOrphanedMarks(of keys: Set<String>, in repositoryId: String, _ db: Database) throws {
        guard !keys.isEmpty else { return }
        // Most repositories hold no marks: a delete of many objects then costs one look, not two statements each.
        let anyMarks = try db.cachedStatement(
            sql: """
                SELECT EXISTS (SELECT 1 FROM document_locks WHERE repository = ?1)
                    OR EXISTS (SELECT 1 FROM document_trash WHERE repository = ?1)
                """)
        guard try Bool.fetchOne(anyMarks, arguments: [repositoryId]) == true else { return }
        let orphan = """
            repository = ?1 AND object = ?2 AND NOT EXISTS (SELECT 1 FROM objects
                WHERE repository = ?1 AND (id = ?2 OR version_series = ?2))
            """
        let locks = try db.cachedStatement(sql: "DELETE FROM document_locks WHERE " + orphan)
        let trash = try db.cachedStatement(sql: "DELETE FROM document_trash WHERE " + orphan)
        for key in keys.sorted() {
            try locks.execute(arguments: [repositoryId, key])
            try trash.execute(arguments: [repositoryId, key])
        }
    }

    private static func insert(_ repository: StoredRepository, in db: Database) throws {
        do {
            try db.cachedStatement(
                sql: """
                    INSERT INTO repositories (id, name, description, owner, root_folder_id, created_at)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """
            ).execute(arguments: [
                repository.id, repository.name, repository.description, repository.owner,
                repository.rootFolderId, StoredTime.milliseconds(repository.createdAt),
            ])
        } catch let error as DatabaseError where error.resultCode == .SQLITE_CONSTRAINT {
            throw MetadataStoreError.duplicateId(repository.id)
        }
    }

    /// The 21 object columns, in ``SQLiteSchema/objectColumns`` order.
    private static func arguments(_ object: StoredObject, repositoryId: String) -> StatementArguments {
        let values: [(any DatabaseValueConvertible)?] = [
            repositoryId, object.id, object.baseTypeId.rawValue, object.typeId, object.name,
            StoredPropertyCodec.text(StoredPropertyCodec.encode(object.parentIds)),
            StoredPropertyCodec.text(StoredPropertyCodec.encode(object.properties)),
            object.changeToken, object.content?.hash, object.content?.length, object.content?.mimeType,
            object.content?.fileName, object.versionSeriesId, object.isLatestVersion, object.isPrivateWorkingCopy,
            object.sourceId, object.targetId,
            StoredPropertyCodec.text(StoredPropertyCodec.encode(object.acl)),
            StoredPropertyCodec.text(StoredPropertyCodec.encode(object.policyIds)),
            StoredTime.milliseconds(object.createdAt), StoredTime.milliseconds(object.modifiedAt),
        ]
        return StatementArguments(values)
    }
}
