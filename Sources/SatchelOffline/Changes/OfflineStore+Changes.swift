import Foundation
import GRDB
import SatchelHTTP
public import SatchelOData
import SatchelStore

extension OfflineStore {
    /// An entity in the store: by its key, or by the store's entity id (``SatchelOData/ODataEntity/offlineEntityID``,
    /// which also names entities created offline, before the server gives them a key).
    public enum EntityReference: Sendable {
        /// The entity whose key properties have these values.
        case key(ODataKey)
        /// The entity with this entity id in the store.
        case id(Int64)
    }

    /// Creates an entity locally and queues its creation: reads see it at once. Returns its entity id.
    ///
    /// Related entities inline in `entity` (`order["Items"] = .entities([...])`, one level deep) are created with it
    /// in the same request (deep insert); they have rows of their own at once, and changes to them before the upload
    /// go with the creation.
    ///
    /// The entity's `SatchelOData/ODataEntity/bindings` link it to entities of the store, named by key
    /// (`Categories(3)`) or, for an entity created offline whose key the server assigns, by its read link
    /// (`Categories(satchel_eid=17)`): the upload sends the server's key once it has it, or the creation's Content-ID
    /// when both go in one changeset. A to-one link with a referential constraint sets the foreign key locally too.
    @discardableResult
    public func create(
        _ entitySet: String, _ entity: ODataEntity, options: OfflineChangeOptions = OfflineChangeOptions()
    ) async throws -> Int64 {
        let opened = try current()
        let serviceURL = configuration.service.configuration.serviceURL
        return try await opened.store.database.write { db in
            try Self.create(entitySet, entity, options: options, opened: opened, serviceURL: serviceURL, db: db)
        }
    }

    /// ``create(_:_:options:)`` inside a write transaction.
    static func create(
        _ entitySet: String, _ entity: ODataEntity, options: OfflineChangeOptions, opened: Opened, serviceURL: URL?,
        db: Database
    ) throws -> Int64 {
        let table = try opened.schema.table(entitySet)
        var values = table.columns.map {
            OfflineValues.databaseValue(OfflineValues.value(of: $0, in: entity.properties), for: $0)
        }
        let links = try OfflineLinks.resolve(
            entity.bindings, from: table, schema: opened.schema, version: opened.version, serviceURL: serviceURL,
            db: db)
        for (column, value) in try OfflineLinks.foreignKeys(links, table: table, schema: opened.schema, db: db) {
            if let index = table.columns.firstIndex(where: { $0.path == column.path }) { values[index] = value }
        }
        let nested = try OfflineDeepInsert.nested(in: entity, table: table, schema: opened.schema)
        let id = try Self.insertCreated(values, into: table, db: db)
        let created = OfflineEntityRef(entitySet: entitySet, entityID: id)
        try OfflineLinks.record(links, from: created, table: table, schema: opened.schema, db: db)
        let deep = try OfflineDeepInsert.insert(
            nested, parent: created, parentTable: table, parentValues: values, db: db)
        try Self.enqueue(
            db, set: entitySet, id: id, method: "POST", body: OfflineQueue.encode(values, columns: table.columns),
            ifMatch: nil, links: links, deep: deep, options: options)
        return id
    }

    /// Changes properties of an entity locally (merge: the properties given; replace: every property, the others
    /// reset) and queues the change. Changes to an entity created or changed offline and not uploaded yet are merged
    /// into the request already queued (unless it is unmodifiable, or of another transaction or upload category); a
    /// change to an entity whose request failed is merged into that request, which is sent again at the next upload.
    /// Bindings in `changes` link the entity as in ``create(_:_:options:)-(String,_,_)``.
    public func update(
        _ entitySet: String, _ reference: EntityReference, with changes: ODataEntity,
        method: ODataUpdateMethod = .merge, options: OfflineChangeOptions = OfflineChangeOptions()
    ) async throws {
        let opened = try current()
        let serviceURL = configuration.service.configuration.serviceURL
        try await opened.store.database.write { db in
            try Self.update(
                entitySet, reference, with: changes, method: method, options: options, opened: opened,
                serviceURL: serviceURL, db: db)
        }
    }

