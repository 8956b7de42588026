import Foundation
import GRDB
import SatchelHTTP
import SatchelJSON
import SatchelOData
import Synchronization
import SatchelStore

/// What a queued request becomes on the wire, and what the answer does to the store: the ETag and key path it is
/// sent with, the local row it completes, the ErrorArchive entry a refusal leaves, and reverting one.
extension OfflineStore {
    /// What goes on the wire for a queued request: its path by the key the store has now (a created entity's is the
    /// server's once its creation was uploaded), its body, its `If-Match`.
    ///
    /// A request on an entity created earlier in the same changeset (`createdHere`) has neither key nor ETag yet:
    /// the changeset addresses it by the creation's Content-ID, with `If-Match: *` (nobody else can have changed it
    /// in between). Its links name their targets by key, or by Content-ID when created in the same changeset; the
    /// foreign keys those links cover are left to the service.
    func operation(
        for request: OfflineQueuedRequest, createdHere: Set<OfflineEntityRef> = [], opened: Opened
    ) async throws -> OfflineOperation {
        let table = try opened.schema.table(request.entitySet)
        if request.method == "LINK" || request.method == "UNLINK" {
            return try await linkOperation(for: request, table: table, createdHere: createdHere, opened: opened)
        }
        var values = OfflineQueue.decode(request.body, table: table)
        // The foreign keys a link covers: the target's key as the store has it now (the server's, for an entity
        // created offline and uploaded since), or nothing when the target is created in the same changeset (the
        // service sets them from the binding).
        // A target created in the same changeset is named by its key when the app gave it one (the changeset creates
        // it first), by its Content-ID only when the server assigns it.
        var localLinks: [OfflineLink] = []
        for link in request.links where createdHere.contains(link.target) {
            let target = try opened.schema.table(link.target.entitySet)
            let keyed = try await opened.store.database.read { db in
                try Row.fetchOne(
                    db, sql: "SELECT * FROM \(target.sql) WHERE _id = ?", arguments: [link.target.entityID]
                )
                .map { row in target.keyColumnNames.allSatisfy { !((row[$0] as DatabaseValue?)?.isNull ?? true) } }
            }
            if keyed != true { localLinks.append(link) }
        }
        let covered = OfflineLinks.coveredPaths(localLinks, table: table, schema: opened.schema)
        values.removeAll { covered.contains($0.column.path) }
        let keyed = request.links.filter { !localLinks.contains($0) }
        if !keyed.isEmpty {
            let foreignKeys = try await opened.store.database.read { db in
                try OfflineLinks.foreignKeys(keyed, table: table, schema: opened.schema, db: db)
            }
            values = OfflineQueue.merge(foreignKeys, over: values)
        }
        var entity = ODataEntity(type: table.entityTypeName, properties: OfflineQueue.properties(values))
        for link in request.links
        where (try? opened.schema.relationship(from: table, navigation: link.navigation))?.isCollection == true {
            entity.collectionBindings.insert(link.navigation)
        }
        for link in keyed {
            let target = try opened.schema.table(link.target.entitySet)
            let path = try await keyPath(table: target, entityID: link.target.entityID, opened: opened)
            entity.bind(link.navigation, to: path.text(for: opened.version))
        }
        if opened.version == .v2, let link = localLinks.first {
            // V2 names a changeset's earlier creation only in request URLs (`$1/Items`), never in a body, and
            // services differ in what they accept there: a transaction cannot link to an entity created in it whose
            // key the server assigns. Without the transaction the link goes once the key is known.
            throw ODataError(
                .notSupported,
                "\(table.entitySet)/\(link.navigation): OData V2 cannot link to an entity created in the same transaction before the server gives it a key (give it a key, or leave the transaction)",
                status: 424, operation: "upload")
        }
        if createdHere.contains(request.entity), request.method != "POST" {
            let set = ODataPath(table.entitySet)
            return request.method == "DELETE"
                ? .delete(set, ifMatch: "*")
                : .update(
                    set, entity, request.method == "PUT" ? .replace : .merge, ifMatch: "*", localLinks: localLinks)
        }
        switch request.method {
        case "POST":
            if !request.deep.isEmpty {
                // A deep insert: the related entities as their rows are now.
                let inline = try await opened.store.database.read { db in
                    try OfflineDeepInsert.properties(
                        of: request.deep, table: table, schema: opened.schema, version: opened.version, db: db)
                }
                for (navigation, value) in inline { entity[navigation] = value }
            }
            return .create(ODataPath(table.entitySet), entity, localLinks: localLinks)
        case "PATCH", "PUT":
            let path = try await keyPath(table: table, entityID: request.entityID, opened: opened)
            let ifMatch = try await etag(
                request.ifMatch, path: path, table: table, entityID: request.entityID, change: request.body,
                opened: opened)
            return .update(
                path, entity, request.method == "PUT" ? .replace : .merge, ifMatch: ifMatch, localLinks: localLinks)
        case "DELETE":
            let path = try await keyPath(table: table, entityID: request.entityID, opened: opened)
            do {
                let ifMatch = try await etag(
                    request.ifMatch, path: path, table: table, entityID: request.entityID, change: nil,
                    opened: opened)
                return .delete(path, ifMatch: ifMatch)
            } catch let error as ODataError where error.code == .notFound {
                // Gone on the server already: the DELETE finds nothing and is settled.
                return .delete(path, ifMatch: nil)
            }
        default:
            throw OfflineStoreError(
                .damagedQueue, "the queued request \(request.id) has an unknown method \(request.method)")
        }
    }

