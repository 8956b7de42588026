public import Foundation
public import SatchelJSON
public import SatchelOData
import GRDB
import SatchelStore

/// The offline store answers the typed calls the generated proxies make, as the service would (docs/offline.md,
/// "The seam"): rows are written in the service's JSON for its version and pulled into the proxy types with their
/// own decoders. `ifMatch` is not needed offline: the store keeps each entity's ETag for the upload.
extension OfflineStore: ODataProvider {
    /// The version of the service the store was made for (from its configuration, else its `$metadata`). Throws
    /// while the store is not open.
    public func version() async throws -> ODataVersion { try current().version }

    /// The entities at `path` that `query` selects, read from the store as `entities(_:query:)` reads them, each
    /// written in the service's JSON for its version and pulled into `T`. Cancelling the iteration stops the read.
    public func entities<T: JSONDecodable & Sendable>(
        _ path: ODataPath, query: ODataQuery, pullDecoding type: T.Type
    ) -> AsyncThrowingStream<T, any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    let writer = try writer()
                    for entity in try await entities(path, query: query) {
                        continuation.yield(try T(json: try writer.data(for: entity)))
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    /// The entity at `path` (an entity set and a key) from the store, with `query`'s `$select`, pulled into `T`.
    /// Throws `notFound` when the store has no such entity (or it was deleted locally).
    public func entity<T: JSONDecodable>(
        _ path: ODataPath, query: ODataQuery, pullDecoding type: T.Type
    )
        async throws -> T
    {
        let (set, key) = try Self.address(path)
        guard let key else { throw OfflineStoreError(.invalidReference, "\(path) names no entity (no key)") }
        return try T(json: try writer().data(for: try await entity(set, .key(key), query: query)))
    }

    /// How many entities at `path` (a set, or a navigation from one entity) `query`'s `$filter` selects in the store.
    public func count(_ path: ODataPath, query: ODataQuery) async throws -> Int64 {
        Int64(try await countEntities(at: path, query: query))
    }

    /// Creates the entity locally and queues its creation, as `create(_:_:options:)` does; returns it as the store
    /// now holds it.
    public func create<T: ODataStructuredProxy>(_ path: ODataPath, _ value: T) async throws -> T? {
        let (set, _) = try Self.address(path)
        let id = try await create(set, ODataEntity(type: T.odataTypeName, properties: value.odataProperties))
        return try T(json: try writer().data(for: try await entity(set, .id(id), query: ODataQuery())))
    }

    /// Changes the entity at `path` (a set and a key) locally and queues the change, as
    /// `update(_:_:with:method:options:)` does. `etag` is not used: the upload sends the ETag the store holds.
    public func update<T: ODataStructuredProxy>(
        _ path: ODataPath, with value: T, method: ODataUpdateMethod, ifMatch etag: String?
    ) async throws {
        let (set, key) = try Self.address(path)
        guard let key else { throw OfflineStoreError(.invalidReference, "\(path) names no entity (no key)") }
        try await update(set, .key(key), with: ODataEntity(properties: value.odataProperties), method: method)
    }

    /// Deletes the entity at `path` (a set and a key) locally and queues the deletion, as
    /// `delete(_:_:options:)` does. `etag` is not used: the upload sends the ETag the store holds.
    public func delete(_ path: ODataPath, ifMatch etag: String?) async throws {
        let (set, key) = try Self.address(path)
        guard let key else { throw OfflineStoreError(.invalidReference, "\(path) names no entity (no key)") }
        try await delete(set, .key(key))
    }

    /// The content the store holds for the media entity at `path` (a set and a key); see `media(_:_:)`.
    public func mediaContent(_ path: ODataPath) async throws -> Data {
        let (set, key) = try Self.address(path)
        guard let key else { throw OfflineStoreError(.invalidReference, "\(path) names no entity (no key)") }
        return try await media(set, .key(key)).data
    }

    /// Replaces the content of the media entity at `path` (a set and a key) locally and queues the upload, as
    /// `updateMedia(_:_:data:contentType:options:)` does.
    public func replaceMediaContent(_ path: ODataPath, with data: Data, contentType: String) async throws {
        let (set, key) = try Self.address(path)
        guard let key else { throw OfflineStoreError(.invalidReference, "\(path) names no entity (no key)") }
        try await updateMedia(set, .key(key), data: data, contentType: contentType)
    }

    /// One entity of the store, by key or id, with `query`'s `$select`.
    public func entity(
        _ entitySet: String, _ reference: EntityReference, query: ODataQuery = ODataQuery()
    )
        async throws -> ODataEntity
    {
        let opened = try current()
        let table = try opened.schema.table(entitySet)
        let select = try OfflineSelect(table: table, query: ODataQuery().select(query.select), version: opened.version)
        return try await opened.store.database.read { db in
            select.entity(from: try Self.row(db, table: table, reference))
        }
    }

    private func writer() throws -> ODataPayloadWriter {
        let opened = try current()
        return ODataPayloadWriter(version: opened.version, serviceURL: configuration.service.configuration.serviceURL)
    }

    /// The entity set and key a path names: `Set` or `Set(key)` (navigation paths come later).
    static func address(_ path: ODataPath) throws(OfflineStoreError) -> (set: String, key: ODataKey?) {
        let parts = path.segments
        if parts.count == 1, let set = parts[0].entitySetName { return (set, nil) }
        if parts.count == 2, let set = parts[0].entitySetName, case .key(let key) = parts[1] { return (set, key) }
        throw OfflineStoreError(
            .unsupported, "the offline store reads entity sets and entities by key; not \(path) yet")
    }
}

extension ODataPath.Segment {
    /// The name this part gives when it names an entity set or a navigation property (`ODataPath("Set")` with a
    /// literal is a raw segment).
    var entitySetName: String? {
        switch self {
        case .name(let name): name
        case .raw(let text) where !text.contains("(") && !text.contains("/"): text
        default: nil
        }
    }
}
