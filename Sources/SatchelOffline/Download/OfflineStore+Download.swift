import Foundation
import GRDB
package import SatchelOData
import SatchelStore
import Synchronization

/// Defining queries downloaded into the store: the initial download and full refreshes.
extension OfflineStore {

    /// Downloads every defining query: the changes since the last download where the query tracks deltas and the
    /// service gave a delta link (`OfflineDeltaTracking`), every page again otherwise; a full download removes the
    /// entities no defining query names any more. Entities with local changes not uploaded yet keep them. Throws
    /// while another download or upload of this store runs. It reads `$metadata` first, and migrates the store
    /// when the service's model changed (``updateMetadata()``).
    public func download() async throws {
        try await download(onlyIncomplete: false)
    }

    /// Downloads only the defining queries named in `subset` (SAP's download of a subset of defining queries), as
    /// ``download()`` does for all. A name the store does not have throws ``OfflineStoreError/Code/unknownDefiningQuery`` before anything is sent.
    public func download(subset: Set<String>) async throws {
        let opened = try current()
        let known = try await opened.store.database.read { db in
            Set(try String.fetchAll(db, sql: "SELECT name FROM s_defining_queries"))
        }
        let unknown = subset.subtracting(known)
        guard unknown.isEmpty else {
            throw OfflineStoreError(
                .unknownDefiningQuery,
                "no defining quer\(unknown.count == 1 ? "y" : "ies") named \(unknown.sorted().joined(separator: ", ")) "
                    + "(the store has \(known.sorted().joined(separator: ", ")))")
        }
        try await download(onlyIncomplete: false, names: subset)
    }

    /// Downloads the defining queries (only those not complete yet, when `onlyIncomplete`), or of them only those
    /// named in `names`.
    package func download(onlyIncomplete: Bool, names: Set<String>? = nil) async throws {
        _ = try current()
        try beginExchange(.downloading)
        defer { endExchange() }
        // A download the app asked for reads `$metadata` first and migrates the store when it changed.
        if !onlyIncomplete { try await migrateMetadata() }
        let opened = try current()
        let pending = try await opened.store.database.read { db in
            try Row.fetchAll(
                db,
                sql: "SELECT name, query, streams, track FROM s_defining_queries"
                    + (onlyIncomplete ? " WHERE complete = 0" : "") + " ORDER BY name"
            ).map {
                OfflineDefiningQuery(
                    name: $0["name"], query: $0["query"], retrievesStreams: $0["streams"],
                    deltaTracking: OfflineDeltaTracking(rawValue: $0["track"]) ?? .auto)
            }
        }
        let queries = names.map { names in pending.filter { names.contains($0.name) } } ?? pending
        for (index, query) in queries.enumerated() {
            try signals.check()
            signals.emit(.definingQuery(name: query.name, index: index + 1, count: queries.count))
            try await download(query, opened: opened)
        }
        if !queries.isEmpty { try await recordSync(download: true, opened: opened) }
    }

    /// Downloads one defining query: the changes since its delta link when it has one (V4 change tracking), else
    /// every page again; a full download removes the entities no defining query names any more. Entities with local
    /// changes not uploaded yet keep them.
    private func download(_ definingQuery: OfflineDefiningQuery, opened: Opened) async throws {
        let (set, query) = try definingQuery.parsed(version: opened.version)
        let shape = try definingQuery.shape(version: opened.version, schema: opened.schema)
        let streams =
            definingQuery.retrievesStreams
            && opened.schema.metadata.entityType(named: shape.table.entityTypeName)?.hasStream == true
        let service = configuration.service
        let serviceURL = service.configuration.serviceURL
        let name = definingQuery.name
        let (deltaLink, previous) = try await opened.store.database.read { db in
            let row = try Row.fetchOne(
                db, sql: "SELECT delta_link, generation FROM s_defining_queries WHERE name = ?", arguments: [name])
            return (row?["delta_link"] as String?, row?["generation"] as Int64? ?? 0)
        }
        var page: ODataPage
        var full = true
        if let deltaLink, definingQuery.tracksChanges {
            do {
                page = try await service.page(link: deltaLink, entitySet: set)
                full = false
            } catch let error as ODataError where (400..<500).contains(error.status ?? 0) {
                // An expired or refused delta link: read everything again.
                page = try await service.pageTrackingChangesIfSupported(ODataPath(set), query: query)
            }
        } else if !definingQuery.tracksChanges {
            page = try await service.page(ODataPath(set), query: query)
        } else {
            page = try await service.pageTrackingChangesIfSupported(ODataPath(set), query: query)
        }
        let generation = full ? previous + 1 : previous
        var newDeltaLink: String?
        var received = 0
        // Applied once every page is stored: a link may name an entity of a later page.
        var linkChanges: [ODataLinkChange] = []
        while true {
            let entities = page.entities
            linkChanges += page.linkChanges
            // The next page is read and decoded while this one is stored.
            let nextLink = page.nextLink
            async let following = Self.page(at: nextLink, service: service, entitySet: set)
            try await opened.store.database.write { db in
                try OfflinePageWriter(shape: shape, query: name, generation: generation).write(entities, db: db)
            }
            if streams {
                signals.count(received: try await downloadMedia(of: entities, table: shape.table, opened: opened))
            }
            received += entities.count
            signals.emit(.received(definingQuery: name, entities: received))
            signals.count(received: page.byteCount)
            if let link = page.deltaLink { newDeltaLink = link }
            try signals.check()
            guard let next = try await following else { break }
            page = next
        }
        let wasFull = full
        let link = definingQuery.tracksChanges ? newDeltaLink : nil
        let links = linkChanges
        try await opened.store.database.write { db in
            if !links.isEmpty {
                try OfflineLinks.apply(
                    links, schema: opened.schema, version: opened.version, serviceURL: serviceURL, db: db)
            }
            if wasFull {
                // What this query no longer brings (itself or by `$expand`): its membership goes, and the rows
                // nothing names any more.
                try db.execute(
                    sql: "DELETE FROM s_members WHERE query = ? AND generation < ?", arguments: [name, generation])
                try Self.removeUnnamedRows(in: shape.tables, db: db)
            }
            try db.execute(
                sql: "UPDATE s_defining_queries SET complete = 1, delta_link = ?, generation = ? WHERE name = ?",
                arguments: [link, generation, name])
        }
    }