    /// A `LINK` or `UNLINK` request on the wire: the source by its key (or Content-ID), the target likewise.
    private func linkOperation(
        for request: OfflineQueuedRequest, table: OfflineTable, createdHere: Set<OfflineEntityRef>, opened: Opened
    ) async throws -> OfflineOperation {
        let navigation = request.body ?? ""
        let relationship = try opened.schema.relationship(from: table, navigation: navigation)
        let source =
            createdHere.contains(request.entity)
            ? ODataPath(table.entitySet) : try await keyPath(table: table, entityID: request.entityID, opened: opened)
        var target: ODataPath?
        var local: OfflineEntityRef?
        // A to-one link is removed without naming its target (V2 `$links/Nav`, V4 `Nav/$ref`).
        if let link = request.links.first, request.method == "LINK" || relationship.isCollection {
            let targetTable = try opened.schema.table(link.target.entitySet)
            do {
                target = try await keyPath(table: targetTable, entityID: link.target.entityID, opened: opened)
            } catch let error as ODataError where createdHere.contains(link.target) && error.status == 424 {
                local = link.target
            }
        }
        if opened.version == .v2, local != nil {
            throw ODataError(
                .notSupported,
                "\(table.entitySet)/\(navigation): OData V2 cannot link to an entity created in the same transaction before the server gives it a key (give it a key, or leave the transaction)",
                status: 424, operation: "upload")
        }
        return .link(
            source, navigation: navigation, target: target, replace: !relationship.isCollection,
            removing: request.method == "UNLINK", localTarget: local)
    }

