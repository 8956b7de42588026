import Foundation
import SatchelHTTP

/// The CMIS services a binding speaks, one async method per operation, model values in and out.
///
/// ``BrowserBinding`` implements it over the Browser binding (JSON); an AtomPub binding will implement the same
/// protocol, so ``CMISSession`` and its callers do not depend on the wire format. Every method throws
/// ``CMISError``: the server's exception and message for refusals, `.connection`/`.unauthorized` for transport
/// failures.
///
/// ```swift
/// let binding = BrowserBinding(url: serviceURL, client: HTTPClient(auth: [BasicAuth(user: u, password: p)]))
/// let repository = try await binding.repositoryInfos()[0]
/// let root = try await binding.object(repositoryId: repository.id, id: repository.rootFolderId, context: .init())
/// ```
public protocol CMISBinding: Sendable {
    /// Every repository the endpoint offers.
    func repositoryInfos() async throws -> [RepositoryInfo]
    /// One repository's info, fetched again (fresh tokens, change log token).
    func repositoryInfo(repositoryId: String) async throws -> RepositoryInfo
    /// A type definition; implementations cache them, so asking twice costs one request.
    func typeDefinition(repositoryId: String, typeId: String) async throws -> TypeDefinition

    /// An object by id.
    func object(repositoryId: String, id: String, context: OperationContext) async throws -> CMISObject
    /// An object by path (`/Folder/Document.txt`).
    func object(repositoryId: String, path: String, context: OperationContext) async throws -> CMISObject
    /// One page of a folder's children.
    func children(
        repositoryId: String, folderId: String, context: OperationContext, maxItems: Int, skipCount: Int
    ) async throws -> ObjectInFolderList

    /// Creates a folder in `parentId`; `properties` must include `cmis:name` and `cmis:objectTypeId`.
    func createFolder(repositoryId: String, parentId: String, properties: Properties) async throws -> CMISObject
    /// Creates a document in `parentId`, with optional content (streamed from disk for files).
    func createDocument(
        repositoryId: String, parentId: String, properties: Properties, content: ContentSource?,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws -> CMISObject
    /// Sets properties; `changeToken` makes the repository refuse the update if the object changed meanwhile.
    func updateProperties(
        repositoryId: String, objectId: String, properties: Properties, changeToken: String?
    ) async throws -> CMISObject
    /// Deletes an object (every version of a document when `allVersions`).
    func deleteObject(repositoryId: String, objectId: String, allVersions: Bool) async throws

    /// A document's content (or a byte range of it) in memory.
    func contentStream(repositoryId: String, objectId: String, range: ByteRange?) async throws -> Data
    /// A document's content (or a byte range of it) streamed into `file`.
    func downloadContentStream(
        repositoryId: String, objectId: String, range: ByteRange?, to file: URL,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws

    /// One page of a CMIS QL query's results.
    func query(
        repositoryId: String, statement: String, searchAllVersions: Bool, maxItems: Int, skipCount: Int
    ) async throws -> ObjectList
}
