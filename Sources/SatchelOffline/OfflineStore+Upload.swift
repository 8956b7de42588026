import Foundation
import GRDB
import SatchelHTTP
import SatchelJSON
import SatchelOData

/// A queued request (SAP's `RequestQueue` entity).
public struct OfflineRequest: Sendable, Hashable {
    public var requestID: Int64
    public var entitySet: String
    /// The affected entity's id in the store.
    public var entityID: Int64
    /// POST, PATCH, PUT or DELETE.
    public var method: String
    public var repeatabilityRequestID: String
    public var repeatabilityFirstSent: String
    /// Whether it failed and waits in the ErrorArchive.
    public var failed: Bool
}

/// A request the service refused during an upload (SAP's `ErrorArchive` entity).
public struct OfflineError: Sendable, Hashable {
    public var errorID: Int64
    public var requestID: Int64
    public var entitySet: String
    /// The affected entity's id in the store.
    public var entityID: Int64
    public var httpStatus: Int?
    /// The service's error code.
    public var code: String?
    public var message: String
    public var innerError: String?
    public var requestMethod: String
    public var requestURL: String
    public var requestBody: String?
    /// On a 412: the entity's current ETag on the server, when it said.
    public var currentETag: String?
}

/// What an upload did.
public struct OfflineUploadResult: Sendable, Hashable {
    /// Requests the service accepted.
    public var sent: Int
    /// Requests the service refused (now in the ErrorArchive).
    public var failed: Int
    /// Requests held because an earlier request on the same entity failed.
    public var held: Int

    public init(sent: Int, failed: Int, held: Int) {
        self.sent = sent
        self.failed = failed
        self.held = held
    }
}

