public import Foundation
public import SatchelHTTP
import SatchelJSON

/// How an update is sent.
public enum ODataUpdateMethod: Sendable, Hashable {
    /// Only the given properties change: `PATCH` in V4, `MERGE` in V2 (SAP Gateway's partial update).
    case merge
    /// The entity is replaced: properties not sent are reset to their defaults.
    case replace
}

/// What a write returned: the entity when the server sent it back, and the new ETag.
public struct ODataWriteResult: Sendable, Hashable {
    /// The entity the server sent back; `nil` when it answered without a body (`204 No Content`).
    public var entity: ODataEntity?
    /// The new ETag: the returned entity's, else the response's `ETag` header; `nil` when neither was sent.
    public var etag: String?
    /// `Location` of a created entity.
    public var location: String?
    /// A result with the given parts.
    public init(entity: ODataEntity? = nil, etag: String? = nil, location: String? = nil) {
        self.entity = entity
        self.etag = etag
        self.location = location
    }
}

extension ODataService {
    /// Creates an entity in a set (or a contained/navigation collection path); nested entities in
    /// `.entity`/`.entities` values are created with it (deep insert), and ``ODataEntity/bindings`` link it to
    /// existing ones.
    ///
    /// ```swift
    /// var student = ODataEntity(properties: ["FirstName": "Ada", "LastName": "Lovelace"])
    /// student["Visits"] = .entities([ODataEntity(properties: ["VisitNo": 1])])
    /// let created = try await service.create("StudentSet", student).entity
    /// ```
    ///
    /// `headers` go with this request only (the offline store's `Repeatability-Request-ID`, say).
    @discardableResult
    public func create(
        _ path: ODataPath, _ entity: ODataEntity, headers: HTTPClient.Headers = [:]
    ) async throws
        -> ODataWriteResult
    {
        let version = try await version()
        let response = try await sendWriting(version: version) { atom in
            var request = request(
                .post, url(path: path.text(for: version)), version: version, operation: "create in \(path)",
                body: try payloadWriter(for: version).body(for: entity, type: entityType(of: path), atom: atom).httpBody
            )
            for field in headers { request.headers[field.name] = field.value }
            return request
        }
        var result = ODataWriteResult(etag: response.etag, location: response.headers["Location"])
        if !response.body.isEmpty, response.status != 204 {
            var created = try await reader().entity(from: response.body, type: entityType(of: path))
            if created.etag == nil { created.etag = response.etag }
            result.entity = created
            result.etag = created.etag
        }
        return result
    }

    /// Updates the entity at `path` (`StudentSet('0042')`). With `ifMatch`, the server refuses the change if the
    /// entity changed since (``ODataError/Code/preconditionFailed``, carrying the current ETag when sent).
    @discardableResult
    public func update(
        _ path: ODataPath, with entity: ODataEntity, method: ODataUpdateMethod = .merge, ifMatch etag: String? = nil,
        headers: HTTPClient.Headers = [:]
    ) async throws -> ODataWriteResult {
        let version = try await version()
        let httpMethod: HTTPClient.Method = method == .replace ? .put : (version == .v2 ? .merge : .patch)
        let response = try await sendWriting(version: version) { atom in
            var request = request(
                httpMethod, url(path: path.text(for: version)), version: version, operation: "update \(path)",
                body: try payloadWriter(for: version).body(for: entity, type: entityType(of: path), atom: atom).httpBody
            )
            if let etag { request.headers["If-Match"] = etag }
            for field in headers { request.headers[field.name] = field.value }
            return request
        }
        var result = ODataWriteResult(etag: response.etag)
        if !response.body.isEmpty, response.status != 204 {
            result.entity = try await reader().entity(from: response.body, type: entityType(of: path))
            result.etag = result.entity?.etag ?? response.etag
        }
        return result
    }

    /// Updates one entity by key.
    @discardableResult
    public func update(
        _ set: String, key: ODataKey, with entity: ODataEntity, method: ODataUpdateMethod = .merge,
        ifMatch etag: String? = nil
    ) async throws -> ODataWriteResult {
        try await update(ODataPath(set).key(key), with: entity, method: method, ifMatch: etag)
    }

    /// Deletes the entity at `path`; `ifMatch` guards it like an update (`"*"` matches any version).
    public func delete(_ path: ODataPath, ifMatch etag: String? = nil, headers: HTTPClient.Headers = [:]) async throws {
        let version = try await version()
        var request = request(
            .delete, url(path: path.text(for: version)), version: version, operation: "delete \(path)")
        if let etag { request.headers["If-Match"] = etag }
        for field in headers { request.headers[field.name] = field.value }
        _ = try await send(request)
    }

    // MARK: Links

