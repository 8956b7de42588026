public import Foundation
import GRDB
import SatchelHTTP
public import SatchelOData
import SatchelStore

extension OfflineStore {
    /// The content of a media entity, from the store (downloaded by a defining query with `retrievesStreams`, or
    /// written offline).
    public func media(_ entitySet: String, _ reference: EntityReference) async throws -> OfflineMedia {
        let opened = try current()
        let table = try opened.schema.table(entitySet)
        return try await opened.store.database.read { db in
            let id: Int64 = try Self.row(db, table: table, reference)["_id"]
            guard
                let row = try Row.fetchOne(
                    db, sql: "SELECT * FROM s_media WHERE entity_set = ? AND entity_id = ?",
                    arguments: [entitySet, id])
            else {
                throw OfflineStoreError(
                    .contentNotFound,
                    "the offline store has no content for entity \(id) of \(entitySet) (a defining query with retrievesStreams brings it)"
                )
            }
            return OfflineMedia(data: row["content"], contentType: row["content_type"], etag: row["media_etag"])
        }
    }

    /// Replaces a media entity's content locally and queues the `PUT …/$value` (one per entity: a later change of
    /// the content before the upload replaces what it sends).
    public func updateMedia(
        _ entitySet: String, _ reference: EntityReference, data: Data, contentType: String,
        options: OfflineChangeOptions = OfflineChangeOptions()
    ) async throws {
        let opened = try current()
        let table = try opened.schema.table(entitySet)
        try Self.requireMediaType(table, schema: opened.schema, options: options)
        try await opened.store.database.write { db in
            let id: Int64 = try Self.row(db, table: table, reference)["_id"]
            let entity = OfflineEntityRef(entitySet: entitySet, entityID: id)
            let previous = try String.fetchOne(
                db, sql: "SELECT media_etag FROM s_media WHERE entity_set = ? AND entity_id = ?",
                arguments: [entitySet, id])
            try OfflineMediaTable.write(entity, data: data, contentType: contentType, etag: nil, local: true, db: db)
            // A media request not sent yet sends the content as it is when it goes.
            let waiting =
                try Bool.fetchOne(
                    db,
                    sql: """
                        SELECT count(*) > 0 FROM q_requests WHERE entity_set = ? AND entity_id = ?
                            AND method IN ('PUTMEDIA', 'POSTMEDIA') AND attempted = 0 AND failed = 0
                        """, arguments: [entitySet, id]) ?? false
            guard !waiting else { return }
            // A refused one (a conflict, say) is the app's fix now: armed again, new repeatability id, sent over
            // whatever the server has.
            if let failed = try Int64.fetchOne(
                db,
                sql: """
                    SELECT id FROM q_requests WHERE entity_set = ? AND entity_id = ? AND method = 'PUTMEDIA'
                        AND failed = 1 ORDER BY id DESC LIMIT 1
                    """, arguments: [entitySet, id])
            {
                try db.execute(
                    sql: """
                        UPDATE q_requests SET failed = 0, attempted = 0, if_match = NULL, body = ?,
                            repeatability_id = ?, first_sent = ?
                        WHERE id = ?
                        """,
                    arguments: [contentType, UUID().uuidString.lowercased(), HTTPDate.format(Date()), failed])
                try db.execute(sql: "DELETE FROM q_errors WHERE request_id = ?", arguments: [failed])
                try db.execute(
                    sql: "UPDATE \(table.sql) SET _state = ? WHERE _id = ? AND _state = ?",
                    arguments: [OfflineState.changed.rawValue, id, OfflineState.failed.rawValue])
                return
            }
            // The media ETag the content was downloaded with: the upload's `If-Match`.
            try Self.enqueue(
                db, set: entitySet, id: id, method: "PUTMEDIA", body: contentType, ifMatch: previous,
                options: OfflineChangeOptions(
                    uploadCategory: options.uploadCategory, unmodifiable: options.unmodifiable))
        }
    }

