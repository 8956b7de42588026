import Foundation
import GRDB
import SatchelHTTP
import SatchelJSON
public import SatchelOData

/// The request queue and the ErrorArchive tables, and the encoding of stored values in them.
enum OfflineQueue {
    static func create(in db: Database) throws {
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS q_requests (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    entity_set TEXT NOT NULL,
                    entity_id INTEGER NOT NULL,
                    method TEXT NOT NULL,
                    body TEXT,
                    if_match TEXT,
                    repeatability_id TEXT NOT NULL,
                    first_sent TEXT NOT NULL,
                    failed INTEGER NOT NULL DEFAULT 0,
                    attempted INTEGER NOT NULL DEFAULT 0,
                    custom_tag TEXT)
                """)
        // Added since the first stores were made: transactions, unmodifiable requests, the `$batch` a request went
        // in, the entities a request links to, the service's failures of it.
        let existing = Set(try Row.fetchAll(db, sql: "PRAGMA table_info(q_requests)").map { $0["name"] as String })
        for (name, definition) in [
            ("transaction_id", "TEXT"), ("unmodifiable", "INTEGER NOT NULL DEFAULT 0"), ("batch_id", "TEXT"),
            ("batch_first_sent", "TEXT"), ("links", "TEXT"), ("deep", "TEXT"),
            // How many times the service failed the request (5xx, 408, 429), and its last such answer.
            ("resends", "INTEGER NOT NULL DEFAULT 0"), ("last_failure", "TEXT"),
        ] where !existing.contains(name) {
            try db.execute(sql: "ALTER TABLE q_requests ADD COLUMN \(name) \(definition)")
        }
        try db.execute(
            sql: "CREATE INDEX IF NOT EXISTS q_requests_batch ON q_requests (batch_id) WHERE batch_id IS NOT NULL")
        try db.execute(sql: "CREATE INDEX IF NOT EXISTS q_requests_entity ON q_requests (entity_set, entity_id)")
        // The few requests with links: what finds the requests linking to an entity reads only these (its queries
        // name it: SQLite would rather scan the entity index, the whole queue, for each uploaded creation).
        try db.execute(
            sql: "CREATE INDEX IF NOT EXISTS q_requests_links ON q_requests (id) WHERE links IS NOT NULL")
        try db.execute(sql: "CREATE INDEX IF NOT EXISTS q_requests_deep ON q_requests (id) WHERE deep IS NOT NULL")
        try db.execute(
            sql: """
                CREATE TABLE IF NOT EXISTS q_errors (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    request_id INTEGER NOT NULL UNIQUE,
                    entity_set TEXT NOT NULL,
                    entity_id INTEGER NOT NULL,
                    http_status INTEGER,
                    code TEXT,
                    message TEXT NOT NULL,
                    inner_error TEXT,
                    method TEXT NOT NULL,
                    url TEXT NOT NULL,
                    body TEXT,
                    current_etag TEXT)
                """)
    }

    /// Stored column values as a JSON object by property path (nulls kept: an update may set a property to null).
    static func encode(_ values: [DatabaseValue], columns: [OfflineColumn], only paths: Set<String>? = nil) -> String {
        var members: [(key: String, value: JSONValue)] = []
        for (column, value) in zip(columns, values) {
            if let paths, !paths.contains(column.path) { continue }
            if paths == nil, value.isNull { continue }
            members.append((column.path, json(value)))
        }
        return String(decoding: JSONValue.object(JSONObject(members)).serialized(), as: UTF8.self)
    }

    static func json(_ value: DatabaseValue) -> JSONValue {
        switch value.storage {
        case .null: return .null
        case .int64(let number): return .number(JSONNumber(number))
        case .double(let number): return JSONNumber(number).map { .number($0) } ?? .null
        case .string(let text): return .string(text)
        case .blob(let data): return .string(data.base64EncodedString())
        }
    }

    /// The stored values of a body, by property path.
    static func decode(_ text: String?, table: OfflineTable) -> [(column: OfflineColumn, value: DatabaseValue)] {
        guard let text, case .object(let object)? = try? JSONValue(parsing: Data(text.utf8)) else { return [] }
        var result: [(OfflineColumn, DatabaseValue)] = []
        for (path, value) in object {
            guard let column = table.column(path) else { continue }
            result.append((column, databaseValue(value, for: column)))
        }
        return result
    }

    static func databaseValue(_ value: JSONValue, for column: OfflineColumn) -> DatabaseValue {
        if case .null = value { return .null }
        switch column.kind {
        case .integer, .boolean, .milliseconds, .offsetMinutes: return value.int64Value?.databaseValue ?? .null
        case .real: return value.doubleValue?.databaseValue ?? .null
        case .blob: return value.stringValue.flatMap { Data(base64Encoded: $0) }?.databaseValue ?? .null
        case .decimal, .text, .json: return value.stringValue?.databaseValue ?? .null
        }
    }

    /// Properties (nested by path) of stored values: what a request sends (a DateTimeOffset with its offset).
    static func properties(_ values: [(column: OfflineColumn, value: DatabaseValue)]) -> ODataProperties {
        var properties = ODataProperties()
        for (column, value) in values where column.kind != .offsetMinutes {
            let offset = column.offsetColumn.flatMap { name in values.first { $0.column.name == name }?.value }
            OfflineSelect.set(
                OfflineValues.odataValue(value, for: column, offset: offset), at: column.path[...], in: &properties)
        }
        return properties
    }

    /// Stored values with `changes` laid over them, by property path (a path not there yet is added).
    static func merge(
        _ changes: [(column: OfflineColumn, value: DatabaseValue)],
        over values: [(column: OfflineColumn, value: DatabaseValue)]
    ) -> [(column: OfflineColumn, value: DatabaseValue)] {
        var merged = values
        for (column, value) in changes {
            if let index = merged.firstIndex(where: { $0.column.path == column.path }) {
                merged[index].value = value
            } else {
                merged.append((column, value))
            }
        }
        return merged
    }
}

extension ODataEntity {
    /// The offline store's internal id of this entity (its read link stays valid before and after upload).
    public var offlineEntityID: Int64? {
        get { annotations["satchel.entityID"]?.int64Value }
        set { annotations["satchel.entityID"] = newValue.map { .number(JSONNumber($0)) } }
    }
}
