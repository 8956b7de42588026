public import Foundation
public import SatchelCMISCore
public import SatchelHTTP
import Synchronization
import SatchelText

/// The CMIS 1.1 AtomPub binding (Atom feeds and entries over HTTP) on top of an `HTTPClient`.
///
/// The service document is read once and cached: its workspaces give each repository's info, collections and
/// URI templates (`objectbyid`, `objectbypath`, `typebyid`, `query`). Everything else is reached by following
/// links: a folder's `down` feed, a document's `edit-media`, an entry's `edit`. Creates post Atom entries written
/// with `AtomPubWriter` (content in memory goes inline as base64; a file is streamed with a PUT to the new
/// document's content afterwards). Changes carry the repository's `token` in `X-CSRF-Token` when its info has one
/// (SAP Mobile Documents).
///
/// ```swift
/// let client = HTTPClient(auth: [BasicAuth(user: "alice", password: secret)])
/// let binding = AtomPubBinding(url: URL(string: "https://cmis.example.com/atom")!, client: client)
/// let repositoryId = try await binding.repositoryInfos()[0].id
/// let doc = try await binding.object(repositoryId: repositoryId, path: "/Notes/today.txt", context: .init())
/// ```
///
/// Failures are `CMISError`s: a refusal carries the server's exception name and message.
public final class AtomPubBinding: BindingCore {
    /// The service document's URL.
    public let url: URL
    /// The HTTP client requests go through (it carries auth and configuration).
    public let client: HTTPClient
    /// The header that carries the repository's XSRF token on changes.
    public let tokenHeader: String
    let state = Mutex(State())
    let types = TypeCache()

    struct State {
        var workspaces: [String: AtomPubWorkspace] = [:]
        /// Children feed URLs of folders seen so far (`down` links), so listing a folder costs one request.
        var childrenLinks: [Key: URL] = [:]
    }

    struct Key: Hashable {
        var repositoryId: String
        var id: String
    }

    /// A binding for the service document at `url`, sending through `client`.
    public init(url: URL, client: HTTPClient, tokenHeader: String = "X-CSRF-Token") {
        self.url = url
        self.client = client
        self.tokenHeader = tokenHeader
    }

    /// Reads the service document and keeps its workspaces for later requests.
    public func repositoryInfos() async throws -> [RepositoryInfo] {
        let document = try await serviceDocument(url: url)
        return document.repositoryInfos
    }

    /// Reads the service document again for this repository; throws `.objectNotFound` when it has no workspace
    /// for it.
    public func repositoryInfo(repositoryId: String) async throws -> RepositoryInfo {
        let document = try await serviceDocument(url: Self.url(url, query: [("repositoryId", repositoryId)]))
        guard let workspace = document.workspace(repositoryId: repositoryId) else {
            throw CMISError(.objectNotFound, "the service has no repository \(repositoryId)")
        }
        return workspace.repositoryInfo
    }

    /// The repository's XSRF token (`token` in its info), sent back on every change.
    public func token(repositoryId: String) -> String? {
        state.withLock { $0.workspaces[repositoryId] }?.repositoryInfo.extensionValue(
            named: MobileDocuments.tokenExtension)
    }

    /// Reads a service document and caches its workspaces.
    func serviceDocument(url: URL) async throws -> AtomPubServiceDocument {
        let response = try await send(
            HTTPClient.Request(.get, url: url, operation: "get CMIS AtomPub service document"))
        let document = try AtomPubParser.serviceDocument(response.body)
        state.withLock { state in
            for workspace in document.workspaces { state.workspaces[workspace.repositoryInfo.id] = workspace }
        }
        return document
    }

    /// The repository's workspace, from the cache (reading the service document once if needed).
    func workspace(_ repositoryId: String) async throws -> AtomPubWorkspace {
        if let cached = state.withLock({ $0.workspaces[repositoryId] }) { return cached }
        guard let workspace = try await serviceDocument(url: url).workspace(repositoryId: repositoryId) else {
            throw CMISError(.objectNotFound, "the service has no repository \(repositoryId)")
        }
        return workspace
    }

    /// A URI template of the repository, expanded.
    func expand(_ repositoryId: String, _ type: String, _ values: [String: String]) async throws -> URL {
        let workspace = try await workspace(repositoryId)
        guard let template = workspace.uriTemplate(type) else {
            throw CMISError(.notSupported, "repository \(repositoryId) has no \(type) URI template")
        }
        return try resolve(template.expand(values))
    }

    /// An href as a URL (relative ones against the service document).
    func resolve(_ href: String) throws -> URL {
        guard let resolved = URL(string: href, relativeTo: url)?.absoluteURL else {
            throw CMISError(.invalidResponse, "invalid link \(href)")
        }
        return resolved
    }

    // MARK: Requests

    static func map(_ error: HTTPTransferError) -> CMISError {
        if let status = error.status, let excerpt = error.responseExcerpt {
            return .atomPub(status: status, body: Data(excerpt.utf8), httpError: error)
        }
        return .transport(error)
    }

    /// A change request to `url` with the repository's XSRF token.
    func changeRequest(
        _ method: HTTPClient.Method, url: URL, repositoryId: String, body: HTTPClient.Body?, operation: String
    ) -> HTTPClient.Request {
        var request = HTTPClient.Request(method, url: url, body: body, operation: operation)
        if let token = token(repositoryId: repositoryId) { request.headers[tokenHeader] = token }
        return request
    }

    /// URI template values for an operation context.
    static func templateValues(_ context: OperationContext) -> [String: String] {
        var values = [
            "filter": context.filterString,
            "includeAllowableActions": String(context.includeAllowableActions),
            "includeACL": String(context.includeACL),
            "includePolicyIds": String(context.includePolicyIds),
            "includeRelationships": context.includeRelationships.rawValue,
        ]
        if let renditionFilter = context.renditionFilter { values["renditionFilter"] = renditionFilter }
        return values
    }

    /// Query parameters for an operation context, for links that are not templates.
    static func contextQuery(_ context: OperationContext) -> [(String, String)] {
        var query = templateValues(context).sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
        if let orderBy = context.orderBy { query.append(("orderBy", orderBy)) }
        query.append(("includePathSegment", String(context.includePathSegment)))
        return query
    }
}