    private static func page(at link: String?, service: ODataService, entitySet: String) async throws -> ODataPage? {
        guard let link else { return nil }
        return try await service.page(link: link, entitySet: entitySet)
    }

    /// Removes the downloaded rows (without local changes) that no defining query names any more and no queued
    /// request links to, with their links and content.
    static func removeUnnamedRows(in tables: [OfflineTable], db: Database) throws {
        for table in tables {
            try db.execute(
                sql: """
                    DELETE FROM \(table.sql) WHERE _state = 0
                        AND NOT EXISTS (
                            SELECT 1 FROM s_members m WHERE m.entity_set = ? AND m.entity_id = \(table.sql)._id)
                        AND NOT EXISTS (
                            SELECT 1 FROM q_requests q INDEXED BY q_requests_links, json_each(q.links) j
                            WHERE q.links IS NOT NULL AND json_extract(j.value, '$[1]') = ?
                                AND json_extract(j.value, '$[2]') = \(table.sql)._id)
                    """, arguments: [table.entitySet, table.entitySet])
            if db.changesCount > 0 {
                try OfflineLinks.forgetVanished(in: table, db: db)
                try OfflineMediaTable.forgetVanished(in: table, db: db)
            }
        }
    }

    /// Forgets what belongs to a row that is gone: its links and its content.
    static func forgetRow(_ entity: OfflineEntityRef, db: Database) throws {
        try OfflineLinks.forget(entity, db: db)
        try OfflineMediaTable.forget(entity, db: db)
    }

    /// The row of a downloaded entity, by its key properties, or by the key in its id or links (`Products(3)`, as
    /// the page writer reads it: ``OfflinePageWriter/missingKey(of:table:)``).
    static func rowID(of entity: ODataEntity, table: OfflineTable, db: Database) throws -> Int64? {
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        guard let fromLink = OfflinePageWriter.missingKey(of: entity, table: table).values else { return nil }
        for path in table.keyPaths {
            guard let column = table.column(path) else { return nil }
            if let literal = fromLink[path] {
                arguments.append(OfflineValues.storedValue(literal, for: column))
            } else if let value = entity.properties[path], value != .null {
                arguments.append(OfflineValues.databaseValue(value, for: column))
            } else {
                return nil
            }
            conditions.append("\(column.sql) = ?")
        }
        return try Int64.fetchOne(
            db, sql: "SELECT _id FROM \(table.sql) WHERE \(conditions.joined(separator: " AND "))",
            arguments: StatementArguments(arguments))
    }

    /// Key values in an entity id such as `…/Products(3)` or `OrderItems(OrderID=1,LineNumber=2)` (V4 literals, else
    /// V2's), by key property path.
    package static func keyValues(inID id: String, keyPaths: [String]) -> [String: ODataLiteral] {
        guard let open = id.lastIndex(of: "("), let close = id.lastIndex(of: ")"), open < close else { return [:] }
        let raw = String(id[id.index(after: open)..<close])
        let inside = raw.removingPercentEncoding ?? raw
        guard let key = (try? ODataKey(parsing: inside, version: .v4)) ?? (try? ODataKey(parsing: inside, version: .v2))
        else { return [:] }
        var result: [String: ODataLiteral] = [:]
        for (name, literal) in key.parts {
            result[name.isEmpty ? (keyPaths.count == 1 ? keyPaths[0] : "") : name] = literal
        }
        return result
    }
}
