import Foundation
import GRDB
public import SatchelOData
import SatchelStore

/// Links added and removed offline (docs/offline.md, "Links"): made locally at once (the links table, or the foreign
/// key of a referential constraint) and queued as requests of their own (`LINK`, `UNLINK`: `$ref` in V4, `$links`
/// in V2).
extension OfflineStore {
    /// Links an entity to another through `navigation` (`target`: a path to an entity of the store, by key or read
    /// link): adds to a collection, or replaces a to-one link.
    public func addLink(
        _ entitySet: String, _ reference: EntityReference, navigation: String, to target: String,
        options: OfflineChangeOptions = OfflineChangeOptions()
    ) async throws {
        try await changeLink(entitySet, reference, navigation, target, removing: false, options: options)
    }

    /// Removes a link: for a collection, the one to `target`; for a to-one navigation, `target: nil`.
    public func removeLink(
        _ entitySet: String, _ reference: EntityReference, navigation: String, to target: String? = nil,
        options: OfflineChangeOptions = OfflineChangeOptions()
    ) async throws {
        try await changeLink(entitySet, reference, navigation, target, removing: true, options: options)
    }

    private func changeLink(
        _ entitySet: String, _ reference: EntityReference, _ navigation: String, _ target: String?, removing: Bool,
        options: OfflineChangeOptions
    ) async throws {
        let opened = try current()
        let serviceURL = configuration.service.configuration.serviceURL
        try await opened.store.database.write { db in
            try Self.link(
                entitySet, reference, navigation: navigation, target: target, removing: removing, options: options,
                opened: opened, serviceURL: serviceURL, db: db)
        }
    }

    /// `ODataProvider`'s link, made offline as `addLink(_:_:navigation:to:options:)` makes it: `source` is an
    /// entity set and a key. `replace` is not consulted: a to-one link is always replaced, a collection added to.
    public func addLink(from source: ODataPath, navigation: String, to target: ODataPath, replace: Bool) async throws {
        let (set, key) = try Self.address(source)
        guard let key else { throw OfflineStoreError(.invalidReference, "\(source) names no entity (no key)") }
        try await addLink(set, .key(key), navigation: navigation, to: target.description)
    }

    /// `ODataProvider`'s link removal, made offline as `removeLink(_:_:navigation:to:options:)` makes it:
    /// `source` is an entity set and a key.
    public func removeLink(from source: ODataPath, navigation: String, to target: ODataPath?) async throws {
        let (set, key) = try Self.address(source)
        guard let key else { throw OfflineStoreError(.invalidReference, "\(source) names no entity (no key)") }
        try await removeLink(set, .key(key), navigation: navigation, to: target?.description)
    }

    /// A link added or removed, inside a write transaction.
    static func link(
        _ entitySet: String, _ reference: EntityReference, navigation: String, target path: String?, removing: Bool,
        options: OfflineChangeOptions, opened: Opened, serviceURL: URL?, db: Database
    ) throws {
        let table = try opened.schema.table(entitySet)
        let relationship = try opened.schema.relationship(from: table, navigation: navigation)
        let row = try row(db, table: table, reference)
        let source = OfflineEntityRef(entitySet: entitySet, entityID: row["_id"])
        var links: [OfflineLink] = []
        if let path {
            links = try OfflineLinks.resolve(
                [navigation: [path]], from: table, schema: opened.schema, version: opened.version,
                serviceURL: serviceURL, db: db)
        } else if !removing || relationship.isCollection {
            throw OfflineStoreError(.invalidReference, "\(entitySet)/\(navigation): which entity to link (or unlink)?")
        }
        let target = links.first?.target
        // The source's values as downloaded, before anything of it changes: what a revert restores.
        try keepServerValues(db, table: table, row: row)
        if relationship.pairs.isEmpty {
            switch (removing, target) {
            case (false, let target?):
                if relationship.isCollection {
                    try OfflineLinks.add(from: source, through: relationship, to: target, db: db)
                } else {
                    try OfflineLinks.replaceLinks(from: source, through: relationship, to: [target], db: db)
                }
            case (true, let target?): try OfflineLinks.remove(from: source, through: relationship, to: target, db: db)
            default: try OfflineLinks.replaceLinks(from: source, through: relationship, to: [], db: db)
            }
        } else if !relationship.isCollection, relationship.foreignKeyInSource {
            // The foreign key is the source's: it takes the target's key, or null.
            let values =
                removing ? [] : try OfflineLinks.foreignKeys(links, table: table, schema: opened.schema, db: db)
            let pairs = relationship.pairs.filter { !table.keyPaths.contains($0.local.path) }
            try db.execute(
                sql:
                    "UPDATE \(table.sql) SET \(pairs.map { "\($0.local.sql) = ?" }.joined(separator: ", ")) WHERE _id = ?",
                arguments: StatementArguments(
                    pairs.map { pair in values.first { $0.column.path == pair.local.path }?.value ?? .null }
                        + [source.entityID.databaseValue]))
        } else if let target {
            // The foreign key is the target's (a collection of a principal): it takes the source's key, or null.
            let targetTable = relationship.target
            let targetRow = try self.row(db, table: targetTable, .id(target.entityID))
            try keepServerValues(db, table: targetTable, row: targetRow)
            try db.execute(
                sql:
                    "UPDATE \(targetTable.sql) SET \(relationship.pairs.map { "\($0.remote.sql) = ?" }.joined(separator: ", ")) WHERE _id = ?",
                arguments: StatementArguments(
                    relationship.pairs.map { removing ? .null : (row[$0.local.name] ?? .null) }
                        + [target.entityID.databaseValue]))
        }
        try enqueue(
            db, set: entitySet, id: source.entityID, method: removing ? "UNLINK" : "LINK", body: navigation,
            ifMatch: nil, links: links, options: options)
        try db.execute(
            sql: "UPDATE \(table.sql) SET _state = ? WHERE _id = ? AND _state = ?",
            arguments: [OfflineState.changed.rawValue, source.entityID, OfflineState.downloaded.rawValue])
    }
}
