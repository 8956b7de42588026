public import Foundation
public import SatchelCMISCore
public import SatchelHTTP

/// Everything a ``CMISSession`` needs to connect: binding, URL, repository, credentials and defaults.
///
/// ```swift
/// var parameters = SessionParameters(url: URL(string: "https://cmis.example.com/browser")!)
/// parameters.auth = [BasicAuth(user: "alice", password: secret)]
/// parameters.tokenHeader = "X-CSRF-Token"           // Mobile Documents: the XSRF token goes back in a header
/// parameters.preferMyDocuments = true
/// let session = try await CMISSession.connect(parameters)
/// ```
public struct SessionParameters: Sendable {
    /// The wire protocol; both give the same ``CMISSession`` results.
    public enum Binding: String, Sendable, Hashable, CaseIterable {
        /// CMIS 1.1 Browser binding: JSON, `cmisselector` reads and `cmisaction` form posts.
        case browser
        /// CMIS 1.1 AtomPub binding: a service document, Atom feeds and entries, links and URI templates.
        case atomPub
    }

    /// The wire protocol; `.browser` by default.
    public var binding: Binding
    /// The binding's service URL: the URL that answers with the repositories (for AtomPub, the service document).
    public var url: URL
    /// The repository to use; `nil` picks the only one (or, with ``preferMyDocuments``, the one with a
    /// `myDocuments` extension).
    public var repositoryId: String?
    /// When no repository id is given, prefer the repository that announces SAP Mobile Documents' `myDocuments`.
    public var preferMyDocuments: Bool
    /// Authentication providers, applied in order (see `HTTPAuthProvider`).
    public var auth: [any HTTPAuthProvider]
    /// The header that carries the repository's XSRF token (its info's `token` extension) on every change. The
    /// token itself is kept by the binding with the repository info, and refreshed with it. AtomPub always sends
    /// it in a header (this one, `X-CSRF-Token` when nil); the Browser binding always sends it as the `token` form
    /// field, and in this header too when it is set (what SAP Mobile Documents asks for).
    public var tokenHeader: String?
    /// The context of reads that pass none.
    public var operationContext: OperationContext
    /// The page size of lists when the context does not set one.
    public var pageSize: Int
    /// How many pages a paging sequence requests ahead of the one being read, so the server prepares them
    /// meanwhile (2 by default; 0 asks for each page only when iteration reaches it). Each costs a page of memory.
    public var prefetchPages: Int
    /// The HTTP client's configuration: User-Agent, default headers, timeout, retries, cookie jar, logger.
    public var http: HTTPClient.Configuration
    /// How long cached objects and path lookups stay valid; `.zero` turns the object cache off.
    public var cacheTTL: Duration
    /// The most objects the cache holds.
    public var cacheCapacity: Int
    /// The HTTP transport; `nil` uses `HTTPClient.defaultTransport()`.
    public var transport: (any HTTPTransport)?

    /// Parameters for the service at `url`. Unless told otherwise: the Browser binding, no credentials, pages of
    /// 100 with 2 requested ahead, and an object cache of 1,000 objects kept for 60 seconds.
    public init(
        binding: Binding = .browser, url: URL, repositoryId: String? = nil, preferMyDocuments: Bool = false,
        auth: [any HTTPAuthProvider] = [], tokenHeader: String? = nil,
        operationContext: OperationContext = OperationContext(), pageSize: Int = 100, prefetchPages: Int = 2,
        http: HTTPClient.Configuration = HTTPClient.Configuration(),
        cacheTTL: Duration = .seconds(60), cacheCapacity: Int = 1000, transport: (any HTTPTransport)? = nil
    ) {
        self.binding = binding
        self.url = url
        self.repositoryId = repositoryId
        self.preferMyDocuments = preferMyDocuments
        self.auth = auth
        self.tokenHeader = tokenHeader
        self.operationContext = operationContext
        self.pageSize = pageSize
        self.prefetchPages = prefetchPages
        self.http = http
        self.cacheTTL = cacheTTL
        self.cacheCapacity = cacheCapacity
        self.transport = transport
    }

    /// The binding these parameters describe, over a new `HTTPClient`: the service calls without a session (and
    /// its object cache) in front, for code that keeps its own state, such as a gateway.
    public func makeBinding() -> any CMISBinding {
        let client = HTTPClient(
            configuration: http, transport: transport ?? HTTPClient.defaultTransport(),
            auth: auth)
        switch binding {
        case .browser: return BrowserBinding(url: url, client: client, tokenHeader: tokenHeader)
        case .atomPub: return AtomPubBinding(url: url, client: client, tokenHeader: tokenHeader ?? "X-CSRF-Token")
        }
    }
}