    /// ``update(_:_:with:method:options:)`` inside a write transaction.
    static func update(
        _ entitySet: String, _ reference: EntityReference, with changes: ODataEntity, method: ODataUpdateMethod,
        options: OfflineChangeOptions, opened: Opened, serviceURL: URL?, db: Database
    ) throws {
        let table = try opened.schema.table(entitySet)
        let givenColumns = table.columns.filter { column in
            // A replacement resets every property but the key, which addresses the entity.
            (method == .replace && !table.keyPaths.contains(column.path))
                || OfflineValues.value(of: column, in: changes.properties) != nil
                || changes.properties[String(column.path.split(separator: "/").first ?? "")] != nil
        }
        let givenValues = givenColumns.map {
            OfflineValues.databaseValue(OfflineValues.value(of: $0, in: changes.properties), for: $0)
        }
        var changed = givenColumns
        var values = givenValues
        let links = try OfflineLinks.resolve(
            changes.bindings, from: table, schema: opened.schema, version: opened.version, serviceURL: serviceURL,
            db: db)
        for (column, value) in try OfflineLinks.foreignKeys(links, table: table, schema: opened.schema, db: db) {
            if let index = changed.firstIndex(where: { $0.path == column.path }) {
                values[index] = value
            } else {
                changed.append(column)
                values.append(value)
            }
        }
        let row = try Self.row(db, table: table, reference)
        let id: Int64 = row["_id"]
        try Self.keepServerValues(db, table: table, row: row)
        try OfflineLinks.record(
            links, from: OfflineEntityRef(entitySet: entitySet, entityID: id), table: table, schema: opened.schema,
            db: db)
        if !changed.isEmpty {
            try db.execute(
                sql:
                    "UPDATE \(table.sql) SET \(changed.map { "\($0.sql) = ?" }.joined(separator: ", ")) WHERE _id = ?",
                arguments: StatementArguments(values + [id.databaseValue]))
        }
        // Created inline with another entity whose creation is not sent yet: that creation sends it as it is now.
        if links.isEmpty,
            try OfflineDeepInsert.owner(of: OfflineEntityRef(entitySet: entitySet, entityID: id), db: db) != nil
        {
            return
        }
        let state = OfflineState(rawValue: row["_state"]) ?? .downloaded
        let body = OfflineQueue.encode(values, columns: changed, only: Set(changed.map(\.path)))
        // The latest request for this entity, if it can take the change.
        if let last = try Row.fetchOne(
            db,
            sql:
                "SELECT id, method, body, links, failed, attempted, unmodifiable, transaction_id, custom_tag FROM q_requests WHERE entity_set = ? AND entity_id = ? ORDER BY id DESC LIMIT 1",
            arguments: [entitySet, id]),
            ["POST", "PATCH"].contains(last["method"] as String), method == .merge, !options.unmodifiable,
            last["unmodifiable"] as Bool == false, last["transaction_id"] as String? == options.transactionID,
            last["custom_tag"] as String? == options.uploadCategory,
            // A request sent (or being sent) and not refused may have reached the server: never changed after.
            last["attempted"] as Bool == false || last["failed"] as Bool == true,
            // Nor can it take a link to an entity created after it (that creation must be sent first).
            try Self.linksPrecede(links, request: last["id"], db: db)
        {
            let merged = OfflineQueue.merge(
                zip(changed, values).map { (column: $0, value: $1) },
                over: OfflineQueue.decode(last["body"], table: table))
            let text = OfflineQueue.encode(
                merged.map(\.value), columns: merged.map(\.column), only: Set(merged.map(\.column.path)))
            // A refused request fixed is a new request for the server: a new repeatability id, so a server that
            // kept the refusal does not answer the fix with it.
            let mergedLinks = OfflineLinks.merge(
                links, over: try OfflineLinks.decode(last["links"]), table: table, schema: opened.schema)
            try db.execute(
                sql: """
                    UPDATE q_requests SET body = ?, links = ?, attempted = 0,
                        repeatability_id = CASE WHEN failed = 1 THEN ? ELSE repeatability_id END,
                        first_sent = CASE WHEN failed = 1 THEN ? ELSE first_sent END,
                        resends = CASE WHEN failed = 1 THEN 0 ELSE resends END,
                        last_failure = CASE WHEN failed = 1 THEN NULL ELSE last_failure END, failed = 0
                    WHERE id = ?
                    """,
                arguments: [
                    text, OfflineLinks.encode(mergedLinks), UUID().uuidString.lowercased(),
                    HTTPDate.format(Date()), last["id"] as Int64,
                ])
            // A fix for a failed request: its error is settled, the request goes again.
            try db.execute(sql: "DELETE FROM q_errors WHERE request_id = ?", arguments: [last["id"] as Int64])
            let next: OfflineState = last["method"] as String == "POST" ? .created : .changed
            try db.execute(sql: "UPDATE \(table.sql) SET _state = ? WHERE _id = ?", arguments: [next.rawValue, id])
            return
        }
        try Self.enqueue(
            db, set: entitySet, id: id, method: method == .merge ? "PATCH" : "PUT", body: body,
            ifMatch: row["_etag"], links: links, options: options)
        if state == .downloaded {
            try db.execute(
                sql: "UPDATE \(table.sql) SET _state = ? WHERE _id = ?",
                arguments: [OfflineState.changed.rawValue, id])
        }
    }

