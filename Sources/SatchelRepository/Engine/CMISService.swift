public import Foundation
public import SatchelCMISCore

/// Who is calling: the authenticated user, and the XSRF token of their session (shown in repository info).
public struct CallerContext: Sendable, Hashable {
    public var user: String
    /// The session's XSRF token, returned as the `token` extension of MyDocuments repository info; nil when the
    /// caller authenticated without a session.
    public var sessionToken: String?
    /// An administrator has `cmis:all` on everything in the shared repository and alone may change its root
    /// folder's ACL. Other users' MyDocuments stay out of reach, as for anyone.
    public var isAdministrator: Bool

    /// The password the caller signed in with on this request (Basic authentication), for a gateway mount that
    /// passes each user's own credentials on to its back-end; nil after a cookie or token sign-in.
    public var password: CallerPassword?

    public init(
        user: String, sessionToken: String? = nil, isAdministrator: Bool = false, password: CallerPassword? = nil
    ) {
        self.user = user
        self.sessionToken = sessionToken
        self.isAdministrator = isAdministrator
        self.password = password
    }
}

/// The password a caller signed in with. It never prints: descriptions, `dump` and logs show `<redacted>`.
public struct CallerPassword: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    public let value: String

    public init(_ value: String) { self.value = value }

    public var description: String { "<redacted>" }
    public var debugDescription: String { "<redacted>" }
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// Content arriving with a create, check-in or set-content call: already written to the blob store by the
/// binding (``BlobStore/makeWriter()``), so the engine never holds content in memory. The lease keeps the blob
/// while the call runs; once it ends, the blob goes unless the call committed a reference to it.
///
/// Its media type is checked here, where content arrives from any binding for any kind of repository (the local
/// engine, a gateway's back-end): a value that is not `type/subtype[; parameters]` in printable ASCII, or that holds
/// a control character, is refused with `invalidArgument` before anything passes it on.
public struct ContentInput: Sendable, Hashable {
    public var lease: BlobLease
    /// The media type: trimmed, `application/octet-stream` when none was given.
    public private(set) var mimeType: String
    public var fileName: String?

    public init(blob: BlobLease, mimeType: String, fileName: String?) throws(CMISError) {
        self.lease = blob
        self.mimeType = try MediaTypeSyntax.checked(mimeType)
        self.fileName = fileName
    }

    public var blob: BlobReference { lease.reference }
}

/// Content going out: where its bytes come from, and what to put in the response headers.
public struct ContentOutput: Sendable {
    /// Where the bytes are.
    public enum Body: Sendable {
        /// A file to stream (with Range support): the local engine's blob.
        case file(URL)
        /// Bytes read from elsewhere (a gateway's back-end) while they are sent.
        case stream(ContentStreamer)
    }

    public var body: Body
    public var length: Int64
    public var mimeType: String
    public var fileName: String?
    /// Lower-case hex SHA-256 of the content, when known (the local engine always knows it).
    public var hash: String?
    /// A strong entity tag: the hash, or for content read from elsewhere a tag of its version; nil when nothing
    /// tells one version from the next (no ETag is sent then).
    public var entityTag: String?

    public init(file: URL, length: Int64, mimeType: String, fileName: String?, hash: String) {
        self.body = .file(file)
        self.length = length
        self.mimeType = mimeType
        self.fileName = fileName
        self.hash = hash
        self.entityTag = hash
    }

    public init(stream: ContentStreamer, length: Int64, mimeType: String, fileName: String?, entityTag: String?) {
        self.body = .stream(stream)
        self.length = length
        self.mimeType = mimeType
        self.fileName = fileName
        self.hash = nil
        self.entityTag = entityTag
    }

    /// The file, when the content is one.
    public var file: URL? {
        if case .file(let url) = body { return url }
        return nil
    }
}

/// Content read from elsewhere as it is sent, in constant memory: `open` starts reading the bytes of `range`
/// (inclusive; the whole content when nil) and returns them in order, in chunks. Reading stops, and the source is
/// released, when the sequence is dropped.
public struct ContentStreamer: Sendable {
    public let open: @Sendable (_ range: ClosedRange<Int64>?) async throws -> AsyncThrowingStream<[UInt8], any Error>

    public init(
        open: @escaping @Sendable (_ range: ClosedRange<Int64>?) async throws -> AsyncThrowingStream<[UInt8], any Error>
    ) {
        self.open = open
    }
}