    /// Writes what the server answered to a request that succeeded, and removes it from the queue.
    static func complete(
        _ request: OfflineQueuedRequest, with written: ODataWriteResult, schema: OfflineSchema, db: Database
    ) throws {
        let table = try schema.table(request.entitySet)
        let entityID = request.entityID
        switch request.method {
        case "LINK", "UNLINK":
            // Nothing of the row changes: the link was made locally when queued.
            try finish(db, request: request.id, table: table, entityID: entityID)
            return
        case "PUTMEDIA":
            // The entity's ETag may have changed with its content: later changes of its properties read it first.
            try db.cachedStatement(sql: "UPDATE \(table.sql) SET _etag = NULL WHERE _id = ?").execute(arguments: [
                entityID
            ])
            try db.cachedStatement(
                sql: "UPDATE q_requests SET if_match = NULL WHERE entity_set = ? AND entity_id = ? AND id > ?"
            ).execute(arguments: [table.entitySet, entityID, request.id])
            try completeMedia(request, with: written, db: db)
            try finish(db, request: request.id, table: table, entityID: entityID)
            return
        case "POST", "POSTMEDIA":
            // The server's entity replaces the local one: its key always, its other values when no later change
            // of it is queued (that change's values stay visible until it is sent).
            let later =
                try Int.fetchOne(
                    try db.cachedStatement(
                        sql: "SELECT count(*) FROM q_requests WHERE entity_set = ? AND entity_id = ? AND id > ?"),
                    arguments: [table.entitySet, entityID, request.id]) ?? 0
            var assignments = ["_etag = ?"]
            var values: [DatabaseValue] = [written.etag?.databaseValue ?? .null]
            if written.entity == nil, let location = written.location {
                // No entity in the answer (204): the key comes from the Location header.
                let key = keyValues(inID: location, keyPaths: table.keyPaths)
                for path in table.keyPaths {
                    guard let column = table.column(path), let literal = key[path] else { continue }
                    assignments.append("\(column.sql) = ?")
                    values.append(OfflineValues.storedValue(literal, for: column))
                }
            }
            if let returned = written.entity {
                // A foreign key the request's links set, answered null: the link stands (some services keep links
                // apart from the properties of a referential constraint).
                let linked = OfflineLinks.coveredPaths(request.links, table: table, schema: schema)
                let columns = (later == 0 ? table.columns : table.columns.filter { table.keyPaths.contains($0.path) })
                    .filter { column in
                        !linked.contains(column.path)
                            || OfflineValues.value(at: column.path, in: returned.properties).map { $0 != .null } == true
                    }
                assignments += columns.map { "\($0.sql) = ?" }
                values += columns.map {
                    OfflineValues.databaseValue(OfflineValues.value(of: $0, in: returned.properties), for: $0)
                }
                if later > 0 {
                    // What the server holds now, for the later change's comparison.
                    let all = table.columns.map {
                        OfflineValues.databaseValue(OfflineValues.value(of: $0, in: returned.properties), for: $0)
                    }
                    assignments.append("_server = ?")
                    values.append(OfflineQueue.encode(all, columns: table.columns).databaseValue)
                }
            }
            try db.cachedStatement(sql: "UPDATE \(table.sql) SET \(assignments.joined(separator: ", ")) WHERE _id = ?")
                .execute(arguments: StatementArguments(values + [entityID.databaseValue]))
            // Rows that link to it take its key in their foreign keys.
            try OfflineLinks.propagateKey(of: request.entity, schema: schema, db: db)
            if !request.deep.isEmpty {
                try OfflineDeepInsert.complete(
                    request.deep, parent: request.entity, answered: written.entity, schema: schema, db: db)
            }
        case "PATCH", "PUT":
            // The entity's new ETag (none known when the service sent none: a later change reads it first).
            try db.cachedStatement(sql: "UPDATE \(table.sql) SET _etag = ? WHERE _id = ?").execute(arguments: [
                written.etag, entityID,
            ])
            // The server now has the downloaded values with this change: what a later change without an ETag is
            // compared with.
            if let server = try String.fetchOne(
                try db.cachedStatement(sql: "SELECT _server FROM \(table.sql) WHERE _id = ?"), arguments: [entityID])
            {
                let values = OfflineQueue.merge(
                    OfflineQueue.decode(request.body, table: table), over: OfflineQueue.decode(server, table: table))
                try db.cachedStatement(sql: "UPDATE \(table.sql) SET _server = ? WHERE _id = ?").execute(arguments: [
                    OfflineQueue.encode(
                        values.map(\.value), columns: values.map(\.column), only: Set(values.map(\.column.path))),
                    entityID,
                ])
            }
        default:
            try db.cachedStatement(sql: "DELETE FROM \(table.sql) WHERE _id = ?").execute(arguments: [entityID])
            try forgetRow(request.entity, db: db)
        }
        if request.method != "DELETE" {
            // The entity's ETag now, for the changes of it still queued (none known: they read it first).
            try db.cachedStatement(
                sql: "UPDATE q_requests SET if_match = ? WHERE entity_set = ? AND entity_id = ? AND id > ?"
            ).execute(arguments: [written.etag, table.entitySet, entityID, request.id])
        }
        if request.method == "POSTMEDIA" { try completeMedia(request, with: written, db: db) }
        try finish(db, request: request.id, table: table, entityID: entityID)
    }

