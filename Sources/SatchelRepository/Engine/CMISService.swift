public import Foundation
public import SatchelCMISCore

/// Who is calling: the authenticated user, and the XSRF token of their session (shown in repository info).
public struct CallerContext: Sendable, Hashable {
    /// The authenticated user's name: the principal that ACLs and MyDocuments ownership are checked against.
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

    /// A caller named `user`; by default without a session token, not an administrator, and without a password.
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
    /// The password itself, for passing on to a back-end; never printed.
    public let value: String

    /// Wraps `value`.
    public init(_ value: String) { self.value = value }

    /// Always `<redacted>`.
    public var description: String { "<redacted>" }
    /// Always `<redacted>`.
    public var debugDescription: String { "<redacted>" }
    /// A mirror without children, so `dump` and reflection show nothing of the password.
    public var customMirror: Mirror { Mirror(self, children: [], displayStyle: .struct) }
}

/// Content arriving with a create, check-in or set-content call: already written to the blob store by the
/// binding (``BlobStore/makeWriter(maxBytes:)``), so the engine never holds content in memory. The lease keeps the blob
/// while the call runs; once it ends, the blob goes unless the call committed a reference to it.
///
/// Its media type is checked here, where content arrives from any binding for any kind of repository (the local
/// engine, a gateway's back-end): a value that is not `type/subtype[; parameters]` in printable ASCII, or that holds
/// a control character, is refused with `invalidArgument` before anything passes it on.
public struct ContentInput: Sendable, Hashable {
    /// The uploaded blob, kept until the lease ends.
    public var lease: BlobLease
    /// The media type: trimmed, `application/octet-stream` when none was given.
    public private(set) var mimeType: String
    /// The file name that came with the content, if any: stored as `cmis:contentStreamFileName`, and a new document's
    /// name when its properties give no `cmis:name`.
    public var fileName: String?

    /// Content in the blob `blob`. The media type is trimmed (`application/octet-stream` when empty); one that is not
    /// `type/subtype[; parameters]` in printable ASCII, or is longer than 255 bytes, throws `invalidArgument`.
    public init(blob: BlobLease, mimeType: String, fileName: String?) throws(CMISError) {
        self.lease = blob
        self.mimeType = try MediaTypeSyntax.checked(mimeType)
        self.fileName = fileName
    }

    /// The blob's name and length.
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

    /// Where the bytes come from.
    public var body: Body
    /// The content's length in bytes.
    public var length: Int64
    /// The media type, for the `Content-Type` header.
    public var mimeType: String
    /// The file name for the `Content-Disposition` header, if any.
    public var fileName: String?
    /// Lower-case hex SHA-256 of the content, when known (the local engine always knows it).
    public var hash: String?
    /// A strong entity tag: the hash, or for content read from elsewhere a tag of its version; nil when nothing
    /// tells one version from the next (no ETag is sent then).
    public var entityTag: String?

    /// Content in a local file (the local engine's blob): its first `length` bytes. `hash`, their SHA-256, is also
    /// the entity tag.
    public init(file: URL, length: Int64, mimeType: String, fileName: String?, hash: String) {
        self.body = .file(file)
        self.length = length
        self.mimeType = mimeType
        self.fileName = fileName
        self.hash = hash
        self.entityTag = hash
    }

    /// Content read from elsewhere while it is sent: no hash is known; `entityTag`, when given, tags its version.
    public init(stream: ContentStreamer, length: Int64, mimeType: String, fileName: String?, entityTag: String?) {
        self.body = .stream(stream)
        self.length = length
        self.mimeType = mimeType
        self.fileName = fileName
        self.hash = nil
        self.entityTag = entityTag
    }

