import Foundation
import GRDB
import SatchelJSON
import SatchelOData

/// A link a queued request sets: a navigation property bound to an entity of the store, named by its entity id so
/// the link survives the target getting its key from the server (docs/offline.md, "Links to entities created
/// offline").
struct OfflineLink: Sendable, Hashable {
    let navigation: String
    let target: OfflineEntityRef
}

enum OfflineLinks {
    /// The key name of an entity id in a path: `Products(satchel_eid=17)` names row 17 of `Products` before and
    /// after its creation is uploaded.
    static let entityIDKey = "satchel_eid"

    /// The links as stored with a request: `[["Category", "Categories", 17], …]`.
    static func encode(_ links: [OfflineLink]) -> String? {
        guard !links.isEmpty else { return nil }
        let items: [JSONValue] = links.map {
            .array([.string($0.navigation), .string($0.target.entitySet), .number(JSONNumber($0.target.entityID))])
        }
        return String(decoding: JSONValue.array(items).serialized(), as: UTF8.self)
    }

    /// The links stored with a request; a damaged list is an error (sent without them, the request would lose
    /// its links silently).
    static func decode(_ text: String?) throws(OfflineStoreError) -> [OfflineLink] {
        guard let text else { return [] }
        let damaged = OfflineStoreError(.damagedQueue, "a queued request's links are damaged: \(text.prefix(80))")
        guard case .array(let items)? = try? JSONValue(parsing: Data(text.utf8)) else { throw damaged }
        var links: [OfflineLink] = []
        for item in items {
            guard case .array(let parts) = item, parts.count == 3, let navigation = parts[0].stringValue,
                let set = parts[1].stringValue, let id = parts[2].int64Value
            else { throw damaged }
            links.append(OfflineLink(navigation: navigation, target: OfflineEntityRef(entitySet: set, entityID: id)))
        }
        return links
    }

    /// Later links over earlier ones: a to-one navigation's replaces the one before, a collection's adds to them.
    static func merge(
        _ later: [OfflineLink], over earlier: [OfflineLink], table: OfflineTable, schema: OfflineSchema
    ) -> [OfflineLink] {
        let replaced = Set(
            later.map(\.navigation).filter {
                (try? schema.relationship(from: table, navigation: $0))?.isCollection != true
            })
        let kept = earlier.filter { !replaced.contains($0.navigation) }
        return kept + later.filter { !kept.contains($0) }
    }

    /// The store's entities an entity's bindings name (`Categories(3)`, `Categories(satchel_eid=17)`, or either
    /// under the service URL), checked against the navigation's target set.
    static func resolve(
        _ bindings: [String: [String]], from table: OfflineTable, schema: OfflineSchema, version: ODataVersion,
        serviceURL: URL?, db: Database
    ) throws -> [OfflineLink] {
        var links: [OfflineLink] = []
        for (navigation, paths) in bindings.sorted(by: { $0.key < $1.key }) {
            let target = try schema.navigationTarget(from: table, navigation: navigation)
            for path in paths {
                let (set, key) = try address(path, serviceURL: serviceURL, version: version)
                guard set == target.entitySet else {
                    throw OfflineStoreError(
                        .invalidReference,
                        "\(table.entitySet)/\(navigation) links to \(target.entitySet), not to \(path)")
                }
                let row = try OfflineStore.row(db, table: target, .key(key))
                links.append(
                    OfflineLink(
                        navigation: navigation, target: OfflineEntityRef(entitySet: set, entityID: row["_id"])))
            }
        }
        return links
    }