    /// The `If-Match` for a change: the ETag downloaded with the entity. When the service sent none with its
    /// collections (some send ETags only for single entities), the entity is read now: if it still has the values
    /// that were downloaded, or those values with this very change applied (an earlier attempt reached the server
    /// and its answer was lost), its current ETag is used; if someone else changed it, the change is a conflict
    /// (412), as it would have been with an ETag.
    private func etag(
        _ stored: String?, path: ODataPath, table: OfflineTable, entityID: Int64, change: String?, opened: Opened
    ) async throws -> String? {
        if let stored { return stored }
        let server = try await opened.store.database.read { db in
            try String.fetchOne(
                try db.cachedStatement(sql: "SELECT _server FROM \(table.sql) WHERE _id = ?"), arguments: [entityID])
        }
        let current = try await configuration.service.entity(path)
        let downloaded = OfflineQueue.decode(server, table: table)
        let changed = OfflineQueue.merge(OfflineQueue.decode(change, table: table), over: downloaded)
        func difference(_ expected: [(column: OfflineColumn, value: DatabaseValue)]) -> String? {
            for (column, value) in expected {
                let now = OfflineValues.databaseValue(
                    OfflineValues.value(of: column, in: current.properties), for: column)
                if now != value { return column.path }
            }
            return nil
        }
        if let property = difference(downloaded), difference(changed) != nil {
            throw ODataError(
                .preconditionFailed,
                "\(table.entitySet): the entity changed on the server since it was downloaded (\(property))",
                status: 412, url: nil, operation: "update \(path)", currentETag: current.etag)
        }
        return current.etag
    }

    /// Removes a sent request; the entity is back to `downloaded` when nothing else is queued for it.
    private static func finish(_ db: Database, request: Int64, table: OfflineTable, entityID: Int64) throws {
        try db.cachedStatement(sql: "DELETE FROM q_requests WHERE id = ?").execute(arguments: [request])
        let pending =
            try Int.fetchOne(
                try db.cachedStatement(sql: "SELECT count(*) FROM q_requests WHERE entity_set = ? AND entity_id = ?"),
                arguments: [table.entitySet, entityID]) ?? 0
        if pending == 0 {
            // The row holds the server's values again.
            try db.cachedStatement(
                sql: "UPDATE \(table.sql) SET _state = 0, _server = NULL WHERE _id = ? AND _state <> 3"
            ).execute(arguments: [entityID])
        }
    }

    /// The entity's path by its key as the store has it now (a created entity's key is the server's once its
    /// creation was uploaded).
    func keyPath(table: OfflineTable, entityID: Int64, opened: Opened) async throws -> ODataPath {
        // The key columns' values (Sendable, so the read runs on the database's reader, off the pool).
        let keyColumns = table.keyColumnNames
        let values = try await opened.store.database.read { db -> [String: DatabaseValue]? in
            guard
                let row = try Row.fetchOne(db, sql: "SELECT * FROM \(table.sql) WHERE _id = ?", arguments: [entityID])
            else { return nil }
            return Dictionary(uniqueKeysWithValues: keyColumns.map { ($0, row[$0] as DatabaseValue? ?? .null) })
        }
        guard let values else {
            // 424: what the request depends on is gone (a linked entity deleted locally); it goes to the
            // ErrorArchive.
            throw ODataError(
                .notFound, "entity \(entityID) of \(table.entitySet) is not in the store", status: 424,
                operation: "upload")
        }
        if keyColumns.contains(where: { values[$0]?.isNull ?? true }) {
            throw ODataError(
                .notFound, "entity \(entityID) of \(table.entitySet) has no key from the server yet", status: 424,
                operation: "upload")
        }
        var parts: [(String, ODataLiteral)] = []
        for path in table.keyPaths {
            guard let column = table.column(path) else { continue }
            var literal = ODataLiteral(OfflineValues.odataValue(values[column.name] ?? .null, for: column))
            // An Edm.Int64 key is written as one (V2: `3L`).
            if table.keyTypes[path] == .int64, case .int(let value) = literal { literal = .int64(Int64(value)) }
            parts.append((table.keyPaths.count == 1 ? "" : path, literal))
        }
        let key = parts.count == 1 ? ODataKey.single(parts[0].1) : ODataKey(parts: parts)
        return ODataPath(table.entitySet).key(key)
    }

