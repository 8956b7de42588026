public import Foundation
public import SatchelCMISCore
public import SatchelHTTP

/// The CMIS services a binding speaks, one async method per operation, model values in and out.
///
/// ``BrowserBinding`` implements it over the Browser binding (JSON) and ``AtomPubBinding`` over AtomPub (XML), so
/// ``CMISSession`` and its callers do not depend on the wire format. Every method throws
/// `CMISError`: the server's exception and message for refusals, `.connection`/`.unauthorized` for transport
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

    /// A document's content (or a byte range of it) in memory; `streamId` names a rendition's stream instead.
    func contentStream(
        repositoryId: String, objectId: String, streamId: String?, range: ByteRange?
    ) async throws -> Data
    /// A document's content (or a byte range of it) streamed into `file`; `streamId` names a rendition's stream
    /// instead.
    func downloadContentStream(
        repositoryId: String, objectId: String, streamId: String?, range: ByteRange?, to file: URL,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws

    /// A document's content (or a byte range of it) as it arrives: the response's head (a `206` when the range
    /// was honoured) and its body's chunks, read in constant memory. `streamId` names a rendition's stream instead
    /// (`cmis:thumbnail`s and the like, listed in `CMISObject.renditions`).
    func streamContentStream(
        repositoryId: String, objectId: String, streamId: String?, range: ByteRange?
    ) async throws -> HTTPStreamingResponse

    /// One page of a CMIS QL query's results, each with its allowable actions, relationships and renditions as
    /// asked.
    func query(
        repositoryId: String, statement: String, searchAllVersions: Bool, includeAllowableActions: Bool,
        includeRelationships: OperationContext.IncludeRelationships, renditionFilter: String?, maxItems: Int,
        skipCount: Int
    ) async throws -> ObjectList

    // MARK: Types and navigation

    /// Creates a type (createType) from `type` (its id, base type, parent, attributes and property definitions)
    /// and returns it as the repository defined it. Repositories that allow it say so in their types'
    /// `typeMutability`.
    func createType(repositoryId: String, type: TypeDefinition) async throws -> TypeDefinition
    /// Changes a type (updateType): its attributes, and property definitions added or changed as the repository
    /// allows; returns the type as it is now.
    func updateType(repositoryId: String, type: TypeDefinition) async throws -> TypeDefinition
    /// Deletes a type no object uses (deleteType).
    func deleteType(repositoryId: String, typeId: String) async throws
    /// Drops every cached type definition (and what else the binding caches of the repository's structure), so
    /// the next reads fetch them again: for a type changed by someone else.
    func clearTypeCache()

    /// A page of the subtypes of `typeId` (of the base types when nil).
    func typeChildren(
        repositoryId: String, typeId: String?, includePropertyDefinitions: Bool, maxItems: Int, skipCount: Int
    ) async throws -> TypeDefinitionList
    /// The subtype tree of `typeId` (of every base type when nil), `depth` levels deep (all when nil).
    func typeDescendants(
        repositoryId: String, typeId: String?, depth: Int?, includePropertyDefinitions: Bool
    ) async throws -> [TypeDefinitionContainer]
    /// The objects below a folder (`foldersOnly`: the folder tree), `depth` levels deep (all when nil).
    func descendants(
        repositoryId: String, folderId: String, depth: Int?, foldersOnly: Bool, context: OperationContext
    ) async throws -> [ContainerNode]
    /// The folders an object is filed in.
    func parents(repositoryId: String, objectId: String, context: OperationContext) async throws -> [ObjectParent]
    /// A folder's parent folder.
    func folderParent(repositoryId: String, folderId: String, context: OperationContext) async throws -> CMISObject
    /// A page of the checked-out documents (in one folder, or everywhere when nil).
    func checkedOutDocuments(
        repositoryId: String, folderId: String?, context: OperationContext, maxItems: Int, skipCount: Int
    ) async throws -> ObjectList
    /// A page of the relationships of an object.
    func relationships(
        repositoryId: String, objectId: String, direction: RelationshipDirection, typeId: String?,
        includeSubRelationshipTypes: Bool, context: OperationContext, maxItems: Int, skipCount: Int
    ) async throws -> ObjectList
    /// A page of the change log after `changeLogToken` (from the start when nil), each change with the object's
    /// policy ids and ACL when asked.
    func contentChanges(
        repositoryId: String, changeLogToken: String?, includeProperties: Bool, includePolicyIds: Bool,
        includeACL: Bool, maxItems: Int
    ) async throws -> ContentChanges

    // MARK: Object changes

    /// Creates an item, policy or relationship (or a folder or document without content).
    func createObject(
        repositoryId: String, parentId: String?, baseType: BaseTypeId, properties: Properties
    ) async throws -> CMISObject
    /// Moves an object to `targetFolderId` from `sourceFolderId` (which a multi-filed object needs).
    func moveObject(
        repositoryId: String, objectId: String, targetFolderId: String, sourceFolderId: String?
    ) async throws -> CMISObject
    /// Deletes a folder and its contents; returns the ids that could not be deleted.
    func deleteTree(
        repositoryId: String, folderId: String, allVersions: Bool, unfileObjects: UnfileObjects,
        continueOnFailure: Bool
    ) async throws -> [String]
    /// Sets the same properties on several objects (each guarded by its change token when given) and adds or
    /// removes secondary types; returns the objects updated, with their new ids and change tokens.
    func bulkUpdate(
        repositoryId: String, objects: [(id: String, changeToken: String?)], properties: Properties,
        addSecondaryTypeIds: [String], removeSecondaryTypeIds: [String]
    ) async throws -> [BulkUpdateResult]
    /// Sets a document's content (with `overwrite` false, only when it has none); returns the document, a new
    /// version when the repository made one.
    func setContentStream(
        repositoryId: String, objectId: String, content: ContentSource, overwrite: Bool, changeToken: String?,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws -> CMISObject
    /// Appends to a document's content; `isLastChunk` says this is the last piece, and `changeToken` makes the
    /// repository refuse it if the document changed.
    func appendContentStream(
        repositoryId: String, objectId: String, content: ContentSource, isLastChunk: Bool, changeToken: String?,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws -> CMISObject
    /// Removes a document's content; `changeToken` makes the repository refuse it if the document changed.
    func deleteContentStream(repositoryId: String, objectId: String, changeToken: String?) async throws -> CMISObject
    /// Files an object in one more folder (multi-filing).
    func addObjectToFolder(
        repositoryId: String, objectId: String, folderId: String, allVersions: Bool
    ) async throws -> CMISObject
    /// Removes an object from a folder, or from every folder when `folderId` is nil (unfiling).
    func removeObjectFromFolder(repositoryId: String, objectId: String, folderId: String?) async throws -> CMISObject

    // MARK: Versioning

    /// Checks a document out and returns its private working copy.
    func checkOut(repositoryId: String, objectId: String) async throws -> CMISObject
    /// Discards a private working copy, ending the check-out.
    func cancelCheckOut(repositoryId: String, objectId: String) async throws
    /// Checks a private working copy in and returns the new version.
    func checkIn(
        repositoryId: String, objectId: String, major: Bool, properties: Properties, content: ContentSource?,
        comment: String?, progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws -> CMISObject
    /// Every version of a document's version series, newest first.
    func allVersions(repositoryId: String, objectId: String, context: OperationContext) async throws -> [CMISObject]
    /// The latest version of a document's version series (the latest major version when `major`).
    func objectOfLatestVersion(
        repositoryId: String, objectId: String, major: Bool, context: OperationContext
    ) async throws -> CMISObject

    // MARK: ACLs and policies

    /// An object's access control list (in the basic CMIS permissions only when `onlyBasicPermissions`).
    func acl(repositoryId: String, objectId: String, onlyBasicPermissions: Bool) async throws -> ACL
    /// Removes and adds access control entries; returns the resulting ACL.
    func applyACL(
        repositoryId: String, objectId: String, add: [ACE], remove: [ACE], propagation: ACLPropagation
    ) async throws -> ACL
    /// Applies a policy object to an object.
    func applyPolicy(repositoryId: String, policyId: String, objectId: String) async throws
    /// Removes a policy from an object.
    func removePolicy(repositoryId: String, policyId: String, objectId: String) async throws
    /// The policies applied to an object.
    func appliedPolicies(repositoryId: String, objectId: String, context: OperationContext) async throws -> [CMISObject]
}

extension CMISBinding {
    /// The document's own content (or a byte range of it) in memory.
    public func contentStream(repositoryId: String, objectId: String, range: ByteRange?) async throws -> Data {
        try await contentStream(repositoryId: repositoryId, objectId: objectId, streamId: nil, range: range)
    }

    /// The document's own content (or a byte range of it) streamed into `file`.
    public func downloadContentStream(
        repositoryId: String, objectId: String, range: ByteRange?, to file: URL,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws {
        try await downloadContentStream(
            repositoryId: repositoryId, objectId: objectId, streamId: nil, range: range, to: file, progress: progress)
    }

    /// The document's own content (or a byte range of it) as it arrives.
    public func streamContentStream(
        repositoryId: String, objectId: String, range: ByteRange?
    ) async throws -> HTTPStreamingResponse {
        try await streamContentStream(repositoryId: repositoryId, objectId: objectId, streamId: nil, range: range)
    }

    /// One page of a query's results with the query's properties alone.
    public func query(
        repositoryId: String, statement: String, searchAllVersions: Bool, maxItems: Int, skipCount: Int
    ) async throws -> ObjectList {
        try await query(
            repositoryId: repositoryId, statement: statement, searchAllVersions: searchAllVersions,
            includeAllowableActions: false, includeRelationships: .none, renditionFilter: nil, maxItems: maxItems,
            skipCount: skipCount)
    }

    /// One page of the change log, without policy ids and ACLs.
    public func contentChanges(
        repositoryId: String, changeLogToken: String?, includeProperties: Bool, maxItems: Int
    ) async throws -> ContentChanges {
        try await contentChanges(
            repositoryId: repositoryId, changeLogToken: changeLogToken, includeProperties: includeProperties,
            includePolicyIds: false, includeACL: false, maxItems: maxItems)
    }

    /// Appends to a document's content whatever changed meanwhile.
    public func appendContentStream(
        repositoryId: String, objectId: String, content: ContentSource, isLastChunk: Bool,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws -> CMISObject {
        try await appendContentStream(
            repositoryId: repositoryId, objectId: objectId, content: content, isLastChunk: isLastChunk,
            changeToken: nil, progress: progress)
    }
}
