import Foundation
import GRDB
import SatchelOData
import SatchelText
import Synchronization

/// How the service's `$metadata` changed since the store last read it, and what the store did about it
/// (``OfflineStore/updateMetadata()``, which every ``OfflineStore/download()`` runs first).
public struct OfflineSchemaChange: Sendable, Hashable {
    /// Entity sets the service has now and did not have: their tables were made.
    public var addedEntitySets: [String] = []
    /// Entity sets the service no longer has: their tables stay (no defining query reads them).
    public var removedEntitySets: [String] = []
    /// Properties added to sets the store had, by entity set: their columns were added, and the defining queries
    /// that bring those sets download in full next (their delta links dropped) so the new values arrive.
    public var addedProperties: [String: [String]] = [:]
    /// Properties the service no longer has, by entity set: their columns stay, no longer read or written.
    public var removedProperties: [String: [String]] = [:]
    /// Entity sets whose table was made again (a property's type or the key changed): their rows were removed and the
    /// defining queries that bring them download again.
    public var rebuiltEntitySets: [String] = []
    /// Defining queries that download in full at this download (their delta links dropped, or not complete).
    public var refreshedDefiningQueries: [String] = []

    /// Whether the document changed in a way that touched the store (a change of its text alone does not).
    public var isEmpty: Bool {
        addedEntitySets.isEmpty && removedEntitySets.isEmpty && addedProperties.isEmpty && removedProperties.isEmpty
            && rebuiltEntitySets.isEmpty
    }

    /// A change with nothing in it.
    public init() {}
}

extension OfflineStore {
    /// Reads the service's `$metadata` again and, when it changed, migrates the store to it (docs/offline.md, "When
    /// the service's `$metadata` changes"): new sets get tables, new properties columns (and the defining queries that
    /// bring them a full download), a set whose key or a property's type changed is made again and downloaded
    /// again. Queued requests are kept and stay uploadable. What cannot be migrated is refused, before anything is
    /// stored, with an error naming it: a defining query that reads a set or property the service no longer has,
    /// or a queued request on a set made again or that changes a property removed or retyped (upload or cancel it
    /// first). Returns what changed (empty when nothing did). ``download()`` runs it first.
    @discardableResult
    public func updateMetadata() async throws -> OfflineSchemaChange {
        _ = try current()
        try beginExchange(.downloading)
        defer { endExchange() }
        return try await migrateMetadata()
    }

    /// ``updateMetadata()`` inside an exchange already begun.
    @discardableResult
    func migrateMetadata() async throws -> OfflineSchemaChange {
        let opened = try current()
        let service = configuration.service
        signals.emit(.loadingMetadata)
        let document: Data
        do {
            document = try await service.metadataDocument()
        } catch {
            service.use(opened.schema.metadata)
            throw error
        }
        let stored = try await opened.store.database.read {
            try Data.fetchOne($0, sql: "SELECT value FROM s_store WHERE name = 'metadata'")
        }
        if stored == document {
            service.use(opened.schema.metadata)
            return OfflineSchemaChange()
        }
        do {
            let metadata = try ODataMetadata.parse(data: document)
            let version = configuration.service.configuration.version ?? metadata.version
            guard version == opened.version else {
                throw OfflineStoreError(
                    .schemaChange,
                    "the service's $metadata is now OData \(metadata.version) and the store was made with "
                        + "\(opened.version): a store cannot change version; remove it and open it again")
            }
            let schema = OfflineSchema(metadata: metadata)
            let plan = OfflineMigrationPlan(from: opened.schema, to: schema)
            let indexes = configuration.indexes
            let change = try await opened.store.database.write { db in
                try plan.check(version: version, db: db)
                let change = try plan.apply(document: document, version: version, indexes: indexes, db: db)
                try db.notifyChanges(in: .fullDatabase)
                return change
            }
            let migrated = Opened(store: opened.store, schema: schema, version: version)
            state.withLock { $0.opened = migrated }
            service.use(metadata)
            return change
        } catch {
            service.use(opened.schema.metadata)
            throw error
        }
    }
}

/// What differs between the store's schema and the service's new one, table by table.
struct OfflineMigrationPlan {
    let old: OfflineSchema
    let new: OfflineSchema
    var change = OfflineSchemaChange()
    /// Tables made again, by entity set.
    var rebuilt: Set<String> = []
    /// Why each is made again.
    var reasons: [String: String] = [:]
    /// Retyped or removed properties by entity set: a queued request changing one cannot be migrated.
    var unusable: [String: Set<String>] = [:]

    init(from old: OfflineSchema, to new: OfflineSchema) {
        self.old = old
        self.new = new
        change.addedEntitySets = new.tables.keys.filter { old.tables[$0] == nil }.sorted()
        change.removedEntitySets = old.tables.keys.filter { new.tables[$0] == nil }.sorted()
        for (set, before) in old.tables.sorted(by: { $0.key < $1.key }) {
            guard let after = new.tables[set] else { continue }
            if before.name != after.name {
                rebuilt.insert(set)
                reasons[set] = "its table's name changed"
            } else if before.keyPaths != after.keyPaths {
                rebuilt.insert(set)
                reasons[set] =
                    "its key changed (\(before.keyPaths.joined(separator: ", ")) → "
                    + "\(after.keyPaths.joined(separator: ", ")))"
            }
            var removed: [String] = []
            for column in before.columns where column.kind != .offsetMinutes {
                guard let now = after.column(column.path) else {
                    removed.append(column.path)
                    unusable[set, default: []].insert(column.path)
                    continue
                }
                if now.kind != column.kind || now.name != column.name {
                    rebuilt.insert(set)
                    reasons[set] = reasons[set] ?? "the type of \(column.path) changed"
                    unusable[set, default: []].insert(column.path)
                }
            }
            if !removed.isEmpty { change.removedProperties[set] = removed }
            let added = after.columns.filter { $0.kind != .offsetMinutes && before.column($0.path) == nil }.map(\.path)
            if !added.isEmpty { change.addedProperties[set] = added }
        }
        change.rebuiltEntitySets = rebuilt.sorted()
    }