    /// Puts a refused request in the ErrorArchive and its entity in error state.
    static func archive(_ error: ODataError, request: OfflineQueuedRequest, schema: OfflineSchema, db: Database) throws
    {
        let inner = error.innerError.map { String(decoding: $0.serialized(), as: UTF8.self) }
        try db.execute(sql: "UPDATE q_requests SET failed = 1, batch_id = NULL WHERE id = ?", arguments: [request.id])
        try db.execute(
            sql: """
                INSERT OR REPLACE INTO q_errors (request_id, entity_set, entity_id, http_status, code, message,
                    inner_error, method, url, body, current_etag)
                VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                """,
            arguments: [
                request.id, request.entitySet, request.entityID, error.status, error.serviceCode, error.message, inner,
                request.method, error.url?.absoluteString ?? request.entitySet, request.body, error.currentETag,
            ])
        try db.execute(
            sql: "UPDATE \(try schema.table(request.entitySet).sql) SET _state = ? WHERE _id = ?",
            arguments: [OfflineState.failed.rawValue, request.entityID])
    }

    /// Settles an ErrorArchive entry by giving up the change: the failed request and the later requests on its
    /// entity are dropped, and the entity returns to what was last downloaded (an entity created offline is
    /// removed).
    public func revert(errorID: Int64) async throws {
        try await withQueueRow(in: "q_errors", id: errorID, missing: "ErrorArchive entry") {
            _, table, entityID, opened, db in
            try Self.restore(db, table: table, schema: opened.schema, entityID: entityID)
        }
    }

    /// Gives up a queued request's change, whether it waits, was deferred or failed: the request and every other
    /// queued request on its entity are dropped (with their ErrorArchive entries), and the entity returns to what
    /// was last downloaded (an entity created offline is removed). A request of a transaction takes the whole
    /// transaction with it (it goes all or none): every entity it changes is restored so, and with them every other
    /// transaction on those entities, until no transaction is left in part.
    ///
    /// Refused with ``OfflineStoreError/Code/busy`` while an upload runs: the request may be on its way to the service.
    public func cancel(requestID: Int64) async throws {
        // Holds the store's one exchange while it runs: no upload starts halfway through.
        let claimed = state.withLock { state -> Bool in
            guard !state.exchanging else { return false }
            state.exchanging = true
            return true
        }
        guard claimed else {
            throw OfflineStoreError(
                .busy, "an upload or download is running: cancel request \(requestID) once it has ended")
        }
        defer { state.withLock { $0.exchanging = false } }
        try await withQueueRow(in: "q_requests", id: requestID, missing: "queued request") {
            _, table, entityID, opened, db in
            // Restoring an entity drops all its requests, so every transaction among them goes too, with every
            // entity those transactions change: followed until nothing new is added.
            var entities = [OfflineEntityRef(entitySet: table.entitySet, entityID: entityID)]
            var transactions: Set<String> = []
            var index = 0
            while index < entities.count {
                let entity = entities[index]
                index += 1
                let found = try String.fetchAll(
                    db,
                    sql: """
                        SELECT DISTINCT transaction_id FROM q_requests
                        WHERE entity_set = ? AND entity_id = ? AND transaction_id IS NOT NULL
                        """, arguments: [entity.entitySet, entity.entityID])
                for transaction in found where transactions.insert(transaction).inserted {
                    let members = try Row.fetchAll(
                        db, sql: "SELECT DISTINCT entity_set, entity_id FROM q_requests WHERE transaction_id = ?",
                        arguments: [transaction])
                    for member in members {
                        let next = OfflineEntityRef(entitySet: member["entity_set"], entityID: member["entity_id"])
                        if !entities.contains(next) { entities.append(next) }
                    }
                }
            }
            for entity in entities {
                try Self.restore(
                    db, table: try opened.schema.table(entity.entitySet), schema: opened.schema,
                    entityID: entity.entityID)
            }
        }
    }