extension OfflineStore {
    /// The queued requests, oldest first.
    public func requests() async throws -> [OfflineRequest] {
        let opened = try current()
        return try await opened.store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM q_requests ORDER BY id").map {
                OfflineRequest(
                    requestID: $0["id"], entitySet: $0["entity_set"], entityID: $0["entity_id"], method: $0["method"],
                    repeatabilityRequestID: $0["repeatability_id"], repeatabilityFirstSent: $0["first_sent"],
                    failed: $0["failed"])
            }
        }
    }

    /// The ErrorArchive: requests the service refused, oldest first.
    public func errors() async throws -> [OfflineError] {
        let opened = try current()
        return try await opened.store.database.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM q_errors ORDER BY id").map {
                OfflineError(
                    errorID: $0["id"], requestID: $0["request_id"], entitySet: $0["entity_set"],
                    entityID: $0["entity_id"], httpStatus: $0["http_status"], code: $0["code"],
                    message: $0["message"], innerError: $0["inner_error"], requestMethod: $0["method"],
                    requestURL: $0["url"], requestBody: $0["body"], currentETag: $0["current_etag"])
            }
        }
    }

    /// Sends the queued requests, oldest first, each with its `Repeatability-Request-ID` and
    /// `Repeatability-First-Sent` (the same on every attempt, across restarts). A request the service refuses goes
    /// to the ErrorArchive and holds the later requests on its entity; the others go on. A failure to reach the
    /// service stops the upload and keeps the request queued.
    @discardableResult
    public func upload() async throws -> OfflineUploadResult {
        let opened = try current()
        try beginExchange()
        defer { endExchange() }
        var result = OfflineUploadResult(sent: 0, failed: 0, held: 0)
        var after: Int64 = 0
        let total = try await opened.store.database.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM q_requests WHERE failed = 0") ?? 0
        }
        signals.emit(.processedRequests(done: 0, of: total))
        while true {
            try signals.check()
            guard
                let request = try await opened.store.database.read({ db in
                    try Row.fetchOne(
                        db, sql: "SELECT * FROM q_requests WHERE id > ? AND failed = 0 ORDER BY id LIMIT 1",
                        arguments: [after])
                })
            else { break }
            let id: Int64 = request["id"]
            after = id
            let set: String = request["entity_set"]
            let entityID: Int64 = request["entity_id"]
            let table = try opened.schema.table(set)
            // Held: an earlier request on this entity is in the ErrorArchive.
            let held = try await opened.store.database.read { db in
                try Bool.fetchOne(
                    db,
                    sql:
                        "SELECT count(*) > 0 FROM q_requests WHERE entity_set = ? AND entity_id = ? AND failed = 1 AND id < ?",
                    arguments: [set, entityID, id]) ?? false
            }
            if held {
                result.held += 1
                continue
            }
            // From now on the request may reach the server: it is never merged into or dropped locally again.
            try await opened.store.database.write { db in
                try db.execute(sql: "UPDATE q_requests SET attempted = 1 WHERE id = ?", arguments: [id])
            }
            do {
                try await send(request, table: table, opened: opened)
                result.sent += 1
                signals.emit(.processedRequests(done: result.sent + result.failed + result.held, of: total))
            } catch let error as ODataError where Self.isRefusal(error) {
                try await archive(error, request: request, table: table, opened: opened)
                result.failed += 1
            }
        }
        signals.emit(.processedRequests(done: result.sent + result.failed + result.held, of: total))
        return result
    }

    /// A definite refusal (most 4xx): the request goes to the ErrorArchive. Failures that may pass or may have
    /// been applied (401, 408, 429, 5xx, no answer) stop the upload and keep the request queued.
    static func isRefusal(_ error: ODataError) -> Bool {
        guard let status = error.status, error.code != .connection else { return false }
        return (400..<500).contains(status) && ![401, 408, 429].contains(status)
    }

    private func send(_ request: Row, table: OfflineTable, opened: Opened) async throws {
        let id: Int64 = request["id"]
        let entityID: Int64 = request["entity_id"]
        let method: String = request["method"]
        let body: String? = request["body"]
        let headers: HTTPHeaders = [
            "Repeatability-Request-ID": request["repeatability_id"],
            "Repeatability-First-Sent": request["first_sent"],
        ]
        let properties = OfflineQueue.properties(OfflineQueue.decode(request["body"], table: table))
        let service = configuration.service
        let entity = ODataEntity(type: table.entityTypeName, properties: properties)
        switch method {
        case "POST":
            let created = try await service.create(ODataPath(table.entitySet), entity, headers: headers)
            try await opened.store.database.write { db in
                // The server's entity replaces the local one: its key always, its other values when no later change
                // of it is queued (that change's values stay visible until it is sent).
                let later =
                    try Int.fetchOne(
                        db, sql: "SELECT count(*) FROM q_requests WHERE entity_set = ? AND entity_id = ? AND id > ?",
                        arguments: [table.entitySet, entityID, id]) ?? 0
                var assignments = ["_etag = ?"]
                var values: [DatabaseValue] = [created.etag?.databaseValue ?? .null]
                if created.entity == nil, let location = created.location {
                    // No entity in the answer (204): the key comes from the Location header.
                    let key = Self.keyValues(inID: location, keyPaths: table.keyPaths)
                    for path in table.keyPaths {
                        guard let column = table.column(path), let literal = key[path] else { continue }
                        assignments.append("\(column.sql) = ?")
                        values.append(OfflineValues.databaseValue(literal, near: column))
                    }
                }
                if let returned = created.entity {
                    let columns = later == 0 ? table.columns : table.columns.filter { table.keyPaths.contains($0.path) }
                    assignments += columns.map { "\($0.sql) = ?" }
                    values += columns.map {
                        OfflineValues.databaseValue(OfflineValues.value(at: $0.path, in: returned.properties), for: $0)
                    }
                    if later > 0 {
                        // What the server holds now, for the later change's comparison.
                        let all = table.columns.map {
                            OfflineValues.databaseValue(
                                OfflineValues.value(at: $0.path, in: returned.properties), for: $0)
                        }
                        assignments.append("_server = ?")
                        values.append(OfflineQueue.encode(all, columns: table.columns).databaseValue)
                    }
                }
                try db.execute(
                    sql: "UPDATE \(table.sql) SET \(assignments.joined(separator: ", ")) WHERE _id = ?",
                    arguments: StatementArguments(values + [entityID.databaseValue]))
                try Self.finish(db, request: id, table: table, entityID: entityID)
            }
        case "PATCH", "PUT":
            let path = try await keyPath(table: table, entityID: entityID, opened: opened)
            let ifMatch = try await etag(
                request["if_match"], path: path, table: table, entityID: entityID, change: request["body"],
                opened: opened)
            let updated = try await service.update(
                path, with: entity, method: method == "PUT" ? .replace : .merge, ifMatch: ifMatch, headers: headers)
            try await opened.store.database.write { db in
                // The entity's new ETag (none known when the service sent none: a later change reads it first), for
                // this row and the changes of it still queued.
                try db.execute(
                    sql: "UPDATE \(table.sql) SET _etag = ? WHERE _id = ?", arguments: [updated.etag, entityID])
                // The server now has the downloaded values with this change: what a later change without an ETag is
                // compared with.
                if let server = try String.fetchOne(
                    db, sql: "SELECT _server FROM \(table.sql) WHERE _id = ?", arguments: [entityID])
                {
                    var values = OfflineQueue.decode(server, table: table)
                    for (column, value) in OfflineQueue.decode(body, table: table) {
                        if let index = values.firstIndex(where: { $0.column.path == column.path }) {
                            values[index].value = value
                        } else {
                            values.append((column, value))
                        }
                    }
                    try db.execute(
                        sql: "UPDATE \(table.sql) SET _server = ? WHERE _id = ?",
                        arguments: [
                            OfflineQueue.encode(
                                values.map(\.value), columns: values.map(\.column), only: Set(values.map(\.column.path))
                            ),
                            entityID,
                        ])
                }
                try db.execute(
                    sql: "UPDATE q_requests SET if_match = ? WHERE entity_set = ? AND entity_id = ? AND id > ?",
                    arguments: [updated.etag, table.entitySet, entityID, id])
                try Self.finish(db, request: id, table: table, entityID: entityID)
            }
        case "DELETE":
            let path = try await keyPath(table: table, entityID: entityID, opened: opened)
            do {
                let ifMatch = try await etag(
                    request["if_match"], path: path, table: table, entityID: entityID, change: nil, opened: opened)
                try await service.delete(path, ifMatch: ifMatch, headers: headers)
            } catch let error as ODataError where error.code == .notFound {
                // Already gone (a retry after the first attempt was applied, or deleted by someone else).
            }
            try await opened.store.database.write { db in
                try db.execute(sql: "DELETE FROM \(table.sql) WHERE _id = ?", arguments: [entityID])
                try Self.finish(db, request: id, table: table, entityID: entityID)
            }
        default:
            throw ODataError(.invalidArgument, "the queued request \(id) has an unknown method \(method)")
        }
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
            try String.fetchOne(db, sql: "SELECT _server FROM \(table.sql) WHERE _id = ?", arguments: [entityID])
        }
        let current = try await configuration.service.entity(path)
        let downloaded = OfflineQueue.decode(server, table: table)
        var changed = downloaded
        for (column, value) in OfflineQueue.decode(change, table: table) {
            if let index = changed.firstIndex(where: { $0.column.path == column.path }) {
                changed[index].value = value
            } else {
                changed.append((column, value))
            }
        }
        func difference(_ expected: [(column: OfflineColumn, value: DatabaseValue)]) -> String? {
            for (column, value) in expected {
                let now = OfflineValues.databaseValue(
                    OfflineValues.value(at: column.path, in: current.properties), for: column)
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
        try db.execute(sql: "DELETE FROM q_requests WHERE id = ?", arguments: [request])
        let pending =
            try Int.fetchOne(
                db, sql: "SELECT count(*) FROM q_requests WHERE entity_set = ? AND entity_id = ?",
                arguments: [table.entitySet, entityID]) ?? 0
        if pending == 0 {
            // The row holds the server's values again.
            try db.execute(
                sql: "UPDATE \(table.sql) SET _state = 0, _server = NULL WHERE _id = ? AND _state <> 3",
                arguments: [entityID])
        }
    }

    /// The entity's path by its key as the store has it now (a created entity's key is the server's once its
    /// creation was uploaded).
    private func keyPath(table: OfflineTable, entityID: Int64, opened: Opened) async throws -> ODataPath {
        let row = try await opened.store.database.read { db in
            try Row.fetchOne(db, sql: "SELECT * FROM \(table.sql) WHERE _id = ?", arguments: [entityID])
        }
        guard let row else {
            throw ODataError(.notFound, "entity \(entityID) of \(table.entitySet) is not in the store")
        }
        var parts: [(String, ODataLiteral)] = []
        for path in table.keyPaths {
            guard let column = table.column(path) else { continue }
            let literal = OfflineSelect.literal(row[column.name] ?? .null, column: column, type: table.keyTypes[path])
            parts.append((table.keyPaths.count == 1 ? "" : path, literal))
        }
        let key = parts.count == 1 ? ODataKey.single(parts[0].1) : ODataKey(parts: parts)
        return ODataPath(table.entitySet).key(key)
    }

    /// Puts a refused request in the ErrorArchive and its entity in error state.
    private func archive(_ error: ODataError, request: Row, table: OfflineTable, opened: Opened) async throws {
        let id: Int64 = request["id"]
        let entityID: Int64 = request["entity_id"]
        let inner = error.innerError.map { String(decoding: $0.serialized(), as: UTF8.self) }
        let method: String = request["method"]
        let body: String? = request["body"]
        try await opened.store.database.write { db in
            try db.execute(sql: "UPDATE q_requests SET failed = 1 WHERE id = ?", arguments: [id])
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO q_errors (request_id, entity_set, entity_id, http_status, code, message,
                        inner_error, method, url, body, current_etag)
                    VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
                    """,
                arguments: [
                    id, table.entitySet, entityID, error.status, error.serviceCode, error.message, inner,
                    method, error.url?.absoluteString ?? table.entitySet, body,
                    error.currentETag,
                ])
            try db.execute(
                sql: "UPDATE \(table.sql) SET _state = ? WHERE _id = ?",
                arguments: [OfflineState.failed.rawValue, entityID])
        }
    }

    /// Settles an ErrorArchive entry by giving up the change: the failed request and the later requests on its
    /// entity are dropped, and the entity returns to what was last downloaded (an entity created offline is
    /// removed).
    public func revert(errorID: Int64) async throws {
        let opened = try current()
        try await opened.store.database.write { db in
            guard let error = try Row.fetchOne(db, sql: "SELECT * FROM q_errors WHERE id = ?", arguments: [errorID])
            else {
                throw ODataError(.notFound, "no ErrorArchive entry \(errorID)")
            }
            let table = try opened.schema.table(error["entity_set"])
            try Self.restore(db, table: table, entityID: error["entity_id"])
        }
    }
}

extension OfflineSelect {
    /// A key literal of a stored value.
    static func literal(_ stored: DatabaseValue, column: OfflineColumn, type: EDMPrimitiveType?) -> ODataLiteral {
        switch OfflineValues.odataValue(stored, for: column) {
        case .int(let value):
            return type == .int64 ? .int64(value) : .int(Int(value))
        case .bool(let flag): return .bool(flag)
        case .decimal(let value): return .decimal(value)
        case .double(let value): return .double(value)
        case .guid(let uuid): return .guid(uuid)
        case .dateTime(let date): return .dateTime(date)
        case .dateTimeOffset(let date, _): return .dateTimeOffset(date)
        case .date(let text):
            let parts = text.split(separator: "-").compactMap { Int($0) }
            return parts.count == 3 ? .date(year: parts[0], month: parts[1], day: parts[2]) : .string(text)
        case .string(let text): return .string(text)
        default: return .null
        }
    }
}
