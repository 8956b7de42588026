import Foundation

/// A typed collection of entities (an entity set, or a to-many navigation path), as generated services hand
/// them out.
///
/// ```swift
/// let api = GWSAMPLEBASICEntitiesService(service: service)
/// for try await product in api.productSet.list(ODataQuery().filter(Product.Fields.price > 500)) { … }
/// let partner = try await api.businessPartnerSet.get(.init(businessPartnerID: "0100000000"))
/// ```
public struct ODataTypedCollection<Entity: ODataEntityProxy>: Sendable {
    /// An ``ODataService`` online, an offline store offline.
    public let provider: any ODataProvider
    /// The collection's path: an entity set, or a navigation path from an entity.
    public let path: ODataPath

    /// The collection at `path`, read and written through `provider`.
    public init(provider: any ODataProvider, path: ODataPath) {
        self.provider = provider
        self.path = path
    }

    /// The collection at `path` of an online service.
    public init(service: ODataService, path: ODataPath) { self.init(provider: service, path: path) }

    /// The entities matching `query`, page after page (pull-decoded).
    public func list(_ query: ODataQuery = ODataQuery()) -> AsyncThrowingStream<Entity, any Error> {
        provider.entities(path, query: query, pullDecoding: Entity.self)
    }

    /// All entities matching `query`, collected.
    public func all(_ query: ODataQuery = ODataQuery()) async throws -> [Entity] {
        var result: [Entity] = []
        for try await entity in list(query) { result.append(entity) }
        return result
    }

    /// The number of entities matching the query's filter.
    public func count(_ query: ODataQuery = ODataQuery()) async throws -> Int64 {
        try await provider.count(path, query: query)
    }

    /// The entity with this key, as a path to read, change or navigate from.
    public subscript(key: Entity.Key) -> ODataTypedEntity<Entity> {
        ODataTypedEntity(provider: provider, path: path.key(key.odataKey))
    }

    /// Reads the entity with this key.
    public func get(_ key: Entity.Key, query: ODataQuery = ODataQuery()) async throws -> Entity {
        try await self[key].get(query)
    }

    /// Creates an entity; returns the entity the server created, when it sends it back.
    @discardableResult
    public func create(_ entity: Entity) async throws -> Entity? {
        try await provider.create(path, entity)
    }

    /// Updates the entity with this key (merge by default: `nil` properties are left alone).
    public func update(
        _ key: Entity.Key, with entity: Entity, method: ODataUpdateMethod = .merge, ifMatch etag: String? = nil
    ) async throws {
        try await self[key].update(entity, method: method, ifMatch: etag)
    }

    /// Deletes the entity with this key.
    public func delete(_ key: Entity.Key, ifMatch etag: String? = nil) async throws {
        try await self[key].delete(ifMatch: etag)
    }
}

/// A typed single entity: an entity by key, a singleton, or a to-one navigation path.
public struct ODataTypedEntity<Entity: ODataEntityProxy>: Sendable {
    /// An ``ODataService`` online, an offline store offline.
    public let provider: any ODataProvider
    /// The entity's path: keyed, a singleton, or a to-one navigation path.
    public let path: ODataPath

    /// The entity at `path`, read and written through `provider`.
    public init(provider: any ODataProvider, path: ODataPath) {
        self.provider = provider
        self.path = path
    }

    /// The entity at `path` of an online service.
    public init(service: ODataService, path: ODataPath) { self.init(provider: service, path: path) }

    /// Reads the entity.
    public func get(_ query: ODataQuery = ODataQuery()) async throws -> Entity {
        try await provider.entity(path, query: query, pullDecoding: Entity.self)
    }

    /// Updates the entity (merge by default: `nil` properties are left alone).
    public func update(
        _ entity: Entity, method: ODataUpdateMethod = .merge, ifMatch etag: String? = nil
    )
        async throws
    {
        try await provider.update(path, with: entity, method: method, ifMatch: etag)
    }

    /// Deletes the entity.
    public func delete(ifMatch etag: String? = nil) async throws {
        try await provider.delete(path, ifMatch: etag)
    }

    /// A to-many navigation property of this entity (generated accessors call this).
    public func collection<Target>(
        _ navigation: String, of type: Target.Type = Target.self
    )
        -> ODataTypedCollection<Target>
    {
        ODataTypedCollection<Target>(provider: provider, path: path.navigate(navigation))
    }

    /// A to-one navigation property of this entity (generated accessors call this).
    public func entity<Target>(_ navigation: String, of type: Target.Type = Target.self) -> ODataTypedEntity<Target> {
        ODataTypedEntity<Target>(provider: provider, path: path.navigate(navigation))
    }
}