    /// Throws what cannot be migrated: a defining query the new schema cannot serve, a queued request on a set that
    /// is made again or changing a property removed or retyped.
    func check(version: ODataVersion, db: Database) throws {
        for row in try Row.fetchAll(db, sql: "SELECT name, query FROM s_defining_queries ORDER BY name") {
            let query = OfflineDefiningQuery(name: row["name"], query: row["query"])
            do {
                _ = try query.shape(version: version, schema: new)
            } catch {
                throw OfflineStoreError(
                    .schemaChange,
                    "the service's $metadata changed and defining query \(query.name) (\(query.query)) no longer "
                        + "fits it (\(error)): remove that defining query, then download again")
            }
        }
        let queued = try Row.fetchAll(
            db, sql: "SELECT id, entity_set, method, body, links, deep FROM q_requests ORDER BY id")
        /// Why a set's rows cannot stay as they are: made again, or gone from the service.
        func lost(_ set: String) -> String? {
            if new.tables[set] == nil { return "the service no longer has \(set)" }
            return rebuilt.contains(set) ? "\(set) must be downloaded again (\(reasons[set] ?? ""))" : nil
        }
        for row in queued {
            let set: String = row["entity_set"]
            let id: Int64 = row["id"]
            let linked = try OfflineLinks.decode(row["links"]) + OfflineLinks.decode(row["deep"])
            for link in linked {
                if let why = lost(link.target.entitySet) {
                    throw OfflineStoreError(
                        .schemaChange,
                        "the service's $metadata changed: \(why), and request \(id) links to one of its entities: "
                            + "upload or cancel it, then download again")
                }
            }
            if let why = lost(set), !rebuilt.contains(set) {
                throw OfflineStoreError(
                    .schemaChange,
                    "the service's $metadata changed: \(why), and request \(id) on it is still queued: upload or "
                        + "cancel it, then download again")
            }
            // The navigations it links through must still be there.
            var navigations = linked.map(\.navigation)
            if ["LINK", "UNLINK"].contains(row["method"] as String), let navigation = row["body"] as String? {
                navigations.append(navigation)
            }
            if let table = new.tables[set] {
                for navigation in navigations where (try? new.relationship(from: table, navigation: navigation)) == nil
                {
                    throw OfflineStoreError(
                        .schemaChange,
                        "the service's $metadata changed: \(set) has no navigation \(navigation) any more, and request "
                            + "\(id) links through it: upload or cancel it, then download again")
                }
            }
            if rebuilt.contains(set) {
                throw OfflineStoreError(
                    .schemaChange,
                    "the service's $metadata changed: \(set) must be downloaded again (\(reasons[set] ?? "")) and "
                        + "request \(id) on it is still queued: upload or cancel it, then download again")
            }
            guard let unusable = unusable[set], let body = row["body"] as String?,
                case .object(let object)? = try? JSONValue(parsing: Data(body.utf8))
            else { continue }
            for (path, _) in object where unusable.contains(path) {
                throw OfflineStoreError(
                    .schemaChange,
                    "the service's $metadata changed: \(set).\(path) was removed or changed its type, and request "
                        + "\(id) still changes it: upload or cancel it, then download again")
            }
        }
    }

    /// Migrates the tables, stores the new document, and marks the defining queries that must download in full.
    func apply(
        document: Data, version: ODataVersion, indexes: [String: [String]], db: Database
    ) throws -> OfflineSchemaChange {
        var change = change
        for set in rebuilt.sorted() {
            guard let table = old.tables[set] else { continue }
            try db.execute(sql: "DROP TABLE IF EXISTS \(table.sql)")
            try db.execute(sql: "DELETE FROM s_members WHERE entity_set = ?", arguments: [set])
            try db.execute(sql: "DELETE FROM s_links WHERE entity_set = ? OR target_set = ?", arguments: [set, set])
            try db.execute(sql: "DELETE FROM s_media WHERE entity_set = ?", arguments: [set])
        }
        try new.create(in: db)
        try new.createIndexes(indexes, db: db)
        try db.execute(sql: "UPDATE s_store SET value = ? WHERE name = 'metadata'", arguments: [document])
        // The defining queries that bring a set made again, or one with new properties, download in full.
        let widened = Set(change.addedProperties.keys)
        for row in try Row.fetchAll(db, sql: "SELECT name, query FROM s_defining_queries ORDER BY name") {
            let query = OfflineDefiningQuery(name: row["name"], query: row["query"])
            let shape = try query.shape(version: version, schema: new)
            let sets = Set(shape.tables.map(\.entitySet))
            if !sets.isDisjoint(with: rebuilt) {
                try db.execute(
                    sql: "UPDATE s_defining_queries SET complete = 0, delta_link = NULL WHERE name = ?",
                    arguments: [query.name])
                change.refreshedDefiningQueries.append(query.name)
            } else if !sets.isDisjoint(with: widened) {
                try db.execute(
                    sql: "UPDATE s_defining_queries SET delta_link = NULL WHERE name = ?", arguments: [query.name])
                change.refreshedDefiningQueries.append(query.name)
            }
        }
        return change
    }
}
