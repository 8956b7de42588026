import Foundation
import GRDB
import GRDBSQLite
import SatchelOData

/// Stores one downloaded page in one transaction: each entity's row upserted by its key (a row with local changes
/// not uploaded yet keeps them), removals (`@removed`, `__deleted`) applied, entities brought by `$expand` stored in
/// their own tables (with their links, for navigations without a referential constraint), then the page's
/// memberships in one statement per set. Values are bound to SQLite column by column, without building argument
/// arrays per entity (the download's hot path; docs/offline.md, "Measured").
struct OfflinePageWriter {
    let shape: OfflineShape
    let query: String
    let generation: Int64

    func write(_ entities: [ODataEntity], db: Database) throws {
        var members: [String: [Int64]] = [:]
        members[shape.table.entitySet, default: []].reserveCapacity(entities.count)
        let upsert = try db.makeStatement(sql: shape.table.upsertSQL(columns: shape.columns))
        for (index, entity) in entities.enumerated() {
            let location = "\(shape.table.entitySet)[\(index)]"
            if let id = try store(entity, shape: shape, upsert: upsert, location: location, db: db) {
                members[shape.table.entitySet, default: []].append(id)
            }
            if !shape.expansions.isEmpty {
                try storeRelated(of: entity, shape: shape, members: &members, location: location, db: db)
            }
        }
        // The rows went in through SQLite directly: observers of these tables (observed queries) are told here.
        if !entities.isEmpty {
            for table in shape.tables { try db.notifyChanges(in: Table(table.name)) }
        }
        for (set, ids) in members where !ids.isEmpty {
            var list = "["
            for (index, id) in ids.enumerated() {
                if index > 0 { list += "," }
                list += String(id)
            }
            list += "]"
            try db.execute(
                sql: """
                    INSERT INTO s_members (query, entity_set, entity_id, generation)
                    SELECT ?, ?, value, ? FROM json_each(?) WHERE true
                    ON CONFLICT (entity_set, entity_id, query) DO UPDATE SET generation = excluded.generation
                    """, arguments: [query, set, generation, list])
        }
    }

    /// Upserts one entity's row (or applies its removal); its row id, unless removed. `location` says where the
    /// entity was in the page (`Customers[3].Orders[1]`), for errors.
    private func store(
        _ entity: ODataEntity, shape: OfflineShape, upsert: Statement, location: @autoclosure () -> String,
        db: Database
    ) throws -> Int64? {
        let table = shape.table
        if entity.isRemoved {
            try remove(entity, table: table, db: db)
            return nil
        }
        let keyFromLink = try Self.keyFromLink(of: entity, table: table, location: location)
        let handle = upsert.sqliteStatement
        sqlite3_reset(handle)
        try check(bind(entity.etag?.databaseValue ?? .null, at: 1, to: handle), upsert, db)
        for (index, column) in shape.columns.enumerated() {
            let value =
                keyFromLink[column.path].map { OfflineValues.storedValue($0, for: column) }
                ?? OfflineValues.databaseValue(OfflineValues.value(of: column, in: entity.properties), for: column)
            try check(bind(value, at: Int32(index + 2), to: handle), upsert, db)
        }
        let id: Int64?
        switch sqlite3_step(handle) {
        case SQLITE_ROW: id = sqlite3_column_int64(handle, 0)
        case SQLITE_DONE: id = nil
        case let code: throw error(code, upsert, db)
        }
        sqlite3_reset(handle)
        // No id when the row has local changes: found by its key.
        return try id ?? OfflineStore.rowID(of: entity, table: table, db: db)
    }

    /// The key values an entity lacks, read from its id or read link (`Orders(7)`): empty when its key
    /// properties are all there. An entity whose key is missing and cannot be read from a link is refused: a row
    /// with a null key would stand for no entity, and every download would add another.
    static func keyFromLink(
        of entity: ODataEntity, table: OfflineTable, location: () -> String
    ) throws -> [String: ODataLiteral] {
        let found = missingKey(of: entity, table: table)
        guard let values = found.values else {
            let names = found.missing.joined(separator: ", ")
            throw ODataError(
                .invalidPayload,
                "an entity of \(table.entitySet) came without its key (\(names))"
                    + (found.link.map { " and its link \($0) does not name it" }
                        ?? " and without a link to read it from"),
                location: location())
        }
        return values
    }

