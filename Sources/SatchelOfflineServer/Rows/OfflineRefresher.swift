public import Foundation
public import SatchelOData
public import SatchelOffline
public import SatchelRepository

/// Reads a defining query from the back-end and brings the middle tier's row state up to date
/// (docs/offline-server.md, "Reads and deltas"): with the back-end's own delta link when it gave one and the query
/// tracks deltas `AUTO`, otherwise by a full read whose rows are compared with those stored. Either way only the
/// rows that changed get a new version, so a client's next delta carries only them.
public struct OfflineRefresher: Sendable {
    /// The row state the refresher updates.
    public var store: any OfflineTierStore

    /// A refresher of the row state in `store`.
    public init(store: any OfflineTierStore) {
        self.store = store
    }

    /// What a refresh did.
    public struct Report: Sendable {
        /// What the store did: the query's new state and how many rows were added, changed and removed.
        public var refresh: OfflineRefresh
        /// Whether the back-end's delta link was used (false: a full read).
        public var usedBackendDelta: Bool
        /// The pages read from the back-end.
        public var pages: Int
        /// The entities read (in a back-end delta, removed ones included).
        public var entities: Int
    }

    /// Refreshes `id` from `service`, whose credentials decide what it reads (the service account for shared data,
    /// the user's own for theirs).
    public func refresh(
        _ id: OfflineQueryID, definingQuery: OfflineDefiningQuery, service: ODataService, at time: Date = Date()
    ) async throws -> Report {
        let version = try await service.version()
        let (set, query) = try definingQuery.parsed(version: version)
        let codec: OfflineRowCodec
        do {
            codec = try OfflineRowCodec(entitySet: set, metadata: try await service.metadata(), version: version)
        } catch let error as OfflineRowError {
            throw OfflineRowError("defining query \(definingQuery.name): \(error.message)")
        }
        let backendDeltas = definingQuery.deltaTracking == .auto
        if backendDeltas, let link = try await store.offlineState(id)?.backendDeltaLink {
            do {
                return try await applyBackendDelta(id, link: link, set: set, codec: codec, service: service, at: time)
            } catch let error as ODataError where (400..<500).contains(error.status ?? 0) {
                // An expired or refused delta link: read everything again.
            }
        }
        var page =
            backendDeltas
            ? try await service.pageTrackingChangesIfSupported(ODataPath(set), query: query)
            : try await service.page(ODataPath(set), query: query)
        var rows: [OfflineRow] = []
        var pages = 1
        var deltaLink: String?
        while true {
            for entity in page.entities where !entity.isRemoved { rows.append(try codec.row(for: entity)) }
            if let link = page.deltaLink { deltaLink = link }
            guard let next = page.nextLink else { break }
            page = try await service.page(link: next, entitySet: set)
            pages += 1
        }
        let refresh = try await store.applyFullRead(
            id, rows: rows, at: time, backendDeltaLink: backendDeltas ? deltaLink : nil)
        return Report(refresh: refresh, usedBackendDelta: false, pages: pages, entities: rows.count)
    }

    private func applyBackendDelta(
        _ id: OfflineQueryID, link: String, set: String, codec: OfflineRowCodec, service: ODataService, at time: Date
    ) async throws -> Report {
        var page = try await service.page(link: link, entitySet: set)
        var changes = DeltaChanges()
        var pages = 1
        var entities = 0
        var deltaLink: String?
        while true {
            for entity in page.entities {
                entities += 1
                try changes.add(entity, codec: codec)
            }
            if let next = page.deltaLink { deltaLink = next }
            guard let next = page.nextLink else { break }
            page = try await service.page(link: next, entitySet: set)
            pages += 1
        }
        let refresh = try await store.applyDelta(
            id, upserts: Array(changes.upserts.values), removedKeys: changes.removed.sorted(), at: time,
            backendDeltaLink: deltaLink ?? link)
        return Report(refresh: refresh, usedBackendDelta: true, pages: pages, entities: entities)
    }

    /// What a back-end delta says, entity by entity: each key as it was said last (removed and then created
    /// again is there; changed twice is the newer copy).
    struct DeltaChanges {
        var upserts: [String: OfflineRow] = [:]
        var removed: Set<String> = []

        mutating func add(_ entity: ODataEntity, codec: OfflineRowCodec) throws {
            if entity.isRemoved {
                let key = try OfflineRefresher.removedKey(entity, codec: codec)
                upserts[key] = nil
                removed.insert(key)
            } else {
                let row = try codec.row(for: entity)
                removed.remove(row.key)
                upserts[row.key] = row
            }
        }
    }

    /// A removed entity's key: from its key properties when the delta sent them, else from its id
    /// (`Products(7)`, `…/Orders(Order=10,Item=2)`, V2's `ProductSet('HT%2D1000')`), read as the client reads it
    /// and written in the codec's syntax, so that it names the row it removes.
    static func removedKey(_ entity: ODataEntity, codec: OfflineRowCodec) throws -> String {
        if let key = try? codec.key(of: entity) { return key }
        let values = entity.id.map { OfflineStore.keyValues(inID: $0, keyPaths: codec.keyProperties) } ?? [:]
        let parts = codec.keyProperties.compactMap { name in
            values[name].map { literal -> (String, ODataLiteral) in
                // The codec writes an integer as its value says (`3`), whatever suffix V2 gave it (`3L`).
                var literal = literal
                if case .int64(let number) = literal { literal = ODataLiteral(ODataValue.int(number)) }
                return (codec.keyProperties.count == 1 ? "" : name, literal)
            }
        }
        guard parts.count == codec.keyProperties.count, !parts.isEmpty else {
            throw OfflineRowError("a removed entity names neither its key nor an id with one: \(entity.id ?? "no id")")
        }
        let key = parts.count == 1 ? ODataKey.single(parts[0].1) : ODataKey(parts: parts)
        return key.predicate(for: codec.version)
    }
}