    /// Settles an ErrorArchive entry by sending its request again at the next upload, with the same body, its count
    /// of failures back at zero: for a request the service failed too often, under the same repeatability id (a
    /// service that applied it before recognises it); for one it refused for a reason since removed on the server,
    /// under a new one (a service that kept the refusal would answer with it again).
    public func retry(errorID: Int64) async throws {
        try await withQueueRow(in: "q_errors", id: errorID, missing: "ErrorArchive entry") {
            error, table, entityID, _, db in
            try db.execute(sql: "DELETE FROM q_errors WHERE id = ?", arguments: [errorID])
            // A request the service failed (in doubt) goes again under its repeatability id; one it refused is a new
            // request for the server, with a new id, so a service that kept the refusal does not answer with it.
            let status = error["http_status"] as Int?
            let inDoubt = status.map { (500..<600).contains($0) || $0 == 408 || $0 == 429 } ?? false
            try db.execute(
                sql: """
                    UPDATE q_requests SET failed = 0, resends = 0, last_failure = NULL,
                        repeatability_id = CASE WHEN ? THEN repeatability_id ELSE ? END,
                        first_sent = CASE WHEN ? THEN first_sent ELSE ? END,
                        attempted = CASE WHEN ? THEN attempted ELSE 0 END
                    WHERE id = ?
                    """,
                arguments: [
                    inDoubt, UUID().uuidString.lowercased(), inDoubt, HTTPDate.format(Date()), inDoubt,
                    error["request_id"] as Int64,
                ])
            // The entity's state follows its pending requests again: created, deleted or changed.
            let methods = try String.fetchAll(
                db, sql: "SELECT method FROM q_requests WHERE entity_set = ? AND entity_id = ? ORDER BY id",
                arguments: [table.entitySet, entityID])
            let stillFailed =
                try Bool.fetchOne(
                    db,
                    sql: "SELECT count(*) > 0 FROM q_requests WHERE entity_set = ? AND entity_id = ? AND failed = 1",
                    arguments: [table.entitySet, entityID]) ?? false
            let state: OfflineState =
                stillFailed
                ? .failed
                : methods.contains { $0 == "POST" || $0 == "POSTMEDIA" }
                    ? .created : methods.last == "DELETE" ? .deleted : .changed
            try db.execute(
                sql: "UPDATE \(table.sql) SET _state = ? WHERE _id = ?", arguments: [state.rawValue, entityID])
        }
    }

    /// Runs `body` in one write transaction with the row of `table` (`q_errors` or `q_requests`) whose id is `id`,
    /// its entity's table and id; without such a row, throws `notFound` naming the `missing` kind of thing.
    private func withQueueRow(
        in table: String, id: Int64, missing: String,
        _ body: @escaping @Sendable (Row, OfflineTable, Int64, Opened, Database) throws -> Void
    ) async throws {
        let opened = try current()
        try await opened.store.database.write { db in
            guard let row = try Row.fetchOne(db, sql: "SELECT * FROM \(table) WHERE id = ?", arguments: [id]) else {
                throw OfflineStoreError(.queueEntryNotFound, "no \(missing) \(id)")
            }
            try body(row, try opened.schema.table(row["entity_set"]), row["entity_id"], opened, db)
        }
    }
}