    /// Deletes an entity locally and queues its deletion. An entity created offline and never uploaded simply
    /// disappears with its queued requests; pending changes of a downloaded entity are dropped with it. Unmodifiable
    /// requests stay: the deletion is sent after them.
    public func delete(
        _ entitySet: String, _ reference: EntityReference, options: OfflineChangeOptions = OfflineChangeOptions()
    ) async throws {
        let opened = try current()
        try await opened.store.database.write { db in
            try Self.delete(entitySet, reference, options: options, opened: opened, db: db)
        }
    }

    /// ``delete(_:_:options:)`` inside a write transaction.
    static func delete(
        _ entitySet: String, _ reference: EntityReference, options: OfflineChangeOptions, opened: Opened, db: Database
    ) throws {
        let table = try opened.schema.table(entitySet)
        let row = try Self.row(db, table: table, reference)
        let id: Int64 = row["_id"]
        let entity = OfflineEntityRef(entitySet: entitySet, entityID: id)
        if let owner = try OfflineDeepInsert.owner(of: entity, db: db) {
            // Created inline with another entity whose creation is not sent yet: it leaves that creation.
            let list = try OfflineLinks.decode(
                try String.fetchOne(db, sql: "SELECT deep FROM q_requests WHERE id = ?", arguments: [owner]))
            try db.execute(
                sql: "UPDATE q_requests SET deep = ? WHERE id = ?",
                arguments: [OfflineLinks.encode(list.filter { $0.target != entity }), owner])
            try db.execute(sql: "DELETE FROM \(table.sql) WHERE _id = ?", arguments: [id])
            try Self.forgetRow(entity, db: db)
            try OfflineDeepInsert.forgetRequests(on: entity, db: db)
            return
        }
        try Self.keepServerValues(db, table: table, row: row)
        // Created offline and never sent (or refused): nothing reached the server.
        let localOnly =
            try Bool.fetchOne(
                db,
                sql: """
                    SELECT count(*) > 0 FROM q_requests WHERE entity_set = ? AND entity_id = ?
                        AND method IN ('POST', 'POSTMEDIA')
                        AND (attempted = 0 OR failed = 1) AND unmodifiable = 0
                    """,
                arguments: [entitySet, id]) ?? false
        // Requests that may have reached the server stay (the DELETE follows them); the others go.
        let requests = try Int64.fetchAll(
            db,
            sql:
                "SELECT id FROM q_requests WHERE entity_set = ? AND entity_id = ? AND (attempted = 0 OR failed = 1) AND unmodifiable = 0",
            arguments: [entitySet, id])
        if localOnly { try OfflineDeepInsert.dropChildren(ofRequestsOn: entity, schema: opened.schema, db: db) }
        for request in requests {
            try db.execute(sql: "DELETE FROM q_errors WHERE request_id = ?", arguments: [request])
            try db.execute(sql: "DELETE FROM q_requests WHERE id = ?", arguments: [request])
        }
        if localOnly {
            // Created offline: nothing reached the server.
            try db.execute(sql: "DELETE FROM \(table.sql) WHERE _id = ?", arguments: [id])
            try Self.forgetRow(OfflineEntityRef(entitySet: entitySet, entityID: id), db: db)
            return
        }
        // The server's ETag as downloaded (not one a local change would have).
        try Self.enqueue(
            db, set: entitySet, id: id, method: "DELETE", body: nil, ifMatch: row["_etag"], options: options)
        try db.execute(
            sql: "UPDATE \(table.sql) SET _state = ? WHERE _id = ?", arguments: [OfflineState.deleted.rawValue, id])
    }