    /// The key properties an entity lacks (absent or null) and their values read from its id, read link or edit
    /// link, in that order: `values` is nil when a lacking one is not in the link. The one rule every lookup of a
    /// downloaded entity's row follows.
    static func missingKey(
        of entity: ODataEntity, table: OfflineTable
    ) -> (missing: [String], values: [String: ODataLiteral]?, link: String?) {
        func lacks(_ path: String) -> Bool { (entity.properties[path] ?? .null) == .null }
        // The common case, without allocating: every key property is there.
        guard table.keyPaths.contains(where: lacks) else { return ([], [:], nil) }
        let missing = table.keyPaths.filter(lacks)
        let link = entity.id ?? entity.readLink ?? entity.editLink
        let fromLink = link.map { OfflineStore.keyValues(inID: $0, keyPaths: table.keyPaths) } ?? [:]
        guard missing.allSatisfy({ fromLink[$0] != nil }) else { return (missing, nil, link) }
        return (missing, fromLink.filter { missing.contains($0.key) }, link)
    }

    /// The entities `$expand` brought with `entity`, stored with their own shape; for a navigation without a
    /// referential constraint, the entity's links through it are replaced by the ones just read.
    private func storeRelated(
        of entity: ODataEntity, shape: OfflineShape, members: inout [String: [Int64]], location: String,
        db: Database
    ) throws {
        guard !entity.isRemoved else { return }
        var parentID: Int64?
        for expansion in shape.expansions {
            let navigation = expansion.relationship.navigation
            let related: [ODataEntity]
            switch entity.properties[navigation] {
            case .entity(let one): related = [one]
            case .entities(let many): related = many
            case .null: related = []
            default: continue  // not expanded in this payload
            }
            let upsert = try db.cachedStatement(sql: expansion.shape.table.upsertSQL(columns: expansion.shape.columns))
            var ids: [Int64] = []
            for (index, child) in related.enumerated() {
                let here = "\(location).\(navigation)[\(index)]"
                if let id = try store(child, shape: expansion.shape, upsert: upsert, location: here, db: db) {
                    ids.append(id)
                    members[expansion.shape.table.entitySet, default: []].append(id)
                }
                if !expansion.shape.expansions.isEmpty {
                    try storeRelated(of: child, shape: expansion.shape, members: &members, location: here, db: db)
                }
            }
            guard expansion.relationship.pairs.isEmpty else { continue }
            if parentID == nil { parentID = try OfflineStore.rowID(of: entity, table: shape.table, db: db) }
            guard let parentID else { continue }
            // A row with local changes keeps its links until they are uploaded, as it keeps its values.
            let state = try Int.fetchOne(
                db.cachedStatement(sql: "SELECT _state FROM \(shape.table.sql) WHERE _id = ?"), arguments: [parentID])
            guard state == OfflineState.downloaded.rawValue else { continue }
            try OfflineLinks.replaceLinks(
                from: OfflineEntityRef(entitySet: shape.table.entitySet, entityID: parentID),
                through: expansion.relationship,
                to: ids.map { OfflineEntityRef(entitySet: expansion.shape.table.entitySet, entityID: $0) }, db: db)
        }
    }

    private func remove(_ entity: ODataEntity, table: OfflineTable, db: Database) throws {
        guard let id = try OfflineStore.rowID(of: entity, table: table, db: db) else { return }
        try db.execute(sql: "DELETE FROM \(table.sql) WHERE _id = ? AND _state = 0", arguments: [id])
        if db.changesCount > 0 {
            try db.execute(
                sql: "DELETE FROM s_members WHERE entity_set = ? AND entity_id = ?", arguments: [table.entitySet, id])
            try OfflineStore.forgetRow(OfflineEntityRef(entitySet: table.entitySet, entityID: id), db: db)
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

    private func check(_ code: Int32, _ statement: Statement, _ db: Database) throws {
        if code != SQLITE_OK { throw error(code, statement, db) }
    }

    private func error(_ code: Int32, _ statement: Statement, _ db: Database) -> DatabaseError {
        DatabaseError(
            resultCode: ResultCode(rawValue: code),
            message: db.sqliteConnection.flatMap { sqlite3_errmsg($0).map { String(cString: $0) } },
            sql: statement.sql)
    }
}

/// SQLite copies the bytes before the bind returns.
private let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)
