import Foundation
import SatchelHTTP
public import SatchelJSON

extension ODataService {
    /// One entity pulled straight into a `JSONDecodable` type (V2 `{"d": …}` unwrapped).
    ///
    /// ```swift
    /// let partner = try await service.entity(ODataPath("BusinessPartnerSet").key("0100000000"),
    ///                                        pullDecoding: BusinessPartner.self)
    /// ```
    public func entity<T: JSONDecodable>(
        _ path: ODataPath, query: ODataQuery = ODataQuery(), pullDecoding type: T.Type
    ) async throws -> T {
        let version = try await version()
        let url = url(path: path.text(for: version), query: try query.queryString(for: version))
        let response = try await send(request(.get, url, version: version, operation: "read \(path)"))
        return try Self.pullEntity(T.self, from: response.body, version: version, url: url)
    }

    /// Creates an entity from a typed value and pulls the created entity the server returns (`nil` when it sends
    /// none, as with `Prefer: return=minimal`).
    public func create<T: ODataStructuredProxy>(_ path: ODataPath, _ value: T) async throws -> T? {
        let version = try await version()
        let writer = payloadWriter(for: version)
        let body = HTTPClient.Body.json(
            bytes: try writer.data(for: ODataEntity(type: T.odataTypeName, properties: value.odataProperties)))
        let url = url(path: path.text(for: version))
        let response = try await send(request(.post, url, version: version, operation: "create in \(path)", body: body))
        if response.body.isEmpty || response.status == 204 { return nil }
        return try Self.pullEntity(T.self, from: response.body, version: version, url: url)
    }

    /// Updates the entity at `path` from a typed value (merge: only the non-`nil` properties are sent).
    public func update<T: ODataStructuredProxy>(
        _ path: ODataPath, with value: T, method: ODataUpdateMethod = .merge, ifMatch etag: String? = nil
    ) async throws {
        try await update(
            path, with: ODataEntity(type: T.odataTypeName, properties: value.odataProperties), method: method,
            ifMatch: etag)
    }

    static func pullEntity<T: JSONDecodable>(
        _ type: T.Type, from body: Data, version: ODataVersion, url: URL
    ) throws -> T {
        do {
            guard version == .v2 else { return try T(json: body) }
            return try JSONReader.read(body) { reader in
                var result: T?
                try reader.readObject { key, reader in
                    if key == "d" { result = try T(from: &reader) }
                }
                return try reader.required(result, "d")
            }
        } catch {
            throw ODataError(.invalidPayload, "the entity does not decode as \(T.self)", url: url, underlying: error)
        }
    }
}