    /// Creates a media entity locally from its content (and `properties`, sent after it as an update once the
    /// server has created it) and queues its creation. Returns its entity id.
    @discardableResult
    public func createMedia(
        _ entitySet: String, data: Data, contentType: String, properties: ODataEntity = ODataEntity(),
        options: OfflineChangeOptions = OfflineChangeOptions()
    ) async throws -> Int64 {
        let opened = try current()
        let table = try opened.schema.table(entitySet)
        try Self.requireMediaType(table, schema: opened.schema, options: options)
        let given = table.columns.map {
            OfflineValues.databaseValue(OfflineValues.value(of: $0, in: properties.properties), for: $0)
        }
        let named = table.columns.filter {
            OfflineValues.value(of: $0, in: properties.properties) != nil && !table.keyPaths.contains($0.path)
        }
        let serviceURL = configuration.service.configuration.serviceURL
        return try await opened.store.database.write { db in
            var values = given
            var changed = named
            let links = try OfflineLinks.resolve(
                properties.bindings, from: table, schema: opened.schema, version: opened.version,
                serviceURL: serviceURL, db: db)
            for (column, value) in try OfflineLinks.foreignKeys(links, table: table, schema: opened.schema, db: db) {
                if let index = table.columns.firstIndex(where: { $0.path == column.path }) { values[index] = value }
                if !changed.contains(where: { $0.path == column.path }) { changed.append(column) }
            }
            let id = try Self.insertCreated(values, into: table, db: db)
            let entity = OfflineEntityRef(entitySet: entitySet, entityID: id)
            try OfflineMediaTable.write(entity, data: data, contentType: contentType, etag: nil, local: true, db: db)
            try OfflineLinks.record(links, from: entity, table: table, schema: opened.schema, db: db)
            try Self.enqueue(
                db, set: entitySet, id: id, method: "POSTMEDIA", body: contentType, ifMatch: nil, options: options)
            // The properties and links follow as an update once the server has created the entity.
            if !changed.isEmpty || !links.isEmpty {
                let byPath = Dictionary(uniqueKeysWithValues: zip(table.columns.map(\.path), values))
                try Self.enqueue(
                    db, set: entitySet, id: id, method: "PATCH",
                    body: OfflineQueue.encode(
                        changed.map { byPath[$0.path] ?? .null }, columns: changed, only: Set(changed.map(\.path))),
                    ifMatch: nil, links: links, options: options)
            }
            return id
        }
    }

    /// Content goes to media entities alone, outside transactions (never in a changeset).
    private static func requireMediaType(
        _ table: OfflineTable, schema: OfflineSchema, options: OfflineChangeOptions
    ) throws(OfflineStoreError) {
        guard schema.metadata.entityType(named: table.entityTypeName)?.hasStream == true else {
            throw OfflineStoreError(
                .invalidChange, "\(table.entitySet) holds no media entities (its type has no stream)")
        }
        guard options.transactionID == nil else {
            throw OfflineStoreError(
                .invalidChange,
                "content is sent alone, never in a changeset: no transaction id for \(table.entitySet) content")
        }
    }

