import Foundation
import GRDB
public import SatchelOData
public import SatchelStore
import Synchronization

/// An offline OData store: the data its defining queries name, downloaded into an encrypted local database, read
/// with the same queries as online (translated to SQL). See docs/offline.md.
///
/// ```swift
/// let store = OfflineStore(configuration: .init(
///     service: service, path: folder.appendingPathComponent("alice-shop.store").path,
///     definingQueries: [.init(name: "products", query: "Products?$filter=Price gt 10")], key: key))
/// try await store.open()                       // first time: $metadata and the initial download
/// let cheap = try await store.entities("Products", query: ODataQuery().filter(.property("Price") lt 20))
/// ```
public final class OfflineStore: Sendable {
    public struct Configuration: Sendable {
        public var service: ODataService
        /// The store's file (one per user and service endpoint).
        public var path: String
        /// Added to the store (or updated) at each open. The store keeps its defining queries, these and those
        /// added by ``OfflineStore/addDefiningQuery(_:)``, until ``OfflineStore/removeDefiningQuery(named:)``.
        public var definingQueries: [OfflineDefiningQuery]
        /// Without a key the store is not encrypted.
        public var key: StoreKey?
        /// Secondary indexes: entity set (or qualified entity type: each of its sets) → property paths, one index
        /// each (SAP's `indexed_type`).
        public var indexes: [String: [String]]
        /// How the queue is sent: `$batch` requests of up to 100 requests unless told otherwise.
        public var upload: OfflineUploadMode

        public init(
            service: ODataService, path: String, definingQueries: [OfflineDefiningQuery], key: StoreKey?,
            indexes: [String: [String]] = [:], upload: OfflineUploadMode = .batch(maximumRequests: 100)
        ) {
            self.service = service
            self.path = path
            self.definingQueries = definingQueries
            self.key = key
            self.indexes = indexes
            self.upload = upload
        }
    }

    public let configuration: Configuration

    struct Opened: Sendable {
        let store: LocalStore<DatabasePool>
        let schema: OfflineSchema
        let version: ODataVersion
    }

    private let opened = Mutex<Opened?>(nil)
    /// An `open()` under way or done: a second one is refused before it opens anything.
    private let claimed = Mutex(false)
    /// Whether a download or an upload is running: one exchange with the service at a time, so a page read before
    /// an upload is never written after it.
    private let exchanging = Mutex<Bool>(false)
    /// Whether the service answered a `$batch` with 404, 405 or 501: uploads go one by one then.
    let batchUnsupported = Mutex<Bool>(false)

    /// Progress subscribers and the cancel flag.
    let signals = OfflineSignals()

    func beginExchange() throws(ODataError) {
        let started = exchanging.withLock { busy -> Bool in
            if busy { return false }
            busy = true
            return true
        }
        guard started else {
            throw ODataError(.invalidArgument, "a download or upload of this offline store is already running")
        }
        signals.reset()
    }

    func endExchange() {
        exchanging.withLock { $0 = false }
        signals.emit(.finished)
    }

    public init(configuration: Configuration) {
        self.configuration = configuration
    }

    func current() throws(ODataError) -> Opened {
        guard let opened = opened.withLock({ $0 }) else {
            throw ODataError(.invalidArgument, "the offline store is not open (call open() first)")
        }
        return opened
    }

    // MARK: Open and close