    /// The entity set and key of a binding path.
    static func address(
        _ path: String, serviceURL: URL?, version: ODataVersion
    ) throws(OfflineStoreError) -> (
        String, ODataKey
    ) {
        var text = path
        if let root = serviceURL?.absoluteString, text.hasPrefix(root) { text = String(text.dropFirst(root.count)) }
        while text.hasPrefix("/") { text.removeFirst() }
        guard let open = text.firstIndex(of: "("), text.hasSuffix(")"), !text[..<open].contains("/") else {
            throw OfflineStoreError(.invalidReference, "\(path) names no entity of the store (Set(key))")
        }
        let inside = String(text[text.index(after: open)..<text.index(before: text.endIndex)])
        let decoded = inside.removingPercentEncoding ?? inside
        do {
            return (String(text[..<open]), try ODataKey(parsing: decoded, version: version))
        } catch {
            throw OfflineStoreError(
                .invalidReference, "\(path) names no entity of the store: \(error.message)", underlying: error)
        }
    }

    /// The values a row takes from the entities it links to: a to-one navigation with a referential constraint
    /// sets the row's foreign key to the target's key (an entity created offline without its key yet sets null;
    /// its key reaches the row when the server gives it, see ``propagateKey(of:schema:db:)``).
    static func foreignKeys(
        _ links: [OfflineLink], table: OfflineTable, schema: OfflineSchema, db: Database
    ) throws -> [(column: OfflineColumn, value: DatabaseValue)] {
        var values: [(column: OfflineColumn, value: DatabaseValue)] = []
        for link in links {
            guard let relationship = try? schema.relationship(from: table, navigation: link.navigation),
                !relationship.isCollection
            else { continue }
            let pairs = relationship.pairs.filter { !table.keyPaths.contains($0.local.path) }
            guard !pairs.isEmpty else { continue }
            let row = try Row.fetchOne(
                db, sql: "SELECT * FROM \(relationship.target.sql) WHERE _id = ?", arguments: [link.target.entityID])
            for pair in pairs {
                values.append((pair.local, row?[pair.remote.name] ?? .null))
            }
        }
        return values
    }

    /// Properties a link covers: the server sets them from the binding, so the request does not send them (an
    /// entity created offline had no key to copy).
    static func coveredPaths(_ links: [OfflineLink], table: OfflineTable, schema: OfflineSchema) -> Set<String> {
        var paths: Set<String> = []
        for link in links {
            guard let relationship = try? schema.relationship(from: table, navigation: link.navigation),
                !relationship.isCollection
            else { continue }
            for pair in relationship.pairs where !table.keyPaths.contains(pair.local.path) {
                paths.insert(pair.local.path)
            }
        }
        return paths
    }

    /// Replaces the links of `source` through a navigation without a referential constraint (what a download just
    /// read, or a local change made), keeping the partner's direction in step: links stored from the other side that
    /// point at `source` and name none of `targets` go, and when the partner is to-one, each target's partner link to
    /// another entity goes too.
    static func replaceLinks(
        from source: OfflineEntityRef, through relationship: OfflineRelationship, to targets: [OfflineEntityRef],
        db: Database
    ) throws {
        try db.cachedStatement(
            sql: "DELETE FROM s_links WHERE entity_set = ? AND entity_id = ? AND navigation = ?"
        ).execute(arguments: [source.entitySet, source.entityID, relationship.navigation])
        if let partner = relationship.partner {
            try db.execute(
                sql: """
                    DELETE FROM s_links WHERE target_set = ? AND target_id = ? AND entity_set = ? AND navigation = ?
                        AND entity_id NOT IN (SELECT value FROM json_each(?))
                    """,
                arguments: [
                    source.entitySet, source.entityID, relationship.target.entitySet, partner,
                    "[" + targets.map { String($0.entityID) }.joined(separator: ",") + "]",
                ])
        }
        for target in targets { try add(from: source, through: relationship, to: target, db: db) }
    }