    /// Links an existing entity to another through a navigation property (V4 `Nav/$ref`, V2 `$links/Nav`): adds
    /// to a collection (POST) or sets a to-one link (`replace`, PUT). `headers` go with this request only.
    public func addLink(
        from source: ODataPath, navigation: String, to target: ODataPath, replace: Bool = false,
        headers: HTTPClient.Headers = [:]
    ) async throws {
        let version = try await version()
        let targetURL = url(path: target.text(for: version)).absoluteString
        let path =
            version == .v4
            ? source.navigate(navigation).appending(raw: "$ref").text(for: version)
            : source.appending(raw: "$links").navigate(navigation).text(for: version)
        _ = try await sendWriting(version: version) { atom in
            var request = request(
                replace ? .put : .post, url(path: path), version: version,
                operation: "link \(source)/\(navigation)",
                body: payloadWriter(for: version).linkBody(to: targetURL, atom: atom).httpBody)
            for field in headers { request.headers[field.name] = field.value }
            return request
        }
    }

    /// Removes a link: for a collection, the one to `target`; for a to-one navigation, pass `target: nil`.
    public func removeLink(
        from source: ODataPath, navigation: String, to target: ODataPath? = nil, headers: HTTPClient.Headers = [:]
    ) async throws {
        let version = try await version()
        let path: String
        var query = ""
        if version == .v4 {
            path = source.navigate(navigation).appending(raw: "$ref").text(for: version)
            if let target {
                query = "$id=" + ODataURLEncoding.query(url(path: target.text(for: version)).absoluteString)
            }
        } else {
            var links = source.appending(raw: "$links").navigate(navigation)
            // V2 addresses the link by the target's key: $links/Nav('key').
            if let target, let key = target.segments.last, case .key(let value) = key { links = links.key(value) }
            path = links.text(for: version)
        }
        var request = request(
            .delete, url(path: path, query: query), version: version, operation: "unlink \(source)/\(navigation)")
        for field in headers { request.headers[field.name] = field.value }
        _ = try await send(request)
    }

    // MARK: Media

    /// Replaces a media entity's content (`PUT …/$value`) from a file, streamed from disk.
    @discardableResult
    public func uploadMedia(
        _ path: ODataPath, from file: URL, contentType: String, ifMatch etag: String? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> String? {
        let version = try await version()
        var request = request(
            .put, url(path: path.appending(raw: "$value").text(for: version)), version: version,
            operation: "upload \(path)/$value")
        if let etag { request.headers["If-Match"] = etag }
        return try await sendFile(request, file: file, contentType: contentType, progress: progress).etag
    }

    /// Creates a media entity from a file (`POST` to the set with the content as body); `slug` suggests its
    /// name or key. Returns the created entity when the server sends it.
    @discardableResult
    public func createMedia(
        _ set: ODataPath, from file: URL, contentType: String, slug: String? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> ODataWriteResult {
        let version = try await version()
        var request = request(
            .post, url(path: set.text(for: version)), version: version, operation: "create media in \(set)")
        if let slug { request.headers["Slug"] = slug }
        let response = try await sendFile(request, file: file, contentType: contentType, progress: progress)
        return try await mediaCreated(response, in: set)
    }

    /// Replaces a media entity's content (`PUT …/$value`) with bytes in memory. Returns the new media ETag, if the
    /// server sent one. `headers` go with this request only.
    @discardableResult
    public func uploadMedia(
        _ path: ODataPath, data: Data, contentType: String, ifMatch etag: String? = nil,
        headers: HTTPClient.Headers = [:]
    ) async throws -> String? {
        let version = try await version()
        var request = request(
            .put, url(path: path.appending(raw: "$value").text(for: version)), version: version,
            operation: "upload \(path)/$value", body: .data(data, contentType: contentType))
        if let etag { request.headers["If-Match"] = etag }
        for field in headers { request.headers[field.name] = field.value }
        return try await send(request).etag
    }

    /// Creates a media entity from bytes in memory (`POST` to the set with the content as body). `headers` go with
    /// this request only.
    @discardableResult
    public func createMedia(
        _ set: ODataPath, data: Data, contentType: String, slug: String? = nil, headers: HTTPClient.Headers = [:]
    ) async throws -> ODataWriteResult {
        let version = try await version()
        var request = request(
            .post, url(path: set.text(for: version)), version: version, operation: "create media in \(set)",
            body: .data(data, contentType: contentType))
        if let slug { request.headers["Slug"] = slug }
        for field in headers { request.headers[field.name] = field.value }
        return try await mediaCreated(try await send(request), in: set)
    }

    /// What a media creation answered: the entity when the server sent it, its ETag and Location.
    private func mediaCreated(_ response: HTTPClient.Response, in set: ODataPath) async throws -> ODataWriteResult {
        var result = ODataWriteResult(etag: response.etag, location: response.headers["Location"])
        if !response.body.isEmpty, response.status != 204 {
            result.entity = try await reader().entity(from: response.body, type: entityType(of: set))
        }
        return result
    }

    private func sendFile(
        _ request: HTTPClient.Request, file: URL, contentType: String, progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws -> HTTPClient.Response {
        var request = request
        request.validatesStatus = false
        let response: HTTPClient.Response
        do {
            response = try await client.upload(request, fromFile: file, contentType: contentType, progress: progress)
        } catch let error as HTTPTransferError {
            throw ODataError(http: error)
        }
        guard response.isSuccess else { throw ODataError(response: response, request: request) }
        return response
    }
}
