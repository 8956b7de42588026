public import Foundation
public import SatchelCMISCore
public import SatchelHTTP
import Synchronization
import SatchelText

/// The CMIS 1.1 Browser binding (JSON over HTTP) on top of an `HTTPClient`.
///
/// Reads ask for succinct objects (`succinct=true`); their properties are typed through type definitions the
/// binding fetches once per type and caches. Writes are `cmisaction` form posts — multipart when they carry
/// content, streamed from disk for files — and send back the repository's `token` when its info has one (the
/// Browser binding's own CSRF protection, which SAP Mobile Documents also uses).
///
/// ```swift
/// let client = HTTPClient(auth: [BasicAuth(user: "alice", password: secret)])
/// let binding = BrowserBinding(url: URL(string: "https://cmis.example.com/browser")!, client: client)
/// let repositoryId = try await binding.repositoryInfos()[0].id
/// let page = try await binding.children(
///     repositoryId: repositoryId, folderId: "root", context: OperationContext(), maxItems: 50, skipCount: 0)
/// ```
///
/// Failures are `CMISError`s: a refusal carries the server's exception name and message.
public final class BrowserBinding: BindingCore {
    /// The service URL (the one that answers with the repositories).
    public let url: URL
    /// The HTTP client requests go through (it carries auth and configuration).
    public let client: HTTPClient
    /// The header that also carries the repository's token on changes (nil: the `token` form field alone).
    public let tokenHeader: String?
    let state = Mutex(State())
    let types = TypeCache()

    struct State {
        var repositories: [String: RepositoryInfo] = [:]
    }

    /// A binding for the service at `url`, sending through `client` (which carries auth and configuration).
    public init(url: URL, client: HTTPClient, tokenHeader: String? = nil) {
        self.url = url
        self.client = client
        self.tokenHeader = tokenHeader
    }

    /// GET on the service URL; the infos (with their URLs and tokens) are kept for later requests.
    public func repositoryInfos() async throws -> [RepositoryInfo] {
        let response = try await send(HTTPClient.Request(.get, url: url, operation: "get CMIS repositories"))
        let infos = try BrowserParser.repositoryInfos(response.body)
        state.withLock { state in
            for info in infos { state.repositories[info.id] = info }
        }
        return infos
    }

    /// `cmisselector=repositoryInfo` on the repository URL; URLs the answer leaves out are kept from the service
    /// document.
    public func repositoryInfo(repositoryId: String) async throws -> RepositoryInfo {
        let endpoints = try await self.endpoints(repositoryId)
        let request = HTTPClient.Request(
            .get, url: Self.url(endpoints.repository, query: [("cmisselector", "repositoryInfo")]),
            operation: "get CMIS repository info")
        var info = try BrowserParser.repositoryInfo(try await send(request).body, id: repositoryId)
        // Some servers leave the URLs out of this answer; keep the ones the service document gave.
        info.repositoryURL = info.repositoryURL ?? endpoints.repository
        info.rootFolderURL = info.rootFolderURL ?? endpoints.rootFolder
        state.withLock { $0.repositories[repositoryId] = info }
        return info
    }

    /// The repository's CSRF token (`token` in its info), sent back on every POST.
    public func token(repositoryId: String) -> String? {
        state.withLock { $0.repositories[repositoryId] }?.extensionValue(named: MobileDocuments.tokenExtension)
    }

    // MARK: Requests

    struct Endpoints {
        var repository: URL
        var rootFolder: URL
        var token: String?
    }

    /// The repository's URLs, from the cached info (reading the service document once if needed).
    func endpoints(_ repositoryId: String) async throws -> Endpoints {
        var info = state.withLock { $0.repositories[repositoryId] }
        if info == nil { info = try await repositoryInfos().first { $0.id == repositoryId } }
        guard let info else { throw CMISError(.objectNotFound, "the service has no repository \(repositoryId)") }
        guard let repository = info.repositoryURL, let rootFolder = info.rootFolderURL else {
            throw CMISError(
                .invalidResponse,
                "repository \(repositoryId) has no repositoryUrl/rootFolderUrl (not a Browser binding)")
        }
        return Endpoints(
            repository: repository, rootFolder: rootFolder,
            token: info.extensionValue(named: MobileDocuments.tokenExtension))
    }

    static func map(_ error: HTTPTransferError) -> CMISError {
        if let status = error.status, let excerpt = error.responseExcerpt {
            return .browser(status: status, body: Data(excerpt.utf8), httpError: error)
        }
        return .transport(error)
    }

    /// The Browser binding parameters for an operation context, always succinct.
    static func objectParameters(_ context: OperationContext) -> [(String, String)] {
        var items: [(String, String)] = [
            ("filter", context.filterString),
            ("includeAllowableActions", String(context.includeAllowableActions)),
            ("includeACL", String(context.includeACL)),
            ("includeRelationships", context.includeRelationships.rawValue),
            ("includePolicyIds", String(context.includePolicyIds)),
        ]
        if let renditionFilter = context.renditionFilter { items.append(("renditionFilter", renditionFilter)) }
        items.append(("succinct", "true"))
        return items
    }
}