    /// Content in a blob store whose back-end is not the local disk, read from it while it is sent: `hash`, the
    /// SHA-256 of its bytes, is also the entity tag.
    public init(stream: ContentStreamer, length: Int64, mimeType: String, fileName: String?, hash: String) {
        self.body = .stream(stream)
        self.length = length
        self.mimeType = mimeType
        self.fileName = fileName
        self.hash = hash
        self.entityTag = hash
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
    /// Starts reading the bytes of `range` (inclusive; all of them when nil) and returns them in order, in chunks.
    public let open: @Sendable (_ range: ClosedRange<Int64>?) async throws -> AsyncThrowingStream<[UInt8], any Error>

    /// A streamer that reads with `open`.
    public init(
        open: @escaping @Sendable (_ range: ClosedRange<Int64>?) async throws -> AsyncThrowingStream<[UInt8], any Error>
    ) {
        self.open = open
    }
}

/// The CMIS services, binding-neutral: what the Browser and AtomPub bindings of `satchel serve` call.
///
/// Every method checks the caller's rights (a user only ever sees their own MyDocuments and what ACLs grant in
/// shared repositories) and throws `CMISError` with the CMIS exception code and a message for a person. Objects
/// come back shaped by the `OperationContext` (filter, allowable actions, ACL, relationships, policy ids,
/// renditions). Paging follows CMIS: `maxItems` nil means the server default, `numItems` is the total.
public protocol CMISService: Sendable {
    // MARK: Repository services
    /// The repositories the caller can reach, with their capabilities (getRepositories).
    func repositoryInfos(caller: CallerContext) async throws -> [RepositoryInfo]
    /// One repository's info and capabilities (getRepositoryInfo); `objectNotFound` when the caller cannot reach it.
    func repositoryInfo(repositoryId: String, caller: CallerContext) async throws -> RepositoryInfo
    /// One page of the direct subtypes of `typeId`, or of the base types when it is nil (getTypeChildren); `numItems`
    /// is the total. Property definitions come with each type only when `includePropertyDefinitions` is true.
    func typeChildren(
        repositoryId: String, typeId: String?, includePropertyDefinitions: Bool, maxItems: Int?, skipCount: Int,
        caller: CallerContext
    ) async throws -> (types: [TypeDefinition], hasMoreItems: Bool, numItems: Int)
    /// The tree of types below `typeId` (below the base types when it is nil), `depth` levels deep (nil: all)
    /// (getTypeDescendants).
    func typeDescendants(
        repositoryId: String, typeId: String?, depth: Int?, includePropertyDefinitions: Bool, caller: CallerContext
    ) async throws -> [TypeTreeNode]
    /// The definition of the type `typeId` (getTypeDefinition); `objectNotFound` for a type the repository does not
    /// have.
    func typeDefinition(repositoryId: String, typeId: String, caller: CallerContext) async throws -> TypeDefinition
    /// Creates a type (createType) and returns it as the repository defined it. By default `notSupported`: a
    /// repository whose types are fixed says so in each type's `typeMutability`.
    func createType(repositoryId: String, type: TypeDefinition, caller: CallerContext) async throws -> TypeDefinition
    /// Changes a type (updateType) and returns it as it is now; by default `notSupported`.
    func updateType(repositoryId: String, type: TypeDefinition, caller: CallerContext) async throws -> TypeDefinition
    /// Deletes a type no object uses (deleteType); by default `notSupported`.
    func deleteType(repositoryId: String, typeId: String, caller: CallerContext) async throws

