import Foundation
public import SatchelCMISCore
import SatchelHTTP
import Synchronization

/// A connection to one CMIS repository: navigation, reading and writing objects, content, query and paging,
/// with an object cache.
///
/// ```swift
/// var parameters = SessionParameters(url: URL(string: "https://cmis.example.com/browser")!)
/// parameters.auth = [BasicAuth(user: "alice", password: secret)]
/// let session = try await CMISSession.connect(parameters)
///
/// let folder = try await session.createFolder(named: "Reports", in: session.repositoryInfo.rootFolderId)
/// let report = try await session.createDocument(
///     named: "q3.pdf", in: folder.id!, content: .file(pdfURL, mimeType: "application/pdf"))
/// for try await child in session.children(of: folder.id!) { print(child.object.name ?? "") }
/// let bytes = try await session.content(of: report.id!)
/// ```
///
/// A session is `Sendable`; share one per repository and user.
public final class CMISSession: Sendable {
    /// The parameters the session was connected with.
    public let parameters: SessionParameters
    /// The binding requests go through. Calling it directly bypasses the session's object cache.
    public let binding: any CMISBinding
    private let info: Mutex<RepositoryInfo>
    let cache: ObjectCache

    init(parameters: SessionParameters, binding: any CMISBinding, repositoryInfo: RepositoryInfo) {
        self.parameters = parameters
        self.binding = binding
        info = Mutex(repositoryInfo)
        cache = ObjectCache(ttl: parameters.cacheTTL, capacity: parameters.cacheCapacity)
    }

    /// The repositories at `parameters.url` (the repository id in `parameters` is ignored).
    public static func repositories(_ parameters: SessionParameters) async throws -> [RepositoryInfo] {
        try await parameters.makeBinding().repositoryInfos()
    }

    /// Connects to the repository `parameters` names, or picks one (see ``SessionParameters/repositoryId``).
    ///
    /// Throws `.objectNotFound` when the named repository does not exist, `.invalidArgument` when none is named
    /// and the service offers several.
    public static func connect(_ parameters: SessionParameters) async throws -> CMISSession {
        let binding = parameters.makeBinding()
        let infos = try await binding.repositoryInfos()
        let info = try choose(from: infos, parameters: parameters)
        return CMISSession(parameters: parameters, binding: binding, repositoryInfo: info)
    }

    static func choose(from infos: [RepositoryInfo], parameters: SessionParameters) throws -> RepositoryInfo {
        if let id = parameters.repositoryId {
            guard let info = infos.first(where: { $0.id == id }) else {
                throw CMISError(.objectNotFound, "the service has no repository \(id)")
            }
            return info
        }
        if parameters.preferMyDocuments,
            let info = infos.first(where: { $0.extensionValue(named: MobileDocuments.myDocumentsExtension) != nil })
        {
            return info
        }
        guard infos.count == 1, let only = infos.first else {
            throw CMISError(
                infos.isEmpty ? .objectNotFound : .invalidArgument,
                infos.isEmpty
                    ? "the service offers no repository"
                    : "the service offers \(infos.count) repositories (\(infos.map(\.id).joined(separator: ", "))):"
                        + " set SessionParameters.repositoryId")
        }
        return only
    }

    /// The repository's info as of connecting or the last ``refreshRepositoryInfo()``.
    public var repositoryInfo: RepositoryInfo { info.withLock { $0 } }
    /// The id of the repository the session is connected to.
    public var repositoryId: String { repositoryInfo.id }

    /// SAP Mobile Documents: the id of the user's MyDocuments folder, when the repository announces one.
    public var myDocumentsFolderId: String? {
        repositoryInfo.extensionValue(named: MobileDocuments.myDocumentsExtension)
    }

    /// The repository's XSRF token (its info's `token` extension), which the binding sends back on every change.
    public var xsrfToken: String? { repositoryInfo.extensionValue(named: MobileDocuments.tokenExtension) }

    /// Reads the repository info again — with a fresh XSRF `token`, which the binding sends on later changes.
    @discardableResult
    public func refreshRepositoryInfo() async throws -> RepositoryInfo {
        let fresh = try await binding.repositoryInfo(repositoryId: repositoryId)
        info.withLock { $0 = fresh }
        return fresh
    }

    /// A type definition (cached by the binding).
    public func typeDefinition(id: String) async throws -> TypeDefinition {
        try await binding.typeDefinition(repositoryId: repositoryId, typeId: id)
    }

    /// Forgets every cached object and path.
    public func clearCache() { cache.removeAll() }

    /// The page size for `context`.
    func pageSize(_ context: OperationContext) -> Int {
        max(context.maxItemsPerPage ?? parameters.pageSize, 1)
    }
}
