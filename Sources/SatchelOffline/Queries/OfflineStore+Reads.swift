import Foundation
import GRDB
public import SatchelOData
import SatchelStore
import Synchronization

/// Reads from the store, with the same queries as online, run as SQL.
extension OfflineStore {

    /// The entities of `entitySet` that `query` selects, read from the store: `$filter`, `$orderby`, `$top`,
    /// `$skip` and `$select` run as SQL.
    public func entities(_ entitySet: String, query: ODataQuery = ODataQuery()) async throws -> [ODataEntity] {
        try await entities(ODataPath(entitySet), query: query)
    }

    /// The entities at `path` that `query` selects: an entity set, or a navigation from one entity
    /// (`Categories(1)/Products`, joined on the referential constraint). `$expand` of navigation properties (with
    /// their own `$filter`, `$select`, `$orderby`, `$top`) adds the related entities to each.
    public func entities(_ path: ODataPath, query: ODataQuery) async throws -> [ODataEntity] {
        let opened = try current()
        let target = try OfflineTarget(path: path, schema: opened.schema)
        return try await opened.store.database.read { db in
            try Self.read(target, query: query, opened: opened, db: db)
        }
    }

    /// The entities of `target` that `query` selects, with their expansions, in one read.
    static func read(
        _ target: OfflineTarget, query: ODataQuery, opened: Opened, db: Database
    ) throws -> [ODataEntity] {
        let restriction = try target.restriction(db: db)
        let select = try OfflineSelect(
            table: target.table, query: query, version: opened.version, schema: opened.schema,
            restriction: restriction)
        let rows = try Row.fetchAll(db, sql: select.sql, arguments: StatementArguments(select.arguments))
        var entities = rows.map { select.entity(from: $0) }
        for expand in query.expand {
            let navigation = String(expand.path.split(separator: "/").first ?? "")
            let relationship = try opened.schema.relationship(from: target.table, navigation: navigation)
            for (index, row) in rows.enumerated() {
                let related = try Self.related(
                    row, relationship: relationship, query: expand.options ?? ODataQuery(), opened: opened, db: db)
                entities[index][navigation] =
                    relationship.isCollection ? .entities(related) : (related.first.map { .entity($0) } ?? .null)
            }
        }
        return entities
    }

    /// The entities related to `row` through `relationship`.
    static func related(
        _ row: Row, relationship: OfflineRelationship, query: ODataQuery, opened: Opened, db: Database
    ) throws -> [ODataEntity] {
        let restriction = relationship.restriction(toSourceRow: row)
        let select = try OfflineSelect(
            table: relationship.target, query: query, version: opened.version, schema: opened.schema,
            restriction: restriction)
        return try Row.fetchAll(db, sql: select.sql, arguments: StatementArguments(select.arguments)).map {
            select.entity(from: $0)
        }
    }

    /// How many entities of `entitySet` `query`'s `$filter` selects.
    public func count(_ entitySet: String, query: ODataQuery = ODataQuery()) async throws -> Int {
        try await countEntities(at: ODataPath(entitySet), query: query)
    }

    /// How many entities at `path` (a set, or a navigation from one entity) `query`'s `$filter` selects.
    func countEntities(at path: ODataPath, query: ODataQuery) async throws -> Int {
        let opened = try current()
        let target = try OfflineTarget(path: path, schema: opened.schema)
        return try await opened.store.database.read { db in
            let select = try OfflineSelect(
                table: target.table, query: query, version: opened.version, schema: opened.schema, counting: true,
                restriction: try target.restriction(db: db))
            return try Int.fetchOne(db, sql: select.sql, arguments: StatementArguments(select.arguments)) ?? 0
        }
    }
}
