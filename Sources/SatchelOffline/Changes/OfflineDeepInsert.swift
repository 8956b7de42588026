import Foundation
import GRDB
import SatchelOData

/// Deep insert offline (docs/offline.md, "Deep insert"): an entity created with related entities inline
/// (`order["Items"] = .entities([...])`) is one request, as online. The related entities get rows of their own at
/// once (reads and navigations see them); the creation's request names them (`deep`, as links do) and reads them
/// when it is sent, so changes made to them before then go with it. One level deep.
enum OfflineDeepInsert {
    /// The related entities inline in `entity`, by navigation property, for `table`'s type.
    static func nested(
        in entity: ODataEntity, table: OfflineTable, schema: OfflineSchema
    ) throws
        -> [(relationship: OfflineRelationship, entities: [ODataEntity])]
    {
        var result: [(OfflineRelationship, [ODataEntity])] = []
        for (name, value) in entity.properties {
            let related: [ODataEntity]
            switch value {
            case .entity(let one): related = [one]
            case .entities(let many): related = many
            default: continue
            }
            guard (try? schema.navigationTarget(from: table, navigation: name)) != nil else { continue }
            let relationship = try schema.relationship(from: table, navigation: name)
            for child in related {
                if child.properties.contains(where: {
                    if case .entity = $0.value { return true }
                    if case .entities = $0.value { return true }
                    return false
                }) {
                    throw OfflineStoreError(
                        .unsupported, "the offline store creates related entities one level deep (\(name) has more)")
                }
            }
            result.append((relationship, related))
        }
        return result
    }

    /// Inserts the related entities' rows for the parent row `parent` (values as inserted); returns them as the
    /// creation's `deep` list. A collection's children take the parent's key in their foreign keys; a to-one
    /// child's key goes in the parent's.
    static func insert(
        _ nested: [(relationship: OfflineRelationship, entities: [ODataEntity])], parent: OfflineEntityRef,
        parentTable: OfflineTable, parentValues: [DatabaseValue], db: Database
    ) throws -> [OfflineLink] {
        var deep: [OfflineLink] = []
        for (relationship, children) in nested {
            let table = relationship.target
            for child in children {
                var values = table.columns.map {
                    OfflineValues.databaseValue(OfflineValues.value(of: $0, in: child.properties), for: $0)
                }
                if relationship.isCollection || !relationship.foreignKeyInSource {
                    // The foreign key is the child's: it takes the parent's key.
                    for pair in relationship.pairs {
                        guard let index = table.columns.firstIndex(where: { $0.path == pair.remote.path }),
                            values[index].isNull,
                            let parentIndex = parentTable.columns.firstIndex(where: { $0.path == pair.local.path })
                        else { continue }
                        values[index] = parentValues[parentIndex]
                    }
                }
                let id = try OfflineStore.insertCreated(values, into: table, db: db)
                let reference = OfflineEntityRef(entitySet: table.entitySet, entityID: id)
                if relationship.pairs.isEmpty {
                    try OfflineLinks.add(from: parent, through: relationship, to: reference, db: db)
                } else if !relationship.isCollection, relationship.foreignKeyInSource {
                    let assignments = relationship.pairs.compactMap { pair -> (OfflineColumn, DatabaseValue)? in
                        guard let index = table.columns.firstIndex(where: { $0.path == pair.remote.path }) else {
                            return nil
                        }
                        return (pair.local, values[index])
                    }
                    if !assignments.isEmpty {
                        try db.execute(
                            sql:
                                "UPDATE \(parentTable.sql) SET \(assignments.map { "\($0.0.sql) = ?" }.joined(separator: ", ")) WHERE _id = ?",
                            arguments: StatementArguments(assignments.map(\.1) + [parent.entityID.databaseValue]))
                    }
                }
                deep.append(OfflineLink(navigation: relationship.navigation, target: reference))
            }
        }
        return deep
    }

    /// The related entities as the creation sends them: each row as it is now (nulls left out: the service fills
    /// what the parent decides, such as its key in their foreign keys).
    static func properties(
        of deep: [OfflineLink], table: OfflineTable, schema: OfflineSchema, version: ODataVersion, db: Database
    ) throws -> [(String, ODataValue)] {
        var result: [(String, ODataValue)] = []
        for navigation in deep.map(\.navigation).reduce(into: [String](), { if !$0.contains($1) { $0.append($1) } }) {
            let relationship = try schema.relationship(from: table, navigation: navigation)
            let select = try OfflineSelect(table: relationship.target, query: ODataQuery(), version: version)
            var children: [ODataEntity] = []
            for link in deep where link.navigation == navigation {
                guard
                    let row = try Row.fetchOne(
                        db, sql: "SELECT * FROM \(relationship.target.sql) WHERE _id = ?",
                        arguments: [link.target.entityID])
                else { continue }
                var child = select.entity(from: row)
                child.annotations = [:]
                child.readLink = nil
                child.etag = nil
                var kept = ODataProperties()
                for (name, value) in child.properties where value != .null { kept[name] = value }
                child.properties = kept
                children.append(child)
            }
            result.append(
                (
                    navigation,
                    relationship.isCollection ? .entities(children) : children.first.map { .entity($0) } ?? .null
                ))
        }
        return result
    }

