public import Foundation
public import SatchelHTTP
import SatchelJSON
import SatchelXML

extension ODataService {
    /// The entities of an entity set (or any collection path: navigation, a function returning entities), as an
    /// `AsyncSequence` that fetches the next page only when the previous one is consumed.
    ///
    /// ```swift
    /// for try await visit in service.entities(ODataPath("StudentSet").key("0042").navigate("Visits")) { … }
    /// ```
    public func entities(_ path: ODataPath, query: ODataQuery = ODataQuery()) -> ODataEntitySequence {
        ODataEntitySequence(pages: pages(path, query: query))
    }

    /// The pages of a collection, each with its count, next link and delta link.
    public func pages(_ path: ODataPath, query: ODataQuery = ODataQuery()) -> ODataPageSequence {
        ODataPageSequence(service: self, path: path, query: query)
    }

    /// One page: the first page of `path` with `query`, or the page a next or delta link points at.
    ///
    /// With `trackingChanges`, the service is asked to track changes (`Prefer: odata.track-changes`, V4 and SAP
    /// Gateway V2 alike): the last page then carries a delta link (``ODataPage/deltaLink``: V4
    /// `@odata.deltaLink`, SAP `__delta` with `!deltatoken`) to read what changed since, page by page, with
    /// ``page(link:entitySet:)``. A V2 service without delta support for the set may refuse the preference.
    public func page(
        _ path: ODataPath, query: ODataQuery = ODataQuery(), trackingChanges: Bool = false
    )
        async throws -> ODataPage
    {
        let version = try await version()
        return try await page(
            at: url(path: path.text(for: version), query: try query.queryString(for: version)),
            type: entityType(of: path),
            operation: "read \(path)",
            extraHeaders: trackingChanges ? ["Prefer": "odata.track-changes"] : [:])
    }

    /// The first page of `path` asking the service to track changes; a service that refuses to for this set (SAP
    /// Gateway answers 400 for a set without delta support, others 501) is read without, and the page then carries
    /// no delta link.
    public func pageTrackingChangesIfSupported(
        _ path: ODataPath, query: ODataQuery = ODataQuery()
    ) async throws
        -> ODataPage
    {
        do {
            return try await page(path, query: query, trackingChanges: true)
        } catch let error as ODataError where [400, 501].contains(error.status ?? 0) {
            return try await page(path, query: query)
        }
    }

    /// The page at an absolute or service-relative link (`@odata.nextLink`, `__next`, a delta link).
    public func page(link: String, entitySet: String? = nil) async throws -> ODataPage {
        try await page(
            at: url(absolute: link), type: entitySet.flatMap { cachedMetadata?.entityType(ofSet: $0) },
            operation: "read \(entitySet ?? "collection")")
    }

    func page(
        at url: URL, type: CSDLEntityType?, operation: String, extraHeaders: HTTPClient.Headers = [:]
    ) async throws -> ODataPage {
        let version = try await version()
        var request = request(.get, url, version: version, operation: operation)
        if version == .v4, let size = configuration.pageSize { request.headers["Prefer"] = "odata.maxpagesize=\(size)" }
        for field in extraHeaders {
            // Preferences add up (`odata.track-changes, odata.maxpagesize=50`); other headers replace.
            if field.name.lowercased() == "prefer", let existing = request.headers["Prefer"] {
                request.headers["Prefer"] = field.value + ", " + existing
            } else {
                request.headers[field.name] = field.value
            }
        }
        let response = try await send(request)
        let reader = try await reader()
        var page = try Self.decoding(response, of: request) { try reader.page(from: response.body, type: type) }
        page.byteCount = response.body.count
        return page
    }

    /// Reads `response` with `read`. An ``ODataError`` it throws gets the request's method, URL and operation and
    /// the response's status; when the body is not the JSON (or, for `$metadata`, the XML) that was expected, the
    /// message also says what its `Content-Type` was and how it starts (an HTML login page, an XML error).
    static func decoding<T>(
        _ response: HTTPClient.Response, of request: HTTPClient.Request, expecting format: String = "json",
        _ read: () throws -> T
    ) throws -> T {
        do {
            return try read()
        } catch var error as ODataError {
            if error.url == nil { error.url = request.url }
            if error.method == nil { error.method = request.method }
            if error.status == nil { error.status = response.status }
            if error.operation == nil { error.operation = request.operation }
            // Unreadable, or XML of another kind than expected (an HTML page where an Atom feed should be).
            let unreadable =
                error.underlying is JSONError || error.underlying is XMLReadError
                || (error.code == .invalidPayload && error.location == "/")
            let type = response.headers["Content-Type"] ?? "none"
            if unreadable, !type.lowercased().contains(format) {
                let start = String(decoding: response.body.prefix(80), as: UTF8.self)
                error.message += " (the response's Content-Type is \(type); it starts with \(start.debugDescription))"
            }
            throw error
        }
    }