/// The CMIS services, binding-neutral: what the Browser and AtomPub bindings of `satchel serve` call.
///
/// Every method checks the caller's rights (a user only ever sees their own MyDocuments and what ACLs grant in
/// shared repositories) and throws ``CMISError`` with the CMIS exception code and a message for a person. Objects
/// come back shaped by the ``OperationContext`` (filter, allowable actions, ACL, relationships, policy ids,
/// renditions). Paging follows CMIS: `maxItems` nil means the server default, `numItems` is the total.
public protocol CMISService: Sendable {
    // MARK: Repository services
    func repositoryInfos(caller: CallerContext) async throws -> [RepositoryInfo]
    func repositoryInfo(repositoryId: String, caller: CallerContext) async throws -> RepositoryInfo
    func typeChildren(
        repositoryId: String, typeId: String?, includePropertyDefinitions: Bool, maxItems: Int?, skipCount: Int,
        caller: CallerContext
    ) async throws -> (types: [TypeDefinition], hasMoreItems: Bool, numItems: Int)
    func typeDescendants(
        repositoryId: String, typeId: String?, depth: Int?, includePropertyDefinitions: Bool, caller: CallerContext
    ) async throws -> [TypeTreeNode]
    func typeDefinition(repositoryId: String, typeId: String, caller: CallerContext) async throws -> TypeDefinition

