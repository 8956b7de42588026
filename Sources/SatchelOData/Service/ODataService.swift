public import Foundation
public import SatchelHTTP
import SatchelJSON
import Synchronization

/// An OData V2 or V4 service: reads collections as `AsyncSequence`s that follow server paging, reads and writes
/// entities with ETags, follows navigation, streams media, calls operations and tracks changes.
///
/// ```swift
/// let service = ODataService(configuration: .init(serviceURL: url, sapClient: "100", auth: [CSRFTokenAuth()]))
/// let query = ODataQuery().filter(.property("StateCode") == "MS").orderBy("LastName").top(100)
/// for try await student in service.entities("StudentSet", query: query) {
///     print(student["LastName"]?.stringValue ?? "")
/// }
/// ```
///
/// A service is a value: copies share the HTTP client and the `$metadata` cache.
public struct ODataService: Sendable {
    /// How the service is reached: root URL, version, SAP options, page size, headers and auth.
    public let configuration: Configuration
    /// The HTTP client every request goes through (shared by copies of the service).
    public let client: HTTPClient
    private let cache: MetadataCache

    /// A service with its own `HTTPClient` built from `configuration.http` and `configuration.auth`.
    public init(configuration: Configuration, transport: any HTTPTransport = HTTPClient.defaultTransport()) {
        self.init(
            configuration: configuration,
            client: HTTPClient(configuration: configuration.http, transport: transport, auth: configuration.auth))
    }

    /// A service that sends through an existing client (sharing its cookies and auth).
    public init(configuration: Configuration, client: HTTPClient) {
        self.configuration = configuration
        self.client = client
        self.cache = MetadataCache()
    }

    // MARK: Metadata and version

    /// The service's `$metadata`, fetched once and cached.
    public func metadata() async throws -> ODataMetadata {
        if let metadata = cache.metadata { return metadata }
        _ = try await metadataDocument()
        return cache.metadata!
    }

    /// Fetches the `$metadata` document itself (for a copy kept offline), parses it and caches the result.
    public func metadataDocument() async throws -> Data {
        var request = HTTPClient.Request(.get, url: url(path: "$metadata"), operation: "read $metadata")
        request.headers["Accept"] = "application/xml"
        let response = try await send(request)
        cache.metadata = try Self.decoding(response, of: request, expecting: "xml") {
            try ODataMetadata.parse(data: response.body)
        }
        return response.body
    }

    /// Uses `metadata` instead of fetching `$metadata` (a bundled copy, or one read earlier).
    public func use(_ metadata: ODataMetadata) { cache.metadata = metadata }

    /// The metadata if already fetched or given; never sends a request.
    public var cachedMetadata: ODataMetadata? { cache.metadata }

    /// The configured version, else the one `$metadata` declares.
    public func version() async throws -> ODataVersion {
        if let version = configuration.version { return version }
        return try await metadata().version
    }

    func reader() async throws -> ODataPayloadReader {
        ODataPayloadReader(version: try await version(), metadata: cache.metadata)
    }

    /// A writer for request bodies: absolute V2 links, values typed by the metadata when it is known.
    func payloadWriter(for version: ODataVersion) -> ODataPayloadWriter {
        ODataPayloadWriter(version: version, serviceURL: configuration.serviceURL, metadata: cache.metadata)
    }

    /// Whether entity bodies go as Atom entries: V2 with ``ODataPayloadFormat/atom``, or
    /// ``ODataPayloadFormat/automatic`` once the service has answered in Atom.
    func writesAtom(_ version: ODataVersion) -> Bool {
        guard version == .v2 else { return false }
        switch configuration.payloadFormat {
        case .atom: return true
        case .json: return false
        case .automatic: return cache.answersInAtom
        }
    }

    // MARK: Requests

    /// The absolute URL of a path below the service root with a query string (already encoded) and the SAP
    /// options appended.
    func url(path: String, query: String = "") -> URL {
        var base = configuration.serviceURL.absoluteString
        if !base.hasSuffix("/") { base += "/" }
        return url(absolute: base + path, query: query)
    }