    /// Downloads the content of a page's media entities whose media ETag changed (or that have none stored), unless
    /// the content was changed offline and waits to be uploaded. Returns the bytes received.
    func downloadMedia(of entities: [ODataEntity], table: OfflineTable, opened: Opened) async throws -> Int {
        var received = 0
        for entity in entities where !entity.isRemoved {
            let found = try await opened.store.database.read { db -> (id: Int64, stored: StoredMedia?)? in
                guard let id = try Self.rowID(of: entity, table: table, db: db) else { return nil }
                let media = try Row.fetchOne(
                    db, sql: "SELECT media_etag, local FROM s_media WHERE entity_set = ? AND entity_id = ?",
                    arguments: [table.entitySet, id])
                return (id, media.map { StoredMedia(etag: $0["media_etag"], local: $0["local"]) })
            }
            guard let (id, stored) = found else { continue }
            if let stored {
                if stored.local { continue }
                if let etag = entity.mediaETag, stored.etag == etag { continue }
            }
            try signals.check()
            let path = try await keyPath(table: table, entityID: id, opened: opened)
            let data = try await configuration.service.rawValue(path)
            received += data.count
            try await opened.store.database.write { db in
                // Not if a local change of the content came in meanwhile.
                let local =
                    try Bool.fetchOne(
                        db, sql: "SELECT local FROM s_media WHERE entity_set = ? AND entity_id = ?",
                        arguments: [table.entitySet, id]) ?? false
                guard !local else { return }
                try OfflineMediaTable.write(
                    OfflineEntityRef(entitySet: table.entitySet, entityID: id), data: data,
                    contentType: entity.mediaContentType, etag: entity.mediaETag, local: false, db: db)
            }
        }
        return received
    }

    /// Sends a queued media request: the content the store holds now.
    func sendMedia(_ request: OfflineQueuedRequest, opened: Opened) async throws -> ODataWriteResult {
        let table = try opened.schema.table(request.entitySet)
        let content = try await opened.store.database.read { db -> (data: Data, contentType: String?)? in
            try Row.fetchOne(
                db, sql: "SELECT content, content_type FROM s_media WHERE entity_set = ? AND entity_id = ?",
                arguments: [request.entitySet, request.entityID]
            ).map { ($0["content"], $0["content_type"]) }
        }
        guard let content else {
            throw ODataError(
                .notFound, "the content of entity \(request.entityID) of \(request.entitySet) is not in the store",
                status: 424, operation: "upload")
        }
        let data = content.data
        signals.count(sent: data.count)
        let contentType = content.contentType ?? request.body ?? "application/octet-stream"
        let service = configuration.service
        if request.method == "POSTMEDIA" {
            return try await service.createMedia(
                ODataPath(table.entitySet), data: data, contentType: contentType,
                headers: request.repeatabilityHeaders(repeatable))
        }
        let path = try await keyPath(table: table, entityID: request.entityID, opened: opened)
        // Without a media ETag (content never downloaded, or a conflict the app chose to overwrite): the one the
        // server has now.
        var ifMatch = request.ifMatch
        if ifMatch == nil { ifMatch = try await service.entity(path).mediaETag }
        let etag = try await service.uploadMedia(
            path, data: data, contentType: contentType, ifMatch: ifMatch,
            headers: request.repeatabilityHeaders(repeatable))
        return ODataWriteResult(etag: etag)
    }

    /// After a media request succeeded: the server has the content with this media ETag. The stored content is the
    /// server's unless a later media request still waits to send newer content (that request's `If-Match` is then
    /// this ETag).
    static func completeMedia(_ request: OfflineQueuedRequest, with written: ODataWriteResult, db: Database) throws {
        let etag = request.method == "POSTMEDIA" ? written.entity?.mediaETag : written.etag
        try db.execute(
            sql: """
                UPDATE s_media SET media_etag = ?, local = EXISTS (
                    SELECT 1 FROM q_requests WHERE entity_set = ? AND entity_id = ? AND id <> ?
                        AND method IN ('PUTMEDIA', 'POSTMEDIA'))
                WHERE entity_set = ? AND entity_id = ?
                """,
            arguments: [etag, request.entitySet, request.entityID, request.id, request.entitySet, request.entityID])
        try db.execute(
            sql:
                "UPDATE q_requests SET if_match = ? WHERE entity_set = ? AND entity_id = ? AND id > ? AND method = 'PUTMEDIA'",
            arguments: [etag, request.entitySet, request.entityID, request.id])
    }
}

/// A media entity's stored content state: its media ETag and whether the content was changed offline.
private struct StoredMedia: Sendable {
    var etag: String?
    var local: Bool
}
