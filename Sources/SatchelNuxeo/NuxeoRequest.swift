public import Foundation
public import SatchelHTTP

/// A Nuxeo REST request, built from parts: the resource (`path/…`, `id/…`, `search/…`, `automation/…`), web
/// adapters (`@children`, `@blob/file:content`, chainable), query items and headers. Every part is encoded where it
/// goes: an NXQL query with `&`, `+` or `=` arrives as written (the old SDK broke those).
///
/// ```swift
/// let children = NuxeoRequest.path("/default-domain/workspaces").adapter("children").query("pageSize", "50")
/// let search = NuxeoRequest.search(nxql: "SELECT * FROM Document WHERE dc:title = 'R&D + QA'")
/// children.url(server: serverURL, apiPrefix: "api/v1", repository: "default")
/// ```
public struct NuxeoRequest: Sendable, Hashable {
    /// Path segments under the API root, each encoded on its own (`path`, `default-domain`, `work spaces`).
    public var segments: [String]
    /// Whether the request goes to the repository (`repo/{name}/` is put before it when a repository is set).
    public var inRepository: Bool
    /// Whether the request goes under the API prefix (`api/v1`); `authentication/token` and `site/…` do not.
    public var underAPI = true
    /// Query items, in order, encoded when the URL is built.
    public var query: [QueryItem] = []
    /// The HTTP method; `GET` by default.
    public var method: HTTPClient.Method = .get
    /// Headers of this request, added to (and overriding) the session's.
    public var headers: HTTPClient.Headers = [:]

    /// One `name=value` of the query string, unencoded.
    public struct QueryItem: Sendable, Hashable {
        /// The item's name.
        public var name: String
        /// The item's value.
        public var value: String
    }

    /// A `GET` of these segments, under the API prefix, without query items or headers.
    public init(segments: [String], inRepository: Bool) {
        self.segments = segments
        self.inRepository = inRepository
    }

    /// A document by path (`/default-domain/workspaces`).
    public static func path(_ path: String) -> NuxeoRequest {
        NuxeoRequest(segments: ["path"] + path.split(separator: "/").map(String.init), inRepository: true)
    }

    /// A document by uid.
    public static func id(_ uid: String) -> NuxeoRequest { NuxeoRequest(segments: ["id", uid], inRepository: true) }

    /// An NXQL search (`search/lang/NXQL/execute?query=…`).
    public static func search(nxql: String) -> NuxeoRequest {
        NuxeoRequest(segments: ["search", "lang", "NXQL", "execute"], inRepository: true).query("query", nxql)
    }

    /// Any other resource under the API root (`me`, `user/alice`, `upload`, `automation/Document.Fetch`).
    public static func resource(_ segments: String...) -> NuxeoRequest {
        NuxeoRequest(segments: segments.flatMap { $0.split(separator: "/").map(String.init) }, inRepository: false)
    }

    /// A resource beside the API rather than under it (`authentication/token`, `site/automation`).
    public static func site(_ segments: String...) -> NuxeoRequest {
        var request = resource(segments.joined(separator: "/"))
        request.underAPI = false
        return request
    }

    /// Adds a web adapter: `@name`, or `@name/value` (`blob`, `file:content`).
    public func adapter(_ name: String, _ value: String? = nil) -> NuxeoRequest {
        var copy = self
        copy.segments.append("@" + name)
        if let value { copy.segments += value.split(separator: "/").map(String.init) }
        return copy
    }

    /// Adds a query item.
    public func query(_ name: String, _ value: String) -> NuxeoRequest {
        var copy = self
        copy.query.append(QueryItem(name: name, value: value))
        return copy
    }

    /// The same request with another HTTP method.
    public func method(_ method: HTTPClient.Method) -> NuxeoRequest {
        var copy = self
        copy.method = method
        return copy
    }

    /// The same request with a header set (replacing one of the same name).
    public func header(_ name: String, _ value: String) -> NuxeoRequest {
        var copy = self
        copy.headers[name] = value
        return copy
    }

    /// The URL: server, API prefix, `repo/{name}/` for repository resources, the segments, the query.
    public func url(server: URL, apiPrefix: String = "api/v1", repository: String? = nil) -> URL {
        var text = server.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        var parts = underAPI ? apiPrefix.split(separator: "/").map(String.init) : []
        if inRepository, let repository { parts += ["repo", repository] }
        parts += segments
        text += "/" + parts.map(Self.encodeSegment).joined(separator: "/")
        if !query.isEmpty {
            text +=
                "?" + query.map { Self.encodeQuery($0.name) + "=" + Self.encodeQuery($0.value) }.joined(separator: "&")
        }
        // Every character was encoded above: the text is a valid URL.
        return URL(string: text)!
    }

    /// Unreserved characters and those a path segment may carry as they are (`:` for `file:content`, `@` for
    /// adapters).
    private static let segmentAllowed = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~:@!$'()*,;")
    /// Unreserved characters only: `&`, `+`, `=`, `#`, `%` and spaces are encoded in query names and values.
    private static let queryAllowed = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encodeSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: segmentAllowed) ?? text
    }

    static func encodeQuery(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: queryAllowed) ?? text
    }
}