    /// `link` (absolute, or relative to the service root) with `query` and the SAP options added when missing.
    func url(absolute link: String, query: String = "") -> URL {
        var text = link
        if !link.contains("://") {
            var base = configuration.serviceURL.absoluteString
            if !base.hasSuffix("/") { base += "/" }
            text =
                link.hasPrefix("/")
                ? (URL(string: link, relativeTo: configuration.serviceURL)?.absoluteString ?? base + link) : base + link
        }
        var items: [String] = query.isEmpty ? [] : [query]
        if let client = configuration.sapClient, !text.contains("sap-client=") {
            items.append("sap-client=" + ODataURLEncoding.query(client))
        }
        if let language = configuration.sapLanguage, !text.contains("sap-language=") {
            items.append("sap-language=" + ODataURLEncoding.query(language))
        }
        if !items.isEmpty { text += (text.contains("?") ? "&" : "?") + items.joined(separator: "&") }
        return URL(string: text) ?? configuration.serviceURL
    }

    /// The headers every OData request carries for `version`.
    package func headers(for version: ODataVersion) -> HTTPClient.Headers {
        var headers = configuration.headers
        switch version {
        case .v2:
            headers.setIfAbsent("Accept", configuration.payloadFormat.acceptV2)
            headers.setIfAbsent("MaxDataServiceVersion", "2.0")
            headers.setIfAbsent("DataServiceVersion", "2.0")
        case .v4:
            headers.setIfAbsent("Accept", "application/json;odata.metadata=minimal")
            headers.setIfAbsent("OData-MaxVersion", "4.0")
            headers.setIfAbsent("OData-Version", "4.0")
        }
        return headers
    }

    /// Sends a request; a status outside 2xx becomes an ``ODataError`` with the server's error body read.
    func send(_ request: HTTPClient.Request) async throws -> HTTPClient.Response {
        var request = request
        request.validatesStatus = false
        let response: HTTPClient.Response
        do {
            response = try await client.send(request)
        } catch let error as HTTPTransferError {
            throw ODataError(http: error)
        }
        guard response.isSuccess else { throw ODataError(response: response, request: request) }
        noteFormat(contentType: response.headers["Content-Type"])
        return response
    }

    /// Remembers that the service answers in Atom (``writesAtom(_:)`` then writes Atom under
    /// ``ODataPayloadFormat/automatic``).
    func noteFormat(contentType: String?) {
        if !cache.answersInAtom, contentType?.lowercased().contains("application/atom+xml") == true {
            cache.answersInAtom = true
        }
    }

    /// Sends a request with a body in the format the service takes, made by `make(atom)`. Under
    /// ``ODataPayloadFormat/automatic`` a V2 service that refuses a JSON body with 415 Unsupported Media Type (so
    /// it did not process it) is sent the same request once more in Atom, and is written to in Atom from then on:
    /// a write that comes before any read still reaches a service that speaks only Atom.
    func sendWriting(
        version: ODataVersion, _ make: (_ atom: Bool) throws -> HTTPClient.Request
    ) async throws -> HTTPClient.Response {
        let atom = writesAtom(version)
        do {
            return try await send(try make(atom))
        } catch let error as ODataError
            where error.status == 415 && !atom && version == .v2 && configuration.payloadFormat == .automatic
        {
            cache.answersInAtom = true
            return try await send(try make(true))
        }
    }

    /// A request for `version` with the standard headers.
    func request(
        _ method: HTTPClient.Method, _ url: URL, version: ODataVersion, operation: String, body: HTTPClient.Body? = nil
    ) -> HTTPClient.Request {
        HTTPClient.Request(method, url: url, headers: headers(for: version), body: body, operation: operation)
    }
}

/// The `$metadata` shared by copies of a service.
final class MetadataCache: Sendable {
    private let value = Mutex<ODataMetadata?>(nil)
    private let atom = Atomic<Bool>(false)
    var metadata: ODataMetadata? {
        get { value.withLock { $0 } }
        set { value.withLock { $0 = newValue } }
    }
    /// Whether the service has answered a request with an Atom body (how ``ODataPayloadFormat/automatic``
    /// learns that it speaks Atom).
    var answersInAtom: Bool {
        get { atom.load(ordering: .relaxed) }
        set { atom.store(newValue, ordering: .relaxed) }
    }
}