    /// Adds one link (and, when the partner is to-one, drops the target's partner link to another entity).
    static func add(
        from source: OfflineEntityRef, through relationship: OfflineRelationship, to target: OfflineEntityRef,
        db: Database
    ) throws {
        try db.cachedStatement(
            sql: """
                INSERT OR IGNORE INTO s_links (entity_set, entity_id, navigation, target_set, target_id)
                VALUES (?, ?, ?, ?, ?)
                """
        ).execute(arguments: [
            source.entitySet, source.entityID, relationship.navigation, target.entitySet, target.entityID,
        ])
        if let partner = relationship.partner, !relationship.partnerIsCollection {
            try db.cachedStatement(
                sql: """
                    DELETE FROM s_links WHERE entity_set = ? AND entity_id = ? AND navigation = ?
                        AND NOT (target_set = ? AND target_id = ?)
                    """
            ).execute(arguments: [target.entitySet, target.entityID, partner, source.entitySet, source.entityID])
        }
    }

    /// Removes one link, in both directions.
    static func remove(
        from source: OfflineEntityRef, through relationship: OfflineRelationship, to target: OfflineEntityRef,
        db: Database
    ) throws {
        let statement = try db.cachedStatement(
            sql: """
                DELETE FROM s_links WHERE entity_set = ? AND entity_id = ? AND navigation = ?
                    AND target_set = ? AND target_id = ?
                """)
        try statement.execute(arguments: [
            source.entitySet, source.entityID, relationship.navigation, target.entitySet, target.entityID,
        ])
        if let partner = relationship.partner {
            try statement.execute(arguments: [
                target.entitySet, target.entityID, partner, source.entitySet, source.entityID,
            ])
        }
    }

    /// A local change's links through navigations without a referential constraint, kept where local navigation
    /// reads find them: a to-one link replaces the one before, a collection's is added.
    static func record(
        _ links: [OfflineLink], from source: OfflineEntityRef, table: OfflineTable, schema: OfflineSchema,
        db: Database
    ) throws {
        for (navigation, group) in Dictionary(grouping: links, by: \.navigation) {
            guard let relationship = try? schema.relationship(from: table, navigation: navigation),
                relationship.pairs.isEmpty
            else { continue }
            if relationship.isCollection {
                for link in group { try add(from: source, through: relationship, to: link.target, db: db) }
            } else {
                try replaceLinks(from: source, through: relationship, to: group.suffix(1).map(\.target), db: db)
            }
        }
    }

    /// Applies the links a V4 delta reports added or removed: for a navigation without a referential constraint, in
    /// `s_links`; for a to-one navigation with one, in the source row's foreign key. A row with local changes keeps
    /// its links until they are uploaded (as it keeps its values); links from or to entities the store does not hold
    /// are ignored, as the service's other entities are.
    static func apply(
        _ changes: [ODataLinkChange], schema: OfflineSchema, version: ODataVersion, serviceURL: URL?, db: Database
    ) throws {
        for change in changes {
            guard let (sourceSet, sourceKey) = try? address(change.source, serviceURL: serviceURL, version: version),
                let (targetSet, targetKey) = try? address(change.target, serviceURL: serviceURL, version: version),
                let sourceTable = schema.tables[sourceSet],
                let relationship = try? schema.relationship(from: sourceTable, navigation: change.relationship),
                relationship.target.entitySet == targetSet,
                let sourceRow = try storedRow(sourceTable, sourceKey, db: db),
                sourceRow["_state"] as Int == OfflineState.downloaded.rawValue
            else { continue }
            let source = OfflineEntityRef(entitySet: sourceSet, entityID: sourceRow["_id"])
            if relationship.pairs.isEmpty {
                guard let targetRow = try storedRow(relationship.target, targetKey, db: db) else { continue }
                let target = OfflineEntityRef(entitySet: targetSet, entityID: targetRow["_id"])
                if change.removed {
                    try remove(from: source, through: relationship, to: target, db: db)
                } else if relationship.isCollection {
                    try add(from: source, through: relationship, to: target, db: db)
                } else {
                    try replaceLinks(from: source, through: relationship, to: [target], db: db)
                }
                continue
            }
            // A to-one navigation with a referential constraint: the foreign key takes the target's key (from its
            // id: the target need not be in the store).
            let pairs = relationship.pairs.filter { !sourceTable.keyPaths.contains($0.local.path) }
            guard !relationship.isCollection, !pairs.isEmpty else { continue }
            let parts = Dictionary(
                targetKey.parts.map {
                    ($0.name.isEmpty ? relationship.target.keyPaths.first ?? "" : $0.name, $0.value)
                },
                uniquingKeysWith: { first, _ in first })
            let keyValues = pairs.map { pair in
                parts[pair.remote.path].map { OfflineValues.storedValue($0, for: pair.local) }
            }
            guard keyValues.allSatisfy({ $0 != nil }) else { continue }
            var sql =
                "UPDATE \(sourceTable.sql) SET \(pairs.map { "\($0.local.sql) = ?" }.joined(separator: ", ")) WHERE _id = ?"
            var arguments: [DatabaseValue] =
                keyValues.map { change.removed ? .null : $0 ?? .null } + [source.entityID.databaseValue]
            if change.removed {
                // Only if it still names that target (a `$link` to another may have come first).
                sql += pairs.map { " AND \($0.local.sql) IS ?" }.joined()
                arguments += keyValues.map { $0 ?? .null }
            }
            try db.execute(sql: sql, arguments: StatementArguments(arguments))
        }
    }