    /// After the creation succeeded: the related entities are on the server. What it answered of them (inline, in
    /// order) is written into their rows; a collection's children take the parent's key as the server gave it.
    static func complete(
        _ deep: [OfflineLink], parent: OfflineEntityRef, answered: ODataEntity?, schema: OfflineSchema, db: Database
    ) throws {
        let parentTable = try schema.table(parent.entitySet)
        guard
            let parentRow = try Row.fetchOne(
                db, sql: "SELECT * FROM \(parentTable.sql) WHERE _id = ?", arguments: [parent.entityID])
        else { return }
        for navigation in Set(deep.map(\.navigation)) {
            let relationship = try schema.relationship(from: parentTable, navigation: navigation)
            let table = relationship.target
            let links = deep.filter { $0.navigation == navigation }
            let returned: [ODataEntity] =
                switch answered?.properties[navigation] {
                case .entities(let many): many
                case .entity(let one): [one]
                default: []
                }
            for (index, link) in links.enumerated() {
                var assignments: [(OfflineColumn, DatabaseValue)] = []
                if index < returned.count {
                    assignments += table.columns.compactMap { column in
                        OfflineValues.value(of: column, in: returned[index].properties).map {
                            (column, OfflineValues.databaseValue($0, for: column))
                        }
                    }
                }
                if relationship.isCollection || !relationship.foreignKeyInSource {
                    for pair in relationship.pairs where !assignments.contains(where: { $0.0.path == pair.remote.path })
                    {
                        assignments.append((pair.remote, parentRow[pair.local.name] ?? .null))
                    }
                }
                var sql =
                    "UPDATE \(table.sql) SET _state = CASE WHEN EXISTS (SELECT 1 FROM q_requests WHERE entity_set = ? AND entity_id = ?) THEN _state ELSE 0 END"
                var arguments: [DatabaseValue] = [table.entitySet.databaseValue, link.target.entityID.databaseValue]
                for (column, value) in assignments {
                    sql += ", \(column.sql) = ?"
                    arguments.append(value)
                }
                try db.execute(
                    sql: sql + " WHERE _id = ?",
                    arguments: StatementArguments(arguments + [link.target.entityID.databaseValue]))
                // A child the server gave a key it did not answer with stays "created": it is not what the server
                // holds until a download brings it.
                if !table.keyColumnNames.isEmpty {
                    try db.execute(
                        sql: """
                            UPDATE \(table.sql) SET _state = \(OfflineState.created.rawValue) WHERE _id = ?
                                AND (\(table.keyColumnNames.map { "\(quoted($0)) IS NULL" }.joined(separator: " OR ")))
                            """, arguments: [link.target.entityID])
                }
                try OfflineLinks.propagateKey(of: link.target, schema: schema, db: db)
            }
        }
    }

    /// The queued creation that carries `entity` inline, if any (`unsent`: only one not sent yet, which changes to
    /// the entity go into).
    static func owner(of entity: OfflineEntityRef, unsent: Bool = true, db: Database) throws -> Int64? {
        try Int64.fetchOne(
            db.cachedStatement(
                sql: """
                    SELECT q.id FROM q_requests q INDEXED BY q_requests_deep
                    WHERE q.deep IS NOT NULL\(unsent ? " AND q.attempted = 0" : "") AND EXISTS (
                        SELECT 1 FROM json_each(q.deep) j
                        WHERE json_extract(j.value, '$[1]') = ? AND json_extract(j.value, '$[2]') = ?)
                    """), arguments: [entity.entitySet, entity.entityID])
    }

    /// Drops the queued requests (and their ErrorArchive entries) of an entity that never reached the server.
    static func forgetRequests(on entity: OfflineEntityRef, db: Database) throws {
        try db.execute(
            sql: "DELETE FROM q_errors WHERE entity_set = ? AND entity_id = ?",
            arguments: [entity.entitySet, entity.entityID])
        try db.execute(
            sql: "DELETE FROM q_requests WHERE entity_set = ? AND entity_id = ?",
            arguments: [entity.entitySet, entity.entityID])
    }

    /// Removes the rows an entity's dropped creations carried inline (they never reached the server).
    static func dropChildren(ofRequestsOn entity: OfflineEntityRef, schema: OfflineSchema, db: Database) throws {
        let lists = try String.fetchAll(
            db, sql: "SELECT deep FROM q_requests WHERE entity_set = ? AND entity_id = ? AND deep IS NOT NULL",
            arguments: [entity.entitySet, entity.entityID])
        for list in lists {
            for link in try OfflineLinks.decode(list) {
                let table = try schema.table(link.target.entitySet)
                try db.execute(sql: "DELETE FROM \(table.sql) WHERE _id = ?", arguments: [link.target.entityID])
                try OfflineStore.forgetRow(link.target, db: db)
                try forgetRequests(on: link.target, db: db)
            }
        }
    }
}