    /// One entity by key (`StudentSet('0042')`, `Visits(StudentId='0042',VisitNo=3)`).
    public func entity(_ set: String, key: ODataKey, query: ODataQuery = ODataQuery()) async throws -> ODataEntity {
        try await entity(ODataPath(set).key(key), query: query)
    }

    /// The entity at a path: keyed, a singleton, or a to-one navigation (`StudentSet('1')/School`).
    public func entity(_ path: ODataPath, query: ODataQuery = ODataQuery()) async throws -> ODataEntity {
        let version = try await version()
        let url = url(path: path.text(for: version), query: try query.queryString(for: version))
        let request = request(.get, url, version: version, operation: "read \(path)")
        let response = try await send(request)
        let reader = try await reader()
        let type = entityType(of: path)
        var entity = try Self.decoding(response, of: request) { try reader.entity(from: response.body, type: type) }
        if entity.etag == nil { entity.etag = response.etag }
        return entity
    }

    /// The entity type a path leads to, following navigation properties from its entity set or singleton;
    /// `nil` without metadata or when a segment is not a navigation property.
    func entityType(of path: ODataPath) -> CSDLEntityType? {
        if case .raw(let text) = path.segments.first, text.contains("/") { return nil }
        guard let metadata = cachedMetadata, let root = path.rootName,
            var type = metadata.entityType(ofSet: root)
        else { return nil }
        for segment in path.segments.dropFirst() {
            switch segment {
            case .key: continue
            case .name(let name), .raw(let name):
                if let navigation = metadata.allNavigationProperties(of: type).first(where: { $0.name == name }),
                    let target = metadata.entityType(named: navigation.type.name)
                {
                    type = target
                } else if let cast = metadata.entityType(named: name) {
                    type = cast
                } else {
                    return nil
                }
            }
        }
        return type
    }

    /// The number of entities in a collection matching the query's filter (`…/$count`).
    public func count(_ path: ODataPath, query: ODataQuery = ODataQuery()) async throws -> Int64 {
        let version = try await version()
        var countQuery = ODataQuery()
        countQuery.filter = query.filter
        countQuery.search = query.search
        countQuery.customOptions = query.customOptions
        let url = url(
            path: path.appending(raw: "$count").text(for: version), query: try countQuery.queryString(for: version))
        var request = request(.get, url, version: version, operation: "count \(path)")
        request.headers["Accept"] = "text/plain"
        let response = try await send(request)
        let text = response.text.trimmingCharacters(in: .whitespacesAndNewlines)
        guard let count = Int64(text) else {
            throw ODataError(.invalidPayload, "the count is not a number: \(text.prefix(40))", url: url)
        }
        return count
    }

    /// The raw value of a property (`…/Name/$value`) or of a media entity, in memory.
    public func rawValue(_ path: ODataPath) async throws -> Data {
        let version = try await version()
        var request = request(
            .get, url(path: path.appending(raw: "$value").text(for: version)), version: version,
            operation: "read \(path)/$value")
        request.headers["Accept"] = "*/*"
        return try await send(request).body
    }

    /// Streams a media entity's content (`…/$value`) into a file, in constant memory; the file is replaced only
    /// when the download succeeds. Returns the content's ETag, if the server sent one.
    @discardableResult
    public func downloadMedia(
        _ path: ODataPath, to file: URL, progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> String? {
        let version = try await version()
        var request = request(
            .get, url(path: path.appending(raw: "$value").text(for: version)), version: version,
            operation: "download \(path)/$value")
        request.headers["Accept"] = "*/*"
        do {
            return try await client.download(request, to: file, progress: progress).etag
        } catch let error as HTTPTransferError {
            throw ODataError(http: error)
        }
    }
}
