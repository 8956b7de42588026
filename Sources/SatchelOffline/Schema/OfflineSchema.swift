import Foundation
import GRDB
import SatchelOData
import SatchelText

/// How a primitive value is kept in its column (docs/offline.md, "The store").
enum OfflineColumnKind: Sendable, Equatable {
    /// Int*, Byte, SByte: INTEGER.
    case integer
    /// Boolean: INTEGER 0 or 1.
    case boolean
    /// Double, Single: REAL.
    case real
    /// Decimal: TEXT with its exact digits; compared as a number.
    case decimal
    /// String, Guid (lower case), Date (`YYYY-MM-DD`), TimeOfDay, Duration, enum members: TEXT.
    case text(EDMPrimitiveType?)
    /// DateTime, DateTimeOffset: INTEGER milliseconds since 1970 (UTC).
    case milliseconds(EDMPrimitiveType)
    /// Binary: BLOB.
    case blob
    /// Collections, geography, untyped: TEXT (JSON).
    case json
    /// The offset of the DateTimeOffset column before it, in minutes (its column holds the instant): INTEGER.
    case offsetMinutes
}

/// One column of an entity set's table: a primitive property, or one inside a complex property (`Address/City`).
struct OfflineColumn: Sendable {
    /// The property path (`Address/City`).
    let path: String
    /// Whether the path goes into a complex property.
    let isNested: Bool
    /// The SQL column name: the path, unless SQLite would confuse it with another column (SQLite compares names
    /// without case: `ID` and `Id`) or an internal one (`_id`, `_state`…), then the path and a number.
    let name: String
    /// The SQL column name, quoted.
    let sql: String

    init(path: String, name: String, kind: OfflineColumnKind, enumType: String?, offsetColumn: String? = nil) {
        self.path = path
        self.name = name
        sql = quoted(name)
        self.kind = kind
        self.enumType = enumType
        self.offsetColumn = offsetColumn
        isNested = path.utf8.contains(UInt8(ascii: "/"))
    }
    let kind: OfflineColumnKind
    /// The enum type's qualified name, for enum members.
    let enumType: String?
    /// A DateTimeOffset's companion column: the offset the value was written with (`Modified@offset`).
    let offsetColumn: String?

    /// The property an offset column belongs to (`Modified` for `Modified@offset`); the path itself otherwise.
    var propertyPath: String {
        kind == .offsetMinutes ? String(path.dropLast(Self.offsetSuffix.count)) : path
    }

    static let offsetSuffix = "@offset"

    /// The SQLite column type.
    var affinity: String {
        switch kind {
        case .integer, .boolean, .milliseconds, .offsetMinutes: "INTEGER"
        case .real: "REAL"
        case .blob: "BLOB"
        case .decimal, .text, .json: "TEXT"
        }
    }
}

/// An entity set's table: the entity type's primitive properties as typed columns, plus `_id` (the internal
/// entity id), `_etag` and `_state`.
struct OfflineTable: Sendable {
    let entitySet: String
    let entityTypeName: String
    /// `e_<EntitySet>` (SQLite's names ignore case: a set whose name differs from another's only by case gets a
    /// number, `e_products#2`); its indexes' names start with it.
    let name: String
    /// ``name``, quoted.
    let sql: String
    let columns: [OfflineColumn]
    let keyPaths: [String]
    /// The key properties' primitive types (for key predicates in URLs).
    let keyTypes: [String: EDMPrimitiveType]
    /// The key properties' column names.
    let keyColumnNames: [String]
    private let byPath: [String: Int]