    /// The row of an entity the store holds, or nil (a delta may name any entity of the service).
    private static func storedRow(_ table: OfflineTable, _ key: ODataKey, db: Database) throws -> Row? {
        do {
            return try OfflineStore.row(db, table: table, .key(key), includingDeleted: true)
        } catch let error as OfflineStoreError
            where [.entityNotFound, .invalidReference, .unknownProperty].contains(error.code)
        {
            return nil
        }
    }

    /// Removes every link from or to an entity (its row is gone).
    static func forget(_ entity: OfflineEntityRef, db: Database) throws {
        try db.cachedStatement(
            sql: "DELETE FROM s_links WHERE (entity_set = ? AND entity_id = ?) OR (target_set = ? AND target_id = ?)"
        ).execute(arguments: [entity.entitySet, entity.entityID, entity.entitySet, entity.entityID])
    }

    /// Removes the links from or to rows of `table` that are gone.
    static func forgetVanished(in table: OfflineTable, db: Database) throws {
        try db.execute(
            sql: """
                DELETE FROM s_links WHERE (entity_set = ? AND entity_id NOT IN (SELECT _id FROM \(table.sql)))
                    OR (target_set = ? AND target_id NOT IN (SELECT _id FROM \(table.sql)))
                """, arguments: [table.entitySet, table.entitySet])
    }

    /// After an entity created offline got its key from the server: the rows whose queued requests link to it
    /// take that key in their foreign key columns (local navigations find it again).
    static func propagateKey(of created: OfflineEntityRef, schema: OfflineSchema, db: Database) throws {
        let dependants = try Row.fetchAll(
            try db.cachedStatement(
                sql: """
                    SELECT q.entity_set, q.entity_id, q.links FROM q_requests q INDEXED BY q_requests_links
                    WHERE q.links IS NOT NULL AND q.method <> 'UNLINK' AND EXISTS (
                        SELECT 1 FROM json_each(q.links) j
                        WHERE json_extract(j.value, '$[1]') = ? AND json_extract(j.value, '$[2]') = ?)
                    """), arguments: [created.entitySet, created.entityID])
        for dependant in dependants {
            let table = try schema.table(dependant["entity_set"])
            let links = try decode(dependant["links"]).filter { $0.target == created }
            let values = try foreignKeys(links, table: table, schema: schema, db: db)
            guard !values.isEmpty else { continue }
            try db.execute(
                sql:
                    "UPDATE \(table.sql) SET \(values.map { "\($0.column.sql) = ?" }.joined(separator: ", ")) WHERE _id = ?",
                arguments: StatementArguments(values.map(\.value) + [(dependant["entity_id"] as Int64).databaseValue]))
        }
    }
}
