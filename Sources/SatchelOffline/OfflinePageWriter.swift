import Foundation
import GRDB
import GRDBSQLite
import SatchelOData

/// Stores one downloaded page in one transaction: each entity's row upserted by its key (a row with local changes
/// not uploaded yet keeps them), removals (`@removed`, `__deleted`) applied, then the page's memberships in one
/// statement. Values are bound to SQLite column by column, without building argument arrays per entity (the
/// download's hot path; docs/offline.md, "Measured").
struct OfflinePageWriter {
    let table: OfflineTable
    let query: String
    let generation: Int64

    func write(_ entities: [ODataEntity], db: Database) throws {
        let upsert = try db.makeStatement(sql: table.upsertSQL)
        let handle = upsert.sqliteStatement
        var members: [Int64] = []
        members.reserveCapacity(entities.count)
        for entity in entities {
            if entity.isRemoved {
                try remove(entity, db: db)
                continue
            }
            sqlite3_reset(handle)
            try check(bind(entity.etag?.databaseValue ?? .null, at: 1, to: handle), db)
            for (index, column) in table.columns.enumerated() {
                let value = OfflineValues.databaseValue(
                    OfflineValues.value(of: column, in: entity.properties), for: column)
                try check(bind(value, at: Int32(index + 2), to: handle), db)
            }
            let id: Int64?
            switch sqlite3_step(handle) {
            case SQLITE_ROW: id = sqlite3_column_int64(handle, 0)
            case SQLITE_DONE: id = nil
            case let code: throw error(code, db)
            }
            sqlite3_reset(handle)
            // No id when the row has local changes: found by its key.
            if let id = try id ?? OfflineStore.rowID(of: entity, table: table, db: db) { members.append(id) }
        }
        guard !members.isEmpty else { return }
        var list = "["
        for (index, id) in members.enumerated() {
            if index > 0 { list += "," }
            list += String(id)
        }
        list += "]"
        try db.execute(
            sql: """
                INSERT INTO s_members (query, entity_set, entity_id, generation)
                SELECT ?, ?, value, ? FROM json_each(?) WHERE true
                ON CONFLICT (entity_set, entity_id, query) DO UPDATE SET generation = excluded.generation
                """, arguments: [query, table.entitySet, generation, list])
    }

    private func remove(_ entity: ODataEntity, db: Database) throws {
        guard let id = try OfflineStore.rowID(of: entity, table: table, db: db) else { return }
        try db.execute(sql: "DELETE FROM \(table.sql) WHERE _id = ? AND _state = 0", arguments: [id])
        if db.changesCount > 0 {
            try db.execute(
                sql: "DELETE FROM s_members WHERE entity_set = ? AND entity_id = ?", arguments: [table.entitySet, id])
        }
    }

    private func bind(_ value: DatabaseValue, at index: Int32, to statement: SQLiteStatement) -> Int32 {
        switch value.storage {
        case .null: return sqlite3_bind_null(statement, index)
        case .int64(let number): return sqlite3_bind_int64(statement, index, number)
        case .double(let number): return sqlite3_bind_double(statement, index, number)
        case .string(var text):
            return text.withUTF8 { bytes in
                sqlite3_bind_text(
                    statement, index,
                    bytes.baseAddress.map { UnsafeRawPointer($0).assumingMemoryBound(to: CChar.self) },
                    Int32(bytes.count), transient)
            }
        case .blob(let data):
            return data.withUnsafeBytes { bytes in
                sqlite3_bind_blob(statement, index, bytes.baseAddress, Int32(bytes.count), transient)
            }
        }
    }

    private func check(_ code: Int32, _ db: Database) throws {
        if code != SQLITE_OK { throw error(code, db) }
    }

    private func error(_ code: Int32, _ db: Database) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code),
            message: db.sqliteConnection.flatMap { sqlite3_errmsg($0).map { String(cString: $0) } },
            sql: table.upsertSQL)
    }
}

/// SQLite copies the bytes before the bind returns.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