    init(entitySet: String, type: CSDLEntityType, metadata: ODataMetadata, name: String? = nil) {
        self.entitySet = entitySet
        entityTypeName = type.qualifiedName
        self.name = name ?? "e_" + entitySet
        sql = quoted(self.name)
        var columns: [OfflineColumn] = []
        Self.addColumns(
            of: metadata.allProperties(of: type), prefix: "", metadata: metadata, depth: 0, into: &columns)
        // Names SQLite would take for the same column get a number.
        var taken: Set<String> = ["_id", "_etag", "_state", "_server"]
        let renamed = columns.map { column in
            var name = column.path
            var number = 2
            while !taken.insert(name.lowercased()).inserted {
                name = "\(column.path)#\(number)"
                number += 1
            }
            return OfflineColumn(path: column.path, name: name, kind: column.kind, enumType: column.enumType)
        }
        // Each DateTimeOffset column knows its offset's column (the one after it).
        self.columns = renamed.enumerated().map { index, column in
            guard column.kind == .milliseconds(.dateTimeOffset), index + 1 < renamed.count,
                renamed[index + 1].kind == .offsetMinutes
            else { return column }
            return OfflineColumn(
                path: column.path, name: column.name, kind: column.kind, enumType: nil,
                offsetColumn: renamed[index + 1].name)
        }
        keyPaths = metadata.key(of: type)
        var keyTypes: [String: EDMPrimitiveType] = [:]
        for property in metadata.allProperties(of: type) where keyPaths.contains(property.name) {
            keyTypes[property.name] = property.type.primitive
        }
        self.keyTypes = keyTypes
        let named = self.columns
        keyColumnNames = keyPaths.compactMap { path in named.first(where: { $0.path == path })?.name }
        var byPath: [String: Int] = [:]
        for (index, column) in columns.enumerated() { byPath[column.path] = index }
        self.byPath = byPath
    }

    func column(_ path: String) -> OfflineColumn? { byPath[path].map { columns[$0] } }

    /// Primitive properties become columns; complex ones are flattened (up to four levels, cycles cut).
    private static func addColumns(
        of properties: [CSDLProperty], prefix: String, metadata: ODataMetadata, depth: Int,
        into columns: inout [OfflineColumn]
    ) {
        for property in properties {
            let path = prefix + property.name
            let type = property.type
            if type.isCollection {
                columns.append(OfflineColumn(path: path, name: path, kind: .json, enumType: nil))
                continue
            }
            if let complex = metadata.complexType(named: type.name) {
                if depth < 4 {
                    addColumns(
                        of: metadata.allProperties(of: complex), prefix: path + "/", metadata: metadata,
                        depth: depth + 1, into: &columns)
                }
                continue
            }
            if metadata.enumType(named: type.name) != nil {
                columns.append(OfflineColumn(path: path, name: path, kind: .text(nil), enumType: type.name))
                continue
            }
            let primitive = type.primitive ?? metadata.typeDefinition(named: type.name)?.underlyingType.primitive
            columns.append(OfflineColumn(path: path, name: path, kind: kind(of: primitive), enumType: nil))
            if primitive == .dateTimeOffset {
                let offset = path + OfflineColumn.offsetSuffix
                columns.append(OfflineColumn(path: offset, name: offset, kind: .offsetMinutes, enumType: nil))
            }
        }
    }

    static func kind(of primitive: EDMPrimitiveType?) -> OfflineColumnKind {
        switch primitive {
        case .byte, .sbyte, .int16, .int32, .int64: .integer
        case .boolean: .boolean
        case .single, .double: .real
        case .decimal: .decimal
        case .dateTime: .milliseconds(.dateTime)
        case .dateTimeOffset: .milliseconds(.dateTimeOffset)
        case .binary, .stream: .blob
        case .string, .guid, .date, .time, .timeOfDay, .duration: .text(primitive)
        default: .json
        }
    }

    var createStatements: [String] {
        var definitions = [
            "_id INTEGER PRIMARY KEY", "_etag TEXT", "_state INTEGER NOT NULL DEFAULT 0", "_server TEXT",
        ]
        for column in columns { definitions.append("\(column.sql) \(column.affinity)") }
        var statements = ["CREATE TABLE IF NOT EXISTS \(sql) (\(definitions.joined(separator: ", ")))"]
        let keys = keyPaths.compactMap { column($0)?.sql }
        if !keys.isEmpty, keys.count == keyPaths.count {
            statements.append(
                "CREATE UNIQUE INDEX IF NOT EXISTS \(quoted(name + "_key")) ON \(sql) (\(keys.joined(separator: ", ")))"
            )
        }
        return statements
    }
}

/// The tables of every entity set of a service.
struct OfflineSchema: Sendable {
    let metadata: ODataMetadata
    let tables: [String: OfflineTable]

    init(metadata: ODataMetadata) {
        self.metadata = metadata
        var tables: [String: OfflineTable] = [:]
        // In the `$metadata`'s order, so a store made before another set was added keeps its names.
        var taken: Set<String> = []
        for set in metadata.entitySets where !set.isSingleton {
            guard let type = metadata.entityType(named: set.entityType) else { continue }
            var name = "e_" + set.name
            var number = 2
            while !taken.insert(name.lowercased()).inserted {
                name = "e_\(set.name)#\(number)"
                number += 1
            }
            tables[set.name] = OfflineTable(entitySet: set.name, type: type, metadata: metadata, name: name)
        }
        self.tables = tables
    }