    // MARK: Navigation services
    /// One page of the objects filed in `folderId`, shaped by `context` and sorted by its `orderBy` (getChildren).
    func children(
        repositoryId: String, folderId: String, context: OperationContext, maxItems: Int?, skipCount: Int,
        caller: CallerContext
    ) async throws -> ObjectInFolderList
    /// The tree of objects below `folderId`, `depth` levels deep (nil: all); only folders when `foldersOnly` is true
    /// (getDescendants, getFolderTree).
    func descendants(
        repositoryId: String, folderId: String, depth: Int?, foldersOnly: Bool, context: OperationContext,
        caller: CallerContext
    ) async throws -> [ContainerNode]
    /// The folders an object is filed in, as far as the caller may read them (getObjectParents); not for folders.
    func objectParents(
        repositoryId: String, objectId: String, context: OperationContext, caller: CallerContext
    ) async throws -> [ObjectParent]
    /// A folder's parent folder (getFolderParent); the root has none.
    func folderParent(
        repositoryId: String, folderId: String, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject
    /// One page of the private working copies the caller may read: those filed in `folderId`, or all when it is nil
    /// (getCheckedOutDocs).
    func checkedOutDocuments(
        repositoryId: String, folderId: String?, context: OperationContext, maxItems: Int?, skipCount: Int,
        caller: CallerContext
    ) async throws -> ObjectList

    // MARK: Object services
    /// The object with the id `id`, shaped by `context` (getObject); `objectNotFound` when there is none.
    func object(
        repositoryId: String, id: String, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject
    /// The object at the absolute `path` (`/` is the root folder, `/a/b.txt` a document in the folder `a`)
    /// (getObjectByPath).
    func object(
        repositoryId: String, path: String, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject
    /// What the caller may do with the object (getAllowableActions).
    func allowableActions(
        repositoryId: String, objectId: String, caller: CallerContext
    ) async throws
        -> AllowableActions
    /// Creates a folder in `parentId`, with `properties` (`cmis:name`, `cmis:objectTypeId` and others of its type),
    /// `policies` applied and ACEs added to and removed from its ACL, and returns it (createFolder).
    func createFolder(
        repositoryId: String, parentId: String, properties: Properties, policies: [String], addACEs: [ACE],
        removeACEs: [ACE], caller: CallerContext
    ) async throws -> CMISObject
    /// Creates a document in `parentId` (unfiled when nil), with `properties`, optional content, `policies` and ACEs,
    /// and returns it (createDocument). `versioningState` nil leaves the state to the repository.
    func createDocument(
        repositoryId: String, parentId: String?, properties: Properties, content: ContentInput?,
        versioningState: VersioningState?, policies: [String], addACEs: [ACE], removeACEs: [ACE],
        caller: CallerContext
    ) async throws -> CMISObject
    /// Creates a copy of the document `sourceId` (its properties and content), with `properties` replacing some, in
    /// `parentId` (unfiled when nil), and returns it (createDocumentFromSource).
    func createDocumentFromSource(
        repositoryId: String, sourceId: String, parentId: String?, properties: Properties,
        versioningState: VersioningState?, caller: CallerContext
    ) async throws -> CMISObject
    /// createItem, createPolicy and createRelationship (the base type of `cmis:objectTypeId` decides).
    func createObject(
        repositoryId: String, parentId: String?, properties: Properties, policies: [String], addACEs: [ACE],
        removeACEs: [ACE], caller: CallerContext
    ) async throws -> CMISObject
    /// Changes an object's properties (its name included) and returns it (updateProperties). A `changeToken` that is
    /// no longer the object's fails with `updateConflict`.
    func updateProperties(
        repositoryId: String, objectId: String, changeToken: String?, properties: Properties, caller: CallerContext
    ) async throws -> CMISObject
    /// Returns the ids that were updated (with their new change tokens).
    func bulkUpdateProperties(
        repositoryId: String, objects: [(id: String, changeToken: String?)], properties: Properties,
        addSecondaryTypeIds: [String], removeSecondaryTypeIds: [String], caller: CallerContext
    ) async throws -> [(id: String, newId: String?, changeToken: String?)]
    /// Moves an object from `sourceFolderId` to `targetFolderId` and returns it (moveObject). `sourceFolderId` may be
    /// nil when the object is filed in one folder only.
    func moveObject(
        repositoryId: String, objectId: String, targetFolderId: String, sourceFolderId: String?,
        caller: CallerContext
    ) async throws -> CMISObject
    /// Deletes an object (deleteObject); for a document, `allVersions` deletes its whole version series.
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
    /// A document's content: its length, media type and file name, and where its bytes are (getContentStream).
    /// `streamId` names a rendition; nil asks for the document's own content.
    func contentStream(
        repositoryId: String, objectId: String, streamId: String?, caller: CallerContext
    ) async throws -> ContentOutput
    /// Sets a document's content and returns the document (setContentStream); `contentAlreadyExists` when it has
    /// content and `overwrite` is false.
    func setContentStream(
        repositoryId: String, objectId: String, overwrite: Bool, changeToken: String?, content: ContentInput,
        caller: CallerContext
    ) async throws -> CMISObject
    /// Appends `content` to a document's content (or sets it, when there is none) and returns the document
    /// (appendContentStream).
    func appendContentStream(
        repositoryId: String, objectId: String, isLastChunk: Bool, changeToken: String?, content: ContentInput,
        caller: CallerContext
    ) async throws -> CMISObject
    /// Removes a document's content and returns the document (deleteContentStream).
    func deleteContentStream(
        repositoryId: String, objectId: String, changeToken: String?, caller: CallerContext
    ) async throws -> CMISObject
    /// The object's renditions that `filter` selects (getRenditions).
    func renditions(
        repositoryId: String, objectId: String, filter: String?, caller: CallerContext
    ) async throws -> [Rendition]

    // MARK: Multi-filing services
    /// Files an object in one more folder and returns it (addObjectToFolder).
    func addObjectToFolder(
        repositoryId: String, objectId: String, folderId: String, allVersions: Bool, caller: CallerContext
    ) async throws -> CMISObject
    /// Removes an object from `folderId`, or from every folder when it is nil, and returns it (removeObjectFromFolder).
    func removeObjectFromFolder(
        repositoryId: String, objectId: String, folderId: String?, caller: CallerContext
    ) async throws -> CMISObject

    // MARK: Discovery services
    /// One page of the results of the CMIS QL `statement` (query). `searchAllVersions` searches every version of each
    /// document, not only the latest.
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
    /// One page of the repository's change log, after `changeLogToken` (from the start when nil) (getContentChanges).
    func contentChanges(
        repositoryId: String, changeLogToken: String?, includeProperties: Bool, includePolicyIds: Bool,
        includeACL: Bool, maxItems: Int?, caller: CallerContext
    ) async throws -> ContentChanges

    // MARK: Versioning services
    /// Checks out a document and returns its private working copy (checkOut).
    func checkOut(repositoryId: String, objectId: String, caller: CallerContext) async throws -> CMISObject
    /// Discards a check-out and its private working copy (cancelCheckOut).
    func cancelCheckOut(repositoryId: String, objectId: String, caller: CallerContext) async throws
    /// Checks in a private working copy as a new major or minor version, with the properties, content, `comment`,
    /// policies and ACEs given, and returns the new version (checkIn).
    func checkIn(
        repositoryId: String, objectId: String, major: Bool, properties: Properties, content: ContentInput?,
        comment: String?, policies: [String], addACEs: [ACE], removeACEs: [ACE], caller: CallerContext
    ) async throws -> CMISObject
    /// The latest version of the object's version series, or its latest major version when `major` is true
    /// (getObjectOfLatestVersion).
    func objectOfLatestVersion(
        repositoryId: String, objectId: String, major: Bool, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject
    /// Every version of the document's version series, newest first (getAllVersions).
    func allVersions(
        repositoryId: String, objectId: String, context: OperationContext, caller: CallerContext
    ) async throws -> [CMISObject]

    // MARK: Relationship services
    /// One page of the relationships that start (`source`), end (`target`) or do either (`either`) at an object; when
    /// `typeId` is given, only of that type, or also of its subtypes when `includeSubRelationshipTypes` is true
    /// (getObjectRelationships).
    func objectRelationships(
        repositoryId: String, objectId: String, includeSubRelationshipTypes: Bool,
        direction: RelationshipDirection, typeId: String?, context: OperationContext, maxItems: Int?,
        skipCount: Int, caller: CallerContext
    ) async throws -> ObjectList

    // MARK: Policy services
    /// Applies the policy `policyId` to an object (applyPolicy).
    func applyPolicy(repositoryId: String, policyId: String, objectId: String, caller: CallerContext) async throws
    /// Removes the policy `policyId` from an object (removePolicy).
    func removePolicy(repositoryId: String, policyId: String, objectId: String, caller: CallerContext) async throws
    /// The policies applied to an object (getAppliedPolicies).
    func appliedPolicies(
        repositoryId: String, objectId: String, context: OperationContext, caller: CallerContext
    ) async throws -> [CMISObject]

    // MARK: ACL services
    /// An object's ACL (getACL); `onlyBasicPermissions` asks for CMIS's basic permissions only.
    func acl(
        repositoryId: String, objectId: String, onlyBasicPermissions: Bool, caller: CallerContext
    )
        async throws -> ACL
    /// Adds `addACEs` to and removes `removeACEs` from an object's ACL, and returns the ACL (applyACL). `propagation`
    /// is `objectonly`, `propagate` or `repositorydetermined` (the default when nil).
    func applyACL(
        repositoryId: String, objectId: String, addACEs: [ACE], removeACEs: [ACE], propagation: String?,
        caller: CallerContext
    ) async throws -> ACL
}

extension CMISService {
    /// `notSupported`: the repository's types are fixed (every type's `typeMutability` is false).
    public func createType(
        repositoryId: String, type: TypeDefinition, caller: CallerContext
    ) async throws -> TypeDefinition {
        throw fixedTypes(repositoryId, "createType")
    }

    /// `notSupported`: the repository's types are fixed.
    public func updateType(
        repositoryId: String, type: TypeDefinition, caller: CallerContext
    ) async throws -> TypeDefinition {
        throw fixedTypes(repositoryId, "updateType")
    }

    /// `notSupported`: the repository's types are fixed.
    public func deleteType(repositoryId: String, typeId: String, caller: CallerContext) async throws {
        throw fixedTypes(repositoryId, "deleteType")
    }

    private func fixedTypes(_ repositoryId: String, _ operation: String) -> CMISError {
        CMISError(
            .notSupported,
            "repository \(repositoryId) has a fixed set of types (typeMutability is false on every type): "
                + "\(operation) is not supported")
    }

    /// The local engine's naming rule: a `mydocs-` id (`RepositoryConfiguration.isMyDocumentsRepositoryId(_:)`).
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
    /// The object's own title (`dc:title`), when its type has one (the Nuxeo document types, `DocumentTypes`):
    /// what a query on a base type leaves out of its results.
    public var title: String?

    /// A placement with these parts, each nil unless given.
    public init(path: String? = nil, parentId: String? = nil, contentHash: String? = nil, title: String? = nil) {
        self.path = path
        self.parentId = parentId
        self.contentHash = contentHash
        self.title = title
    }
}