    /// Opens the store. The first time: reads `$metadata`, creates the tables and downloads every defining query
    /// (the initial download). Later: opens the local database without the network, and downloads only defining
    /// queries not downloaded completely yet (an interrupted initial download resumes) unless `resuming` is false
    /// (then nothing is sent once the store has its `$metadata`: reads, local changes and the queue work offline).
    /// When the download fails, `open` throws its error and the store stays open with what it has (its initial
    /// download not complete): call `download()` again, or `close()`.
    public func open(resuming: Bool = true) async throws {
        let free = claimed.withLock { claimed -> Bool in
            defer { claimed = true }
            return !claimed
        }
        guard free else { throw ODataError(.invalidArgument, "the offline store is open already") }
        let store: LocalStore<DatabasePool>
        do {
            var database = GRDB.Configuration()
            database.prepareDatabase { db in
                db.add(function: Self.lowercased)
                db.add(function: Self.uppercased)
            }
            store = try await StoreFile(path: configuration.path).openPoolDetached(
                key: configuration.key, configuration: database)
        } catch {
            claimed.withLock { $0 = false }
            throw error
        }
        do {
            try await store.database.write { db in
                try db.execute(sql: "CREATE TABLE IF NOT EXISTS s_store (name TEXT PRIMARY KEY, value BLOB NOT NULL)")
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS s_defining_queries (
                            name TEXT PRIMARY KEY, query TEXT NOT NULL, complete INTEGER NOT NULL DEFAULT 0,
                            delta_link TEXT, generation INTEGER NOT NULL DEFAULT 0)
                        """)
                // Added since the first stores were made: whether a query's media streams come along.
                let columns = try Row.fetchAll(db, sql: "PRAGMA table_info(s_defining_queries)").map {
                    $0["name"] as String
                }
                if !columns.contains("streams") {
                    try db.execute(
                        sql: "ALTER TABLE s_defining_queries ADD COLUMN streams INTEGER NOT NULL DEFAULT 0")
                }
                if !columns.contains("track") {
                    try db.execute(sql: "ALTER TABLE s_defining_queries ADD COLUMN track TEXT NOT NULL DEFAULT 'auto'")
                }
                // Which defining query brought which entity, in which full download (rows no query names any
                // more are removed after a full refresh). Keyed by the row first: whether anything still names a
                // row is one lookup, and a download adds to one b-tree.
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS s_members (
                            entity_set TEXT NOT NULL, entity_id INTEGER NOT NULL, query TEXT NOT NULL,
                            generation INTEGER NOT NULL, PRIMARY KEY (entity_set, entity_id, query)) WITHOUT ROWID
                        """)
                // Links a defining query's `$expand` brought for navigations without a referential constraint (and
                // the ones local changes made), by their source row, and by their target.
                try db.execute(
                    sql: """
                        CREATE TABLE IF NOT EXISTS s_links (
                            entity_set TEXT NOT NULL, entity_id INTEGER NOT NULL, navigation TEXT NOT NULL,
                            target_set TEXT NOT NULL, target_id INTEGER NOT NULL,
                            PRIMARY KEY (entity_set, entity_id, navigation, target_set, target_id)) WITHOUT ROWID
                        """)
                try db.execute(sql: "CREATE INDEX IF NOT EXISTS s_links_target ON s_links (target_set, target_id)")
                try OfflineQueue.create(in: db)
                try OfflineMediaTable.create(in: db)
            }
            let stored = try await store.database.read {
                try Data.fetchOne($0, sql: "SELECT value FROM s_store WHERE name = 'metadata'")
            }
            let document: Data
            if let stored {
                document = stored
            } else {
                signals.emit(.loadingMetadata)
                document = try await configuration.service.metadataDocument()
            }
            let metadata = try ODataMetadata.parse(data: document)
            configuration.service.use(metadata)
            let schema = OfflineSchema(metadata: metadata)
            let version = configuration.service.configuration.version ?? metadata.version
            // Check every defining query before anything is stored.
            for query in configuration.definingQueries {
                _ = try query.shape(version: version, schema: schema)
            }
            try await store.database.write { [configuration] db in
                try schema.create(in: db)
                for (name, paths) in configuration.indexes {
                    // An entity set, or an entity type (its sets: SAP's `indexed_type`).
                    let tables =
                        schema.tables[name].map { [$0] }
                        ?? schema.tables.values.filter { $0.entityTypeName == name }.sorted {
                            $0.entitySet < $1.entitySet
                        }
                    guard !tables.isEmpty else {
                        throw ODataError(
                            .invalidArgument, "\(name) is neither an entity set nor an entity type to index")
                    }
                    for table in tables {
                        let set = table.entitySet
                        for path in paths {
                            guard let column = table.column(path) else {
                                throw ODataError(.invalidArgument, "\(set) has no property \(path) to index")
                            }
                            try db.execute(
                                sql:
                                    "CREATE INDEX IF NOT EXISTS \(quoted("\(table.name)_i_\(column.name)")) ON \(table.sql) (\(column.sql))"
                            )
                        }
                    }
                }
                try db.execute(
                    sql: "INSERT OR IGNORE INTO s_store (name, value) VALUES ('metadata', ?)", arguments: [document])
                for query in configuration.definingQueries {
                    try db.execute(
                        sql: """
                            INSERT INTO s_defining_queries (name, query, streams, track) VALUES (?, ?, ?, ?)
                            ON CONFLICT (name) DO UPDATE SET query = excluded.query, streams = excluded.streams,
                                track = excluded.track,
                                complete = CASE WHEN query = excluded.query AND streams >= excluded.streams
                                    THEN complete ELSE 0 END,
                                delta_link = CASE WHEN query = excluded.query AND streams >= excluded.streams
                                    AND track = excluded.track THEN delta_link ELSE NULL END
                            """,
                        arguments: [query.name, query.query, query.retrievesStreams, query.deltaTracking.rawValue])
                }
            }
            opened.withLock { $0 = Opened(store: store, schema: schema, version: version) }
        } catch {
            try? store.close()
            claimed.withLock { $0 = false }
            throw error
        }
        if resuming { try await download(onlyIncomplete: true) }
    }

    /// `tolower` and `toupper` in SQL, for every letter (SQLite's `lower` and `upper` change ASCII letters only).
    static let lowercased = DatabaseFunction("satchel_lower", argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0]).map { $0.lowercased() }
    }
    static let uppercased = DatabaseFunction("satchel_upper", argumentCount: 1, pure: true) { values in
        String.fromDatabaseValue(values[0]).map { $0.uppercased() }
    }

    /// Closes the local database.
    public func close() throws {
        guard let current = opened.withLock({ $0 }) else { return }
        // Forgotten only once closed: a database GRDB refused to close (a read running) stays reachable.
        try current.store.close()
        opened.withLock { $0 = nil }
        claimed.withLock { $0 = false }
    }

    /// Whether the store is open (``open(resuming:)`` got as far as its local database and `$metadata`).
    public var isOpen: Bool { opened.withLock { $0 != nil } }

    /// Whether every defining query has been downloaded completely at least once.
    public var isInitialDownloadComplete: Bool {
        get async throws {
            let opened = try current()
            return try await opened.store.database.read {
                try Int.fetchOne($0, sql: "SELECT count(*) FROM s_defining_queries WHERE complete = 0") == 0
            }
        }
    }

    // MARK: Download

    /// Downloads every defining query again (a full refresh in this version; deltas come later).
    public func download() async throws {
        try await download(onlyIncomplete: false)
    }

    private func download(onlyIncomplete: Bool) async throws {
        let opened = try current()
        try beginExchange()
        defer { endExchange() }
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
        let queries = pending
        for (index, query) in queries.enumerated() {
            try signals.check()
            signals.emit(.definingQuery(name: query.name, index: index + 1, count: queries.count))
            try await download(query, opened: opened)
        }
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
                page = try await Self.firstPage(service: service, set: set, query: query)
            }
        } else if !definingQuery.tracksChanges {
            page = try await service.page(ODataPath(set), query: query)
        } else {
            page = try await Self.firstPage(service: service, set: set, query: query)
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

    /// The first page of a full read, the service asked to track changes; a service that refuses to for this set
    /// (SAP Gateway answers 400 for a set without delta support) is read without.
    private static func firstPage(service: ODataService, set: String, query: ODataQuery) async throws -> ODataPage {
        do {
            return try await service.page(ODataPath(set), query: query, trackingChanges: true)
        } catch let error as ODataError where [400, 501].contains(error.status ?? 0) {
            return try await service.page(ODataPath(set), query: query)
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

    /// The row of a downloaded entity, by its key properties, or by the key in its id (`Products(3)`).
    static func rowID(of entity: ODataEntity, table: OfflineTable, db: Database) throws -> Int64? {
        var conditions: [String] = []
        var arguments: [DatabaseValue] = []
        var fromID: [String: ODataLiteral] = [:]
        if table.keyPaths.contains(where: { entity.properties[$0] == nil }), let id = entity.id {
            fromID = keyValues(inID: id, keyPaths: table.keyPaths)
        }
        for path in table.keyPaths {
            guard let column = table.column(path) else { return nil }
            if let value = entity.properties[path] {
                arguments.append(OfflineValues.databaseValue(value, for: column))
            } else if let literal = fromID[path] {
                arguments.append(OfflineValues.storedValue(literal, for: column))
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
    static func keyValues(inID id: String, keyPaths: [String]) -> [String: ODataLiteral] {
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

    // MARK: Reads

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

extension OfflineTable {
    /// Inserts or updates one downloaded entity by its key: `_etag`, then `columns` (a row keeps its other
    /// columns); returns the row's id. A row with local changes not uploaded yet keeps them (its upload then meets
    /// the server's ETag) and returns nothing.
    func upsertSQL(columns: [OfflineColumn]) -> String {
        let names = ["_etag"] + columns.map(\.sql)
        let keys = keyPaths.compactMap { column($0)?.sql }
        let updates = names.filter { !keys.contains($0) }.map { "\($0) = excluded.\($0)" }
        return """
            INSERT INTO \(sql) (\(names.joined(separator: ", "))) VALUES (\(names.map { _ in "?" }.joined(separator: ", ")))
            ON CONFLICT (\(keys.joined(separator: ", "))) DO UPDATE SET \(updates.joined(separator: ", ")) WHERE _state = 0
            RETURNING _id
            """
    }
}

/// A read as one SELECT: the filter, order, paging and projection of an ``ODataQuery``.
struct OfflineSelect {
    let table: OfflineTable
    let sql: String
    let arguments: [DatabaseValue]
    /// The top-level properties `$select` keeps (all when empty).
    let selected: Set<String>

    init(
        table: OfflineTable, query: ODataQuery, version: ODataVersion, schema: OfflineSchema? = nil,
        counting: Bool = false, restriction: OfflineSQL? = nil
    ) throws(ODataError) {
        self.table = table
        let translator = OfflineSQLTranslator(table: table, schema: schema)
        var text = counting ? "SELECT count(*) FROM \(table.sql) AS t0" : "SELECT t0.* FROM \(table.sql) AS t0"
        var arguments: [DatabaseValue] = []
        text += " WHERE t0._state <> 3"
        if let restriction {
            text += " AND \(restriction.sql)"
            arguments += restriction.arguments
        }
        if let filter = query.filter {
            let translated = try translator.translate(filter)
            text += " AND \(translated.sql)"
            arguments += translated.arguments
        }
        if !counting {
            var orders: [String] = []
            for order in query.orderBy {
                // `Price desc` may come as one expression (a typed field's `ordering(descending:)`).
                var text = order.expression.trimmingCharacters(in: .whitespaces)
                var descending = order.descending
                for (suffix, value) in [(" desc", true), (" asc", false)] where text.lowercased().hasSuffix(suffix) {
                    text = String(text.dropLast(suffix.count))
                    descending = value
                }
                let translated = try translator.translate(try ODataExpression.parse(text, version: version))
                orders.append(translated.sql + (descending ? " DESC" : " ASC"))
                arguments += translated.arguments
            }
            // Then by key: pages stay stable.
            orders += table.keyPaths.compactMap { table.column($0).map { "t0.\($0.sql)" } }
            text += " ORDER BY " + orders.joined(separator: ", ")
            if query.top != nil || query.skip != nil {
                text += " LIMIT ? OFFSET ?"
                arguments += [(query.top ?? -1).databaseValue, (query.skip ?? 0).databaseValue]
            }
        }
        sql = text
        self.arguments = arguments
        selected = Set(query.select.map { String($0.split(separator: "/").first ?? "") })
    }

    /// The entity of one row, complex properties rebuilt from their columns.
    func entity(from row: Row) -> ODataEntity {
        var entity = ODataEntity(type: table.entityTypeName)
        entity.etag = row["_etag"]
        let id: Int64 = row["_id"]
        entity.offlineEntityID = id
        if table.keyColumnNames.contains(where: { (row[$0] as DatabaseValue?)?.isNull ?? true }) {
            // Created offline, its key still to come from the server: a link that stays valid after the upload.
            entity.readLink = "\(table.entitySet)(\(OfflineLinks.entityIDKey)=\(id))"
        }
        var properties = ODataProperties()
        for column in table.columns where column.kind != .offsetMinutes {
            let top = String(column.path.split(separator: "/").first ?? "")
            if !selected.isEmpty, !selected.contains(top) { continue }
            let value = OfflineValues.odataValue(
                row[column.name] ?? .null, for: column, offset: column.offsetColumn.flatMap { row[$0] })
            Self.set(value, at: column.path[...], in: &properties)
        }
        entity.properties = properties
        return entity
    }

    static func set(_ value: ODataValue, at path: Substring, in properties: inout ODataProperties) {
        guard let slash = path.firstIndex(of: "/") else {
            properties[String(path)] = value
            return
        }
        let name = String(path[..<slash])
        var inner: ODataProperties
        if case .complex(let existing) = properties[name] { inner = existing } else { inner = ODataProperties() }
        set(value, at: path[path.index(after: slash)...], in: &inner)
        properties[name] = .complex(inner)
    }
}

/// What a read path names: an entity set, or the related entities of one entity (`Set(key)/Navigation`).
struct OfflineTarget {
    let table: OfflineTable
    /// For a navigation: the entity it starts from, and how it relates.
    let source: (table: OfflineTable, key: ODataKey, relationship: OfflineRelationship)?

    init(path: ODataPath, schema: OfflineSchema) throws(ODataError) {
        let parts = path.segments
        if parts.count == 1, let set = parts[0].entitySetName {
            table = try schema.table(set)
            source = nil
            return
        }
        if parts.count == 3, let set = parts[0].entitySetName, case .key(let key) = parts[1],
            let navigation = parts[2].entitySetName
        {
            let from = try schema.table(set)
            let relationship = try schema.relationship(from: from, navigation: navigation)
            table = relationship.target
            source = (from, key, relationship)
            return
        }
        throw ODataError(.notSupported, "the offline store reads entity sets and Set(key)/Navigation; not \(path)")
    }

    /// The condition a navigation puts on the target's rows (none for an entity set).
    func restriction(db: Database) throws -> OfflineSQL? {
        guard let source else { return nil }
        let row = try OfflineStore.row(db, table: source.table, .key(source.key))
        return source.relationship.restriction(toSourceRow: row)
    }
}