    func table(_ entitySet: String) throws(OfflineStoreError) -> OfflineTable {
        guard let table = tables[entitySet] else {
            throw OfflineStoreError(.unknownEntitySet, "the offline store has no entity set \(entitySet)")
        }
        return table
    }

    /// Creates the secondary indexes: entity set (or entity type: each of its sets) → property paths, one index each
    /// (SAP's `indexed_type`). A name that is neither, or a path the set lacks, throws `OfflineStoreError` (`invalidConfiguration`).
    func createIndexes(_ indexes: [String: [String]], db: Database) throws {
        for (name, paths) in indexes.sorted(by: { $0.key < $1.key }) {
            let tables =
                self.tables[name].map { [$0] }
                ?? self.tables.values.filter { $0.entityTypeName == name }.sorted { $0.entitySet < $1.entitySet }
            guard !tables.isEmpty else {
                throw OfflineStoreError(
                    .invalidConfiguration, "\(name) is neither an entity set nor an entity type to index")
            }
            for table in tables {
                for path in paths {
                    guard let column = table.column(path) else {
                        throw OfflineStoreError(
                            .invalidConfiguration, "\(table.entitySet) has no property \(path) to index")
                    }
                    let index = quoted("\(table.name)_i_\(column.name)")
                    try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(index) ON \(table.sql) (\(column.sql))")
                }
            }
        }
    }

    /// Creates the tables (and their key and foreign-key indexes).
    func create(in db: Database) throws {
        for table in tables.values.sorted(by: { $0.entitySet < $1.entitySet }) {
            for statement in table.createStatements { try db.execute(sql: statement) }
            // A store made by an earlier version may lack columns added since (a DateTimeOffset's offset).
            let existing = Set(
                try Row.fetchAll(db, sql: "PRAGMA table_info(\(table.sql))").map { ($0["name"] as String).lowercased() }
            )
            for column in table.columns where !existing.contains(column.name.lowercased()) {
                try db.execute(sql: "ALTER TABLE \(table.sql) ADD COLUMN \(column.sql) \(column.affinity)")
            }
            // Indexes on the dependent properties of referential constraints: the joins of navigation reads.
            guard let type = metadata.entityType(named: table.entityTypeName) else { continue }
            for navigation in metadata.allNavigationProperties(of: type) {
                for constraint in navigation.referentialConstraints {
                    guard let column = table.column(constraint.property) else { continue }
                    let name = quoted("\(table.name)_fk_\(column.name)")
                    try db.execute(sql: "CREATE INDEX IF NOT EXISTS \(name) ON \(table.sql) (\(column.sql))")
                }
            }
        }
    }
}

/// How two entity sets' rows relate: the columns equal on both sides (from a referential constraint), or, for a
/// navigation without one, the links a defining query's `$expand` brought (`s_links`, either direction).
struct OfflineRelationship {
    let source: OfflineTable
    let navigation: String
    let target: OfflineTable
    let pairs: [(local: OfflineColumn, remote: OfflineColumn)]
    /// The navigation back from the target, when the model names one.
    let partner: String?
    /// Whether that partner is collection-valued.
    let partnerIsCollection: Bool
    let isCollection: Bool

    /// Whether the referential constraint's foreign key is in the source's row (not only its key): a to-one
    /// navigation whose constraint is its partner's keeps the foreign key in the target's row.
    var foreignKeyInSource: Bool { pairs.contains { !source.keyPaths.contains($0.local.path) } }

    /// SQL that holds when the target row aliased `inner` is related to the source row aliased `outer`.
    func join(inner: String, outer: String) -> String {
        if !pairs.isEmpty {
            return pairs.map { "\(inner).\($0.remote.sql) = \(outer).\($0.local.sql)" }.joined(separator: " AND ")
        }
        return linked(inner: inner, sourceID: "\(outer)._id")
    }

