public import Foundation
public import SatchelJSON
import SatchelHTTP

/// What typed code (and the generated proxies) reads and writes through: an ``ODataService`` online, or an
/// offline store (SatchelOffline's `OfflineStore`) answering the same calls from its local database. Code written
/// against `any ODataProvider` runs unchanged against either.
///
/// ```swift
/// let online = GWSAMPLEBASICEntitiesService(provider: service)
/// let offline = GWSAMPLEBASICEntitiesService(provider: store)
/// let cheap = try await offline.productSet.all(ODataQuery().filter(Product.Fields.price < 100))
/// ```
public protocol ODataProvider: Sendable {
    /// The OData version whose JSON the typed values decode from.
    func version() async throws -> ODataVersion
    /// The entities at `path` that `query` selects, each pulled into `T`.
    func entities<T: JSONDecodable & Sendable>(
        _ path: ODataPath, query: ODataQuery, pullDecoding type: T.Type
    ) -> AsyncThrowingStream<T, any Error>
    /// The entity at `path` (a set and a key), pulled into `T`.
    func entity<T: JSONDecodable>(_ path: ODataPath, query: ODataQuery, pullDecoding type: T.Type) async throws -> T
    /// How many entities at `path` `query`'s filter selects.
    func count(_ path: ODataPath, query: ODataQuery) async throws -> Int64
    /// Creates an entity from a typed value; the created entity when the provider returns one.
    func create<T: ODataStructuredProxy>(_ path: ODataPath, _ value: T) async throws -> T?
    /// Changes the entity at `path` (merge: the value's non-nil properties).
    func update<T: ODataStructuredProxy>(
        _ path: ODataPath, with value: T, method: ODataUpdateMethod, ifMatch etag: String?
    ) async throws
    /// Deletes the entity at `path`.
    func delete(_ path: ODataPath, ifMatch etag: String?) async throws
    /// The content of the media entity at `path` (a set and a key).
    func mediaContent(_ path: ODataPath) async throws -> Data
    /// Replaces the content of the media entity at `path` (a service that requires `If-Match` gets the media ETag
    /// the entity has now).
    func replaceMediaContent(_ path: ODataPath, with data: Data, contentType: String) async throws
    /// Sends reads and changesets together (`$batch`).
    func send(_ batch: ODataBatch) async throws -> ODataBatchResponse
    /// Links an entity to another through a navigation property: adds to a collection, or sets a to-one link
    /// (`replace`).
    func addLink(from source: ODataPath, navigation: String, to target: ODataPath, replace: Bool) async throws
    /// Removes a link: for a collection, the one to `target`; for a to-one navigation, `target: nil`.
    func removeLink(from source: ODataPath, navigation: String, to target: ODataPath?) async throws
}

extension ODataService: ODataProvider {
    /// Deletes the entity at `path` with `DELETE`, guarded by `ifMatch` when given.
    public func delete(_ path: ODataPath, ifMatch etag: String?) async throws {
        try await delete(path, ifMatch: etag, headers: [:])
    }

    /// Reads `…/$value` into memory.
    public func mediaContent(_ path: ODataPath) async throws -> Data { try await rawValue(path) }

    /// Adds the link with V4 `$ref` or V2 `$links`: POST, or PUT when `replace`.
    public func addLink(from source: ODataPath, navigation: String, to target: ODataPath, replace: Bool) async throws {
        try await addLink(from: source, navigation: navigation, to: target, replace: replace, headers: [:])
    }

    /// Removes the link with V4 `$ref` or V2 `$links` (`DELETE`).
    public func removeLink(from source: ODataPath, navigation: String, to target: ODataPath?) async throws {
        try await removeLink(from: source, navigation: navigation, to: target, headers: [:])
    }

    /// Reads the entity first for its media ETag (else its ETag), then replaces `…/$value` with `If-Match` set to it.
    public func replaceMediaContent(_ path: ODataPath, with data: Data, contentType: String) async throws {
        let current = try await entity(path)
        try await uploadMedia(path, data: data, contentType: contentType, ifMatch: current.mediaETag ?? current.etag)
    }
}