    /// Whether every entity `links` name was downloaded or created before request `id`: a link to an entity created
    /// later cannot go in that request.
    static func linksPrecede(_ links: [OfflineLink], request id: Int64, db: Database) throws -> Bool {
        for link in links {
            let later = try Bool.fetchOne(
                db,
                sql: """
                    SELECT count(*) > 0 FROM q_requests WHERE entity_set = ? AND entity_id = ?
                        AND method IN ('POST', 'POSTMEDIA') AND id > ?
                    """, arguments: [link.target.entitySet, link.target.entityID, id])
            if later == true { return false }
        }
        return true
    }

    /// Inserts the row of an entity created offline (every column's value, in table order); returns its id.
    static func insertCreated(_ values: [DatabaseValue], into table: OfflineTable, db: Database) throws -> Int64 {
        let names = ["_state"] + table.columns.map(\.sql)
        try db.execute(
            sql: """
                INSERT INTO \(table.sql) (\(names.joined(separator: ", ")))
                VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))
                """,
            arguments: StatementArguments([OfflineState.created.rawValue.databaseValue] + values))
        return db.lastInsertedRowID
    }

    static func row(
        _ db: Database, table: OfflineTable, _ reference: EntityReference, includingDeleted: Bool = false
    ) throws -> Row {
        let row: Row?
        let visible = includingDeleted ? "" : " AND _state <> 3"
        switch reference {
        case .id(let id):
            row = try Row.fetchOne(db, sql: "SELECT * FROM \(table.sql) WHERE _id = ?\(visible)", arguments: [id])
        case .key(let key)
        where key.parts.count == 1 && key.parts[0].name == OfflineLinks.entityIDKey:
            // `Set(satchel_eid=17)`: an entity's read link in the store.
            let id: Int64
            switch key.parts[0].value {
            case .int(let value): id = Int64(value)
            case .int64(let value): id = value
            default:
                throw OfflineStoreError(.invalidReference, "\(OfflineLinks.entityIDKey) takes an integer, not \(key)")
            }
            row = try Row.fetchOne(db, sql: "SELECT * FROM \(table.sql) WHERE _id = ?\(visible)", arguments: [id])
        case .key(let key):
            let parts = key.parts
            var conditions: [String] = []
            var arguments: [DatabaseValue] = []
            for (index, part) in parts.enumerated() {
                let name = part.name.isEmpty && parts.count == 1 ? table.keyPaths.first ?? "" : part.name
                guard let column = table.column(name), index < table.keyPaths.count || !part.name.isEmpty else {
                    throw OfflineStoreError(.unknownProperty, "\(table.entitySet) has no key property \(name)")
                }
                conditions.append("\(column.sql) = ?")
                arguments.append(OfflineValues.storedValue(part.value, for: column))
            }
            row = try Row.fetchOne(
                db,
                sql: "SELECT * FROM \(table.sql) WHERE \(conditions.joined(separator: " AND "))\(visible)",
                arguments: StatementArguments(arguments))
        }
        guard let row else {
            throw OfflineStoreError(.entityNotFound, "no such entity in the offline store's \(table.entitySet)")
        }
        return row
    }

    /// Before the first local change of a downloaded row (which holds the server's values), keeps those values in
    /// `_server`: what a revert restores and what an upload without an ETag compares with.
    static func keepServerValues(_ db: Database, table: OfflineTable, row: Row) throws {
        guard row["_state"] as Int == OfflineState.downloaded.rawValue else { return }
        let values: [DatabaseValue] = table.columns.map { (row[$0.name] as DatabaseValue?) ?? .null }
        try db.execute(
            sql: "UPDATE \(table.sql) SET _server = ? WHERE _id = ?",
            arguments: [OfflineQueue.encode(values, columns: table.columns), row["_id"] as Int64])
    }

    static func enqueue(
        _ db: Database, set: String, id: Int64, method: String, body: String?, ifMatch: String?,
        links: [OfflineLink] = [], deep: [OfflineLink] = [], options: OfflineChangeOptions
    ) throws {
        try db.execute(
            sql: """
                INSERT INTO q_requests (entity_set, entity_id, method, body, if_match, repeatability_id, first_sent,
                    transaction_id, custom_tag, unmodifiable, links, deep)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                set, id, method, body, ifMatch, UUID().uuidString.lowercased(), HTTPDate.format(Date()),
                options.transactionID, options.uploadCategory, options.unmodifiable, OfflineLinks.encode(links),
                OfflineLinks.encode(deep),
            ])
    }
}

/// A row's state (`_state`).
enum OfflineState: Int {
    case downloaded = 0
    case created = 1
    case changed = 2
    case deleted = 3
    case failed = 4
}