    /// The condition on target rows (aliased `t0`) related to one source row: by the row's own values, so the
    /// target's foreign-key index (or the links' key) answers it.
    func restriction(toSourceRow row: Row) -> OfflineSQL {
        if !pairs.isEmpty {
            return OfflineSQL(
                sql: pairs.map { "t0.\($0.remote.sql) = ?" }.joined(separator: " AND "),
                arguments: pairs.map { row[$0.local.name] ?? .null })
        }
        let id: DatabaseValue = row["_id"] ?? .null
        return OfflineSQL(sql: linked(inner: "t0", sourceID: "?"), arguments: partner == nil ? [id] : [id, id])
    }

    /// Target rows `inner` linked from the source row whose id is `sourceID` (SQL: a column or `?`, used once per
    /// direction), through this navigation or back through its partner.
    private func linked(inner: String, sourceID: String) -> String {
        let forward = """
            \(inner)._id IN (SELECT target_id FROM s_links WHERE entity_set = \(sqlText(source.entitySet)) \
            AND entity_id = \(sourceID) AND navigation = \(sqlText(navigation)))
            """
        guard let partner else { return forward }
        return """
            (\(forward) OR \(inner)._id IN (SELECT entity_id FROM s_links WHERE target_set = \(sqlText(source.entitySet)) \
            AND target_id = \(sourceID) AND entity_set = \(sqlText(target.entitySet)) AND navigation = \(sqlText(partner))))
            """
    }
}

/// A string as an SQL literal.
func sqlText(_ text: String) -> String { text.singleQuoted(.doubled) }

extension OfflineSchema {
    /// The related entity set of `navigation` and how rows join: the columns of the navigation's own referential
    /// constraint, or its partner's read the other way; without either, the links downloaded with `$expand`.
    func relationship(from table: OfflineTable, navigation: String) throws(OfflineStoreError) -> OfflineRelationship {
        let (property, target) = try navigationProperty(from: table, navigation: navigation)
        var pairs: [(local: OfflineColumn, remote: OfflineColumn)] = []
        if !property.referentialConstraints.isEmpty {
            for constraint in property.referentialConstraints {
                guard let local = table.column(constraint.property),
                    let remote = target.column(constraint.referencedProperty)
                else { continue }
                pairs.append((local, remote))
            }
        } else if let partnerName = property.partner,
            let targetType = metadata.entityType(named: target.entityTypeName),
            let partner = metadata.allNavigationProperties(of: targetType).first(where: { $0.name == partnerName })
        {
            for constraint in partner.referentialConstraints {
                guard let local = table.column(constraint.referencedProperty),
                    let remote = target.column(constraint.property)
                else { continue }
                pairs.append((local, remote))
            }
        }
        let partner = property.partner.flatMap { name in
            metadata.entityType(named: target.entityTypeName).flatMap { type in
                metadata.allNavigationProperties(of: type).first { $0.name == name }
            }
        }
        return OfflineRelationship(
            source: table, navigation: navigation, target: target, pairs: pairs, partner: partner?.name,
            partnerIsCollection: partner?.type.isCollection ?? false, isCollection: property.type.isCollection)
    }
}

extension OfflineSchema {
    /// The table a navigation property leads to (its entity set's navigation binding, else the one set of its type).
    func navigationTarget(from table: OfflineTable, navigation: String) throws(OfflineStoreError) -> OfflineTable {
        try navigationProperty(from: table, navigation: navigation).target
    }

    private func navigationProperty(
        from table: OfflineTable, navigation: String
    ) throws(OfflineStoreError) -> (
        property: CSDLNavigationProperty, target: OfflineTable
    ) {
        guard let type = metadata.entityType(named: table.entityTypeName),
            let property = metadata.allNavigationProperties(of: type).first(where: { $0.name == navigation })
        else {
            throw OfflineStoreError(.unknownProperty, "\(table.entitySet) has no navigation property \(navigation)")
        }
        let targetSet =
            metadata.entitySet(named: table.entitySet)?.navigationBindings[navigation]
            ?? metadata.entitySets.first(where: { $0.entityType == property.type.name })?.name
        guard let targetSet, let target = tables[targetSet] else {
            throw OfflineStoreError(
                .unsupported, "\(table.entitySet)/\(navigation) leads to no entity set in the store")
        }
        return (property, target)
    }
}

/// An SQL identifier in double quotes (inner quotes doubled).
func quoted(_ name: String) -> String { "\"" + name.escapingScalars { $0 == "\"" ? "\"\"" : nil } + "\"" }