    // MARK: Navigation services
    func children(
        repositoryId: String, folderId: String, context: OperationContext, maxItems: Int?, skipCount: Int,
        caller: CallerContext
    ) async throws -> ObjectInFolderList
    func descendants(
        repositoryId: String, folderId: String, depth: Int?, foldersOnly: Bool, context: OperationContext,
        caller: CallerContext
    ) async throws -> [ContainerNode]
    func objectParents(
        repositoryId: String, objectId: String, context: OperationContext, caller: CallerContext
    ) async throws -> [ObjectParent]
    func folderParent(
        repositoryId: String, folderId: String, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject
    func checkedOutDocuments(
        repositoryId: String, folderId: String?, context: OperationContext, maxItems: Int?, skipCount: Int,
        caller: CallerContext
    ) async throws -> ObjectList

    // MARK: Object services
    func object(
        repositoryId: String, id: String, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject
    func object(
        repositoryId: String, path: String, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject
    func allowableActions(
        repositoryId: String, objectId: String, caller: CallerContext
    ) async throws
        -> AllowableActions
    func createFolder(
        repositoryId: String, parentId: String, properties: Properties, policies: [String], addACEs: [ACE],
        removeACEs: [ACE], caller: CallerContext
    ) async throws -> CMISObject
    func createDocument(
        repositoryId: String, parentId: String?, properties: Properties, content: ContentInput?,
        versioningState: VersioningState?, policies: [String], addACEs: [ACE], removeACEs: [ACE],
        caller: CallerContext
    ) async throws -> CMISObject
    func createDocumentFromSource(
        repositoryId: String, sourceId: String, parentId: String?, properties: Properties,
        versioningState: VersioningState?, caller: CallerContext
    ) async throws -> CMISObject
    /// createItem, createPolicy and createRelationship (the base type of `cmis:objectTypeId` decides).
    func createObject(
        repositoryId: String, parentId: String?, properties: Properties, policies: [String], addACEs: [ACE],
        removeACEs: [ACE], caller: CallerContext
    ) async throws -> CMISObject
    func updateProperties(
        repositoryId: String, objectId: String, changeToken: String?, properties: Properties, caller: CallerContext
    ) async throws -> CMISObject
    /// Returns the ids that were updated (with their new change tokens).
    func bulkUpdateProperties(
        repositoryId: String, objects: [(id: String, changeToken: String?)], properties: Properties,
        addSecondaryTypeIds: [String], removeSecondaryTypeIds: [String], caller: CallerContext
    ) async throws -> [(id: String, newId: String?, changeToken: String?)]
    func moveObject(
        repositoryId: String, objectId: String, targetFolderId: String, sourceFolderId: String?,
        caller: CallerContext
    ) async throws -> CMISObject
    func deleteObject(repositoryId: String, objectId: String, allVersions: Bool, caller: CallerContext) async throws
    /// Returns the ids that could not be deleted.
    func deleteTree(
        repositoryId: String, folderId: String, allVersions: Bool, unfileObjects: UnfileObjects,
        continueOnFailure: Bool, caller: CallerContext
    ) async throws -> [String]
    /// Checks, before a binding stores any uploaded content, that the upload could be accepted: the repository is
    /// the caller's to reach, `targetId` (the folder a document is created in, or the document whose content is
    /// set, appended or checked in) exists and the caller may write it, and `name`, when a new document's name is
    /// already known, is free in that folder. Throws what the operation itself would throw.
    func checkContentUpload(repositoryId: String, targetId: String, name: String?, caller: CallerContext) async throws
    /// A number that changes after every change this service makes in the repository, and only then: answers
    /// computed under one generation stay valid while it lasts (the server caches rendered objects by it). Nil when
    /// the repository may change by other means (a store shared by several processes), so nothing is cached.
    func readGeneration(repositoryId: String) -> UInt64?
    /// Where each of `objectIds` is filed and what its content's hash is, in one call: for APIs that show both with
    /// every object of a page (the Nuxeo API's `path`, `parentRef` and blob digest). Objects that are gone or that
    /// the caller may not read are left out; a parent the caller may not read is not named.
    func placements(
        repositoryId: String, objectIds: [String], caller: CallerContext
    ) async throws -> [String: ObjectPlacement]
    /// Whether the repository is a user's MyDocuments (where every change needs the session's XSRF token): the one
    /// answer every binding and the XSRF check ask for. By default, the local engine's naming rule.
    func isPersonal(repositoryId: String) -> Bool
    func contentStream(
        repositoryId: String, objectId: String, streamId: String?, caller: CallerContext
    ) async throws -> ContentOutput
    func setContentStream(
        repositoryId: String, objectId: String, overwrite: Bool, changeToken: String?, content: ContentInput,
        caller: CallerContext
    ) async throws -> CMISObject
    func appendContentStream(
        repositoryId: String, objectId: String, isLastChunk: Bool, changeToken: String?, content: ContentInput,
        caller: CallerContext
    ) async throws -> CMISObject
    func deleteContentStream(
        repositoryId: String, objectId: String, changeToken: String?, caller: CallerContext
    ) async throws -> CMISObject
    func renditions(
        repositoryId: String, objectId: String, filter: String?, caller: CallerContext
    ) async throws -> [Rendition]

    // MARK: Multi-filing services
    func addObjectToFolder(
        repositoryId: String, objectId: String, folderId: String, allVersions: Bool, caller: CallerContext
    ) async throws -> CMISObject
    func removeObjectFromFolder(
        repositoryId: String, objectId: String, folderId: String?, caller: CallerContext
    ) async throws -> CMISObject

    // MARK: Discovery services
    func query(
        repositoryId: String, statement: String, searchAllVersions: Bool, includeAllowableActions: Bool,
        includeRelationships: OperationContext.IncludeRelationships, renditionFilter: String?, maxItems: Int?,
        skipCount: Int, caller: CallerContext
    ) async throws -> ObjectList
    /// ``query(repositoryId:statement:searchAllVersions:includeAllowableActions:includeRelationships:renditionFilter:maxItems:skipCount:caller:)``
    /// leaving out (``TrashScope/live``) or keeping to (``TrashScope/trashed``) what the repository's store marks
    /// trashed (``ServerStateStore``), decided by the store's own query. Nil when the repository's objects are not
    /// in a store that keeps the marks (a gateway mount): the caller filters some other way.
    func query(
        repositoryId: String, statement: String, searchAllVersions: Bool, includeAllowableActions: Bool,
        includeRelationships: OperationContext.IncludeRelationships, renditionFilter: String?, maxItems: Int?,
        skipCount: Int, trash: TrashScope, caller: CallerContext
    ) async throws -> ObjectList?
    func contentChanges(
        repositoryId: String, changeLogToken: String?, includeProperties: Bool, includePolicyIds: Bool,
        includeACL: Bool, maxItems: Int?, caller: CallerContext
    ) async throws -> ContentChanges

    // MARK: Versioning services
    func checkOut(repositoryId: String, objectId: String, caller: CallerContext) async throws -> CMISObject
    func cancelCheckOut(repositoryId: String, objectId: String, caller: CallerContext) async throws
    func checkIn(
        repositoryId: String, objectId: String, major: Bool, properties: Properties, content: ContentInput?,
        comment: String?, policies: [String], addACEs: [ACE], removeACEs: [ACE], caller: CallerContext
    ) async throws -> CMISObject
    func objectOfLatestVersion(
        repositoryId: String, objectId: String, major: Bool, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject
    func allVersions(
        repositoryId: String, objectId: String, context: OperationContext, caller: CallerContext
    ) async throws -> [CMISObject]

    // MARK: Relationship services
    func objectRelationships(
        repositoryId: String, objectId: String, includeSubRelationshipTypes: Bool,
        direction: RelationshipDirection, typeId: String?, context: OperationContext, maxItems: Int?,
        skipCount: Int, caller: CallerContext
    ) async throws -> ObjectList

    // MARK: Policy services
    func applyPolicy(repositoryId: String, policyId: String, objectId: String, caller: CallerContext) async throws
    func removePolicy(repositoryId: String, policyId: String, objectId: String, caller: CallerContext) async throws
    func appliedPolicies(
        repositoryId: String, objectId: String, context: OperationContext, caller: CallerContext
    ) async throws -> [CMISObject]

    // MARK: ACL services
    func acl(
        repositoryId: String, objectId: String, onlyBasicPermissions: Bool, caller: CallerContext
    )
        async throws -> ACL
    func applyACL(
        repositoryId: String, objectId: String, addACEs: [ACE], removeACEs: [ACE], propagation: String?,
        caller: CallerContext
    ) async throws -> ACL
}

extension CMISService {
    public func isPersonal(repositoryId: String) -> Bool {
        RepositoryConfiguration.isMyDocumentsRepositoryId(repositoryId)
    }

    /// None: a service whose objects are elsewhere (a gateway's back-end) keeps no trash marks beside them.
    public func query(
        repositoryId: String, statement: String, searchAllVersions: Bool, includeAllowableActions: Bool,
        includeRelationships: OperationContext.IncludeRelationships, renditionFilter: String?, maxItems: Int?,
        skipCount: Int, trash: TrashScope, caller: CallerContext
    ) async throws -> ObjectList? {
        nil
    }

    /// One object at a time, through ``objectParents(repositoryId:objectId:context:caller:)`` and
    /// ``contentStream(repositoryId:objectId:streamId:caller:)``: for services that have nothing better (a gateway's
    /// back-end). The local engine answers a page in a few store reads.
    public func placements(
        repositoryId: String, objectIds: [String], caller: CallerContext
    ) async throws -> [String: ObjectPlacement] {
        var placements: [String: ObjectPlacement] = [:]
        for id in objectIds {
            let object: CMISObject
            do {
                object = try await self.object(
                    repositoryId: repositoryId, id: id,
                    context: OperationContext(filter: ["cmis:objectId", "cmis:path", "cmis:name", "cmis:parentId"]),
                    caller: caller)
            } catch let error as CMISError where [.objectNotFound, .permissionDenied].contains(error.code) {
                continue
            }
            var placement = ObjectPlacement()
            if object.baseType == .folder {
                placement.path = object.path
                placement.parentId = object.parentId
            } else {
                let parents = try await objectParents(
                    repositoryId: repositoryId, objectId: id,
                    context: OperationContext(filter: ["cmis:objectId", "cmis:path"], includePathSegment: true),
                    caller: caller)
                if let parent = parents.first, let parentPath = parent.object.path {
                    placement.parentId = parent.object.id
                    placement.path =
                        (parentPath == "/" ? "" : parentPath) + "/" + (parent.relativePathSegment ?? object.name ?? id)
                }
                placement.contentHash =
                    try? await contentStream(repositoryId: repositoryId, objectId: id, streamId: nil, caller: caller)
                    .hash
            }
            placements[id] = placement
        }
        return placements
    }
}

/// Where an object is filed and what its content is (``CMISService/placements(repositoryId:objectIds:caller:)``).
public struct ObjectPlacement: Sendable, Hashable {
    /// The object's path: a folder's own; a document's through its first parent the caller may read (nil when
    /// there is none).
    public var path: String?
    /// That parent's id (a folder's parent, for a folder).
    public var parentId: String?
    /// Lower-case hex SHA-256 of the content, when the object has content and the service knows it.
    public var contentHash: String?

    public init(path: String? = nil, parentId: String? = nil, contentHash: String? = nil) {
        self.path = path
        self.parentId = parentId
        self.contentHash = contentHash
    }
}
