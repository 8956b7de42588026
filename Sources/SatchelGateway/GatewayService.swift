import Foundation
public import Logging
public import SatchelCMISCore
public import SatchelRepository

/// The server's repositories with a gateway: the local engine's, and each mounted back-end's under its id. Every
/// call goes to the one service its repository id names; the list of repositories is every mount the caller can
/// reach, in the file's order, then the local ones (clients that take the first repository take the first mount).
/// A back-end that is down is left out of the list, logged, and answers each request made to it with a clear
/// error.
public final class GatewayService: CMISService {
    /// The server's own repositories: every repository id that names no mount goes here.
    public let local: any CMISService
    /// The mounted back-ends, by the repository id users see.
    public let mounts: [String: RemoteRepository]
    let order: [String]
    let logger: Logger

    /// Serves `mounts` beside `local`, listed in the order given. Ids should be unique; given twice, the first mount
    /// with an id wins.
    public init(local: any CMISService, mounts: [RemoteRepository], logger: Logger = Logger(label: "satchel.gateway")) {
        self.local = local
        // Ids are unique in a checked file; given twice here, the first mount wins.
        self.mounts = Dictionary(mounts.map { ($0.mount.id, $0) }, uniquingKeysWith: { first, _ in first })
        order = mounts.map(\.mount.id)
        self.logger = logger
    }

    /// The local engine with the mounts of `configuration`, their uploads read from `blobs`.
    public convenience init(
        local: any CMISService, configuration: GatewayConfiguration, blobs: BlobStore,
        logger: Logger = Logger(label: "satchel.gateway")
    ) {
        self.init(
            local: local,
            mounts: configuration.mounts.map { RemoteRepository(mount: $0, blobs: blobs, logger: logger) },
            logger: logger
        )
    }

    func route(_ repositoryId: String) -> any CMISService { mounts[repositoryId] ?? local }

    /// Every mount's repository info, asked of the back-ends in parallel and listed in the configuration's order, then
    /// the local engine's. A mount whose back-end fails is logged (`satchel.gateway`) and left out; a failure of the
    /// local engine is thrown.
    public func repositoryInfos(caller: CallerContext) async throws -> [RepositoryInfo] {
        let own = try await local.repositoryInfos(caller: caller)
        let remote = await withTaskGroup(of: (Int, RepositoryInfo?).self) { group in
            for (index, id) in order.enumerated() {
                guard let mount = mounts[id] else { continue }
                group.addTask {
                    do {
                        return (index, try await mount.repositoryInfo(repositoryId: id, caller: caller))
                    } catch {
                        self.logger.warning(
                            "repository \(id) left out of the list",
                            metadata: ["error": "\(error)", "user": "\(caller.user)"])
                        return (index, nil)
                    }
                }
            }
            var infos: [(Int, RepositoryInfo)] = []
            for await (index, info) in group { if let info { infos.append((index, info)) } }
            return infos.sorted { $0.0 < $1.0 }.map(\.1)
        }
        return remote + own
    }

    /// The generation of the service `repositoryId` names: always nil for a mount, whose back-end may change at any
    /// time.
    public func readGeneration(repositoryId: String) -> UInt64? {
        route(repositoryId).readGeneration(repositoryId: repositoryId)
    }

    /// Asks the service `repositoryId` names: false for a mount, the local engine's answer otherwise.
    public func isPersonal(repositoryId: String) -> Bool { route(repositoryId).isPersonal(repositoryId: repositoryId) }

    /// Where each object is filed and its content hash: passed to the mount `repositoryId` names, or to the local
    /// engine when it names none. A mount answers one object at a time.
    public func placements(
        repositoryId: String, objectIds: [String], caller: CallerContext
    ) async throws -> [String: ObjectPlacement] {
        try await route(repositoryId).placements(repositoryId: repositoryId, objectIds: objectIds, caller: caller)
    }

    /// One repository's info: passed to the mount `repositoryId` names, or to the local engine when it names none.
    public func repositoryInfo(repositoryId: String, caller: CallerContext) async throws -> RepositoryInfo {
        try await route(repositoryId).repositoryInfo(repositoryId: repositoryId, caller: caller)
    }

    /// A page of a type's child types (the base types when `typeId` is nil): passed to the mount `repositoryId` names,
    /// or to the local engine when it names none.
    public func typeChildren(
        repositoryId: String, typeId: String?, includePropertyDefinitions: Bool, maxItems: Int?, skipCount: Int,
        caller: CallerContext
    ) async throws -> (types: [TypeDefinition], hasMoreItems: Bool, numItems: Int) {
        try await route(repositoryId).typeChildren(
            repositoryId: repositoryId, typeId: typeId, includePropertyDefinitions: includePropertyDefinitions,
            maxItems: maxItems, skipCount: skipCount, caller: caller)
    }

    /// A type's descendant types as a tree: passed to the mount `repositoryId` names, or to the local engine when it
    /// names none.
    public func typeDescendants(
        repositoryId: String, typeId: String?, depth: Int?, includePropertyDefinitions: Bool, caller: CallerContext
    ) async throws -> [TypeTreeNode] {
        try await route(repositoryId).typeDescendants(
            repositoryId: repositoryId, typeId: typeId, depth: depth,
            includePropertyDefinitions: includePropertyDefinitions, caller: caller)
    }

    /// One type's definition: passed to the mount `repositoryId` names, or to the local engine when it names none.
    public func typeDefinition(
        repositoryId: String, typeId: String, caller: CallerContext
    ) async throws -> TypeDefinition {
        try await route(repositoryId).typeDefinition(repositoryId: repositoryId, typeId: typeId, caller: caller)
    }

    /// A page of a folder's children: passed to the mount `repositoryId` names, or to the local engine when it names
    /// none.
    public func children(
        repositoryId: String, folderId: String, context: OperationContext, maxItems: Int?, skipCount: Int,
        caller: CallerContext
    ) async throws -> ObjectInFolderList {
        try await route(repositoryId).children(
            repositoryId: repositoryId, folderId: folderId, context: context, maxItems: maxItems, skipCount: skipCount,
            caller: caller)
    }

    /// A folder's descendants, or its folder tree when `foldersOnly`: passed to the mount `repositoryId` names, or to
    /// the local engine when it names none.
    public func descendants(
        repositoryId: String, folderId: String, depth: Int?, foldersOnly: Bool, context: OperationContext,
        caller: CallerContext
    ) async throws -> [ContainerNode] {
        try await route(repositoryId).descendants(
            repositoryId: repositoryId, folderId: folderId, depth: depth, foldersOnly: foldersOnly, context: context,
            caller: caller)
    }

    /// An object's parent folders: passed to the mount `repositoryId` names, or to the local engine when it names none.
    public func objectParents(
        repositoryId: String, objectId: String, context: OperationContext, caller: CallerContext
    ) async throws -> [ObjectParent] {
        try await route(repositoryId).objectParents(
            repositoryId: repositoryId, objectId: objectId, context: context, caller: caller)
    }

    /// A folder's parent: passed to the mount `repositoryId` names, or to the local engine when it names none.
    public func folderParent(
        repositoryId: String, folderId: String, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject {
        try await route(repositoryId).folderParent(
            repositoryId: repositoryId, folderId: folderId, context: context, caller: caller)
    }

    /// A page of checked-out documents, in `folderId` or anywhere when nil: passed to the mount `repositoryId` names,
    /// or to the local engine when it names none.
    public func checkedOutDocuments(
        repositoryId: String, folderId: String?, context: OperationContext, maxItems: Int?, skipCount: Int,
        caller: CallerContext
    ) async throws -> ObjectList {
        try await route(repositoryId).checkedOutDocuments(
            repositoryId: repositoryId, folderId: folderId, context: context, maxItems: maxItems, skipCount: skipCount,
            caller: caller)
    }

    /// An object by id: passed to the mount `repositoryId` names, or to the local engine when it names none.
    public func object(
        repositoryId: String, id: String, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject {
        try await route(repositoryId).object(repositoryId: repositoryId, id: id, context: context, caller: caller)
    }

    /// An object by path: passed to the mount `repositoryId` names, or to the local engine when it names none.
    public func object(
        repositoryId: String, path: String, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject {
        try await route(repositoryId).object(repositoryId: repositoryId, path: path, context: context, caller: caller)
    }

    /// What the caller may do with an object: passed to the mount `repositoryId` names, or to the local engine when it
    /// names none.
    public func allowableActions(
        repositoryId: String, objectId: String, caller: CallerContext
    ) async throws -> AllowableActions {
        try await route(repositoryId).allowableActions(repositoryId: repositoryId, objectId: objectId, caller: caller)
    }

    /// Creates a folder: passed to the mount `repositoryId` names, or to the local engine when it names none.
    public func createFolder(
        repositoryId: String, parentId: String, properties: Properties, policies: [String], addACEs: [ACE],
        removeACEs: [ACE], caller: CallerContext
    ) async throws -> CMISObject {
        try await route(repositoryId).createFolder(
            repositoryId: repositoryId, parentId: parentId, properties: properties, policies: policies,
            addACEs: addACEs, removeACEs: removeACEs, caller: caller)
    }

    /// Creates a document: passed to the mount `repositoryId` names, or to the local engine when it names none.
    public func createDocument(
        repositoryId: String, parentId: String?, properties: Properties, content: ContentInput?,
        versioningState: VersioningState?, policies: [String], addACEs: [ACE], removeACEs: [ACE], caller: CallerContext
    ) async throws -> CMISObject {
        try await route(repositoryId).createDocument(
            repositoryId: repositoryId, parentId: parentId, properties: properties, content: content,
            versioningState: versioningState, policies: policies, addACEs: addACEs, removeACEs: removeACEs,
            caller: caller)
    }

    /// Creates a copy of a document: passed to the mount `repositoryId` names, or to the local engine when it names
    /// none.
    public func createDocumentFromSource(
        repositoryId: String, sourceId: String, parentId: String?, properties: Properties,
        versioningState: VersioningState?, caller: CallerContext
    ) async throws -> CMISObject {
        try await route(repositoryId).createDocumentFromSource(
            repositoryId: repositoryId, sourceId: sourceId, parentId: parentId, properties: properties,
            versioningState: versioningState, caller: caller)
    }

    /// Creates an item, policy or relationship: passed to the mount `repositoryId` names, or to the local engine when
    /// it names none.
    public func createObject(
        repositoryId: String, parentId: String?, properties: Properties, policies: [String], addACEs: [ACE],
        removeACEs: [ACE], caller: CallerContext
    ) async throws -> CMISObject {
        try await route(repositoryId).createObject(
            repositoryId: repositoryId, parentId: parentId, properties: properties, policies: policies,
            addACEs: addACEs, removeACEs: removeACEs, caller: caller)
    }

    /// Changes an object's properties: passed to the mount `repositoryId` names, or to the local engine when it names
    /// none.
    public func updateProperties(
        repositoryId: String, objectId: String, changeToken: String?, properties: Properties, caller: CallerContext
    ) async throws -> CMISObject {
        try await route(repositoryId).updateProperties(
            repositoryId: repositoryId, objectId: objectId, changeToken: changeToken, properties: properties,
            caller: caller)
    }

    /// Changes the properties of several objects: passed to the mount `repositoryId` names, or to the local engine when
    /// it names none.
    public func bulkUpdateProperties(
        repositoryId: String, objects: [(id: String, changeToken: String?)], properties: Properties,
        addSecondaryTypeIds: [String], removeSecondaryTypeIds: [String], caller: CallerContext
    ) async throws -> [(id: String, newId: String?, changeToken: String?)] {
        try await route(repositoryId).bulkUpdateProperties(
            repositoryId: repositoryId, objects: objects, properties: properties,
            addSecondaryTypeIds: addSecondaryTypeIds, removeSecondaryTypeIds: removeSecondaryTypeIds, caller: caller)
    }

    /// Moves an object to another folder: passed to the mount `repositoryId` names, or to the local engine when it
    /// names none.
    public func moveObject(
        repositoryId: String, objectId: String, targetFolderId: String, sourceFolderId: String?, caller: CallerContext
    ) async throws -> CMISObject {
        try await route(repositoryId).moveObject(
            repositoryId: repositoryId, objectId: objectId, targetFolderId: targetFolderId,
            sourceFolderId: sourceFolderId, caller: caller)
    }

    /// Deletes an object: passed to the mount `repositoryId` names, or to the local engine when it names none.
    public func deleteObject(
        repositoryId: String, objectId: String, allVersions: Bool, caller: CallerContext
    ) async throws {
        try await route(repositoryId).deleteObject(
            repositoryId: repositoryId, objectId: objectId, allVersions: allVersions, caller: caller)
    }

    /// Deletes a folder and what it holds: passed to the mount `repositoryId` names, or to the local engine when it
    /// names none.
    public func deleteTree(
        repositoryId: String, folderId: String, allVersions: Bool, unfileObjects: UnfileObjects,
        continueOnFailure: Bool, caller: CallerContext
    ) async throws -> [String] {
        try await route(repositoryId).deleteTree(
            repositoryId: repositoryId, folderId: folderId, allVersions: allVersions, unfileObjects: unfileObjects,
            continueOnFailure: continueOnFailure, caller: caller)
    }

    /// Checks an upload before its content is stored: passed to the mount `repositoryId` names, or to the local engine
    /// when it names none.
    public func checkContentUpload(
        repositoryId: String, targetId: String, name: String?, caller: CallerContext
    ) async throws {
        try await route(repositoryId).checkContentUpload(
            repositoryId: repositoryId, targetId: targetId, name: name, caller: caller)
    }

    /// An object's content: passed to the mount `repositoryId` names, or to the local engine when it names none.
    public func contentStream(
        repositoryId: String, objectId: String, streamId: String?, caller: CallerContext
    ) async throws -> ContentOutput {
        try await route(repositoryId).contentStream(
            repositoryId: repositoryId, objectId: objectId, streamId: streamId, caller: caller)
    }

    /// Sets an object's content: passed to the mount `repositoryId` names, or to the local engine when it names none.
    public func setContentStream(
        repositoryId: String, objectId: String, overwrite: Bool, changeToken: String?, content: ContentInput,
        caller: CallerContext
    ) async throws -> CMISObject {
        try await route(repositoryId).setContentStream(
            repositoryId: repositoryId, objectId: objectId, overwrite: overwrite, changeToken: changeToken,
            content: content, caller: caller)
    }

    /// Appends to an object's content: passed to the mount `repositoryId` names, or to the local engine when it names
    /// none.
    public func appendContentStream(
        repositoryId: String, objectId: String, isLastChunk: Bool, changeToken: String?, content: ContentInput,
        caller: CallerContext
    ) async throws -> CMISObject {
        try await route(repositoryId).appendContentStream(
            repositoryId: repositoryId, objectId: objectId, isLastChunk: isLastChunk, changeToken: changeToken,
            content: content, caller: caller)
    }

    /// Removes an object's content: passed to the mount `repositoryId` names, or to the local engine when it names
    /// none.
    public func deleteContentStream(
        repositoryId: String, objectId: String, changeToken: String?, caller: CallerContext
    ) async throws -> CMISObject {
        try await route(repositoryId).deleteContentStream(
            repositoryId: repositoryId, objectId: objectId, changeToken: changeToken, caller: caller)
    }

    /// An object's renditions: passed to the mount `repositoryId` names, or to the local engine when it names none.
    public func renditions(
        repositoryId: String, objectId: String, filter: String?, caller: CallerContext
    ) async throws -> [Rendition] {
        try await route(repositoryId).renditions(
            repositoryId: repositoryId, objectId: objectId, filter: filter, caller: caller)
    }

    /// Files an object in one more folder: passed to the mount `repositoryId` names, or to the local engine when it
    /// names none.
    public func addObjectToFolder(
        repositoryId: String, objectId: String, folderId: String, allVersions: Bool, caller: CallerContext
    ) async throws -> CMISObject {
        try await route(repositoryId).addObjectToFolder(
            repositoryId: repositoryId, objectId: objectId, folderId: folderId, allVersions: allVersions, caller: caller
        )
    }

    /// Unfiles an object: passed to the mount `repositoryId` names, or to the local engine when it names none.
    public func removeObjectFromFolder(
        repositoryId: String, objectId: String, folderId: String?, caller: CallerContext
    ) async throws -> CMISObject {
        try await route(repositoryId).removeObjectFromFolder(
            repositoryId: repositoryId, objectId: objectId, folderId: folderId, caller: caller)
    }

    /// Runs a CMIS query: passed to the mount `repositoryId` names, or to the local engine when it names none.
    public func query(
        repositoryId: String, statement: String, searchAllVersions: Bool, includeAllowableActions: Bool,
        includeRelationships: OperationContext.IncludeRelationships, renditionFilter: String?, maxItems: Int?,
        skipCount: Int, caller: CallerContext
    ) async throws -> ObjectList {
        try await route(repositoryId).query(
            repositoryId: repositoryId, statement: statement, searchAllVersions: searchAllVersions,
            includeAllowableActions: includeAllowableActions, includeRelationships: includeRelationships,
            renditionFilter: renditionFilter, maxItems: maxItems, skipCount: skipCount, caller: caller)
    }

    /// Runs a CMIS query within a trash scope: passed to the mount `repositoryId` names, or to the local engine when it
    /// names none. Nil for a mount, which keeps no trash marks.
    public func query(
        repositoryId: String, statement: String, searchAllVersions: Bool, includeAllowableActions: Bool,
        includeRelationships: OperationContext.IncludeRelationships, renditionFilter: String?, maxItems: Int?,
        skipCount: Int, trash: TrashScope, caller: CallerContext
    ) async throws -> ObjectList? {
        try await route(repositoryId).query(
            repositoryId: repositoryId, statement: statement, searchAllVersions: searchAllVersions,
            includeAllowableActions: includeAllowableActions, includeRelationships: includeRelationships,
            renditionFilter: renditionFilter, maxItems: maxItems, skipCount: skipCount, trash: trash, caller: caller)
    }

    /// A page of the change log: passed to the mount `repositoryId` names, or to the local engine when it names none.
    public func contentChanges(
        repositoryId: String, changeLogToken: String?, includeProperties: Bool, includePolicyIds: Bool,
        includeACL: Bool, maxItems: Int?, caller: CallerContext
    ) async throws -> ContentChanges {
        try await route(repositoryId).contentChanges(
            repositoryId: repositoryId, changeLogToken: changeLogToken, includeProperties: includeProperties,
            includePolicyIds: includePolicyIds, includeACL: includeACL, maxItems: maxItems, caller: caller)
    }

    /// Checks a document out: passed to the mount `repositoryId` names, or to the local engine when it names none.
    public func checkOut(repositoryId: String, objectId: String, caller: CallerContext) async throws -> CMISObject {
        try await route(repositoryId).checkOut(repositoryId: repositoryId, objectId: objectId, caller: caller)
    }

    /// Cancels a check-out: passed to the mount `repositoryId` names, or to the local engine when it names none.
    public func cancelCheckOut(repositoryId: String, objectId: String, caller: CallerContext) async throws {
        try await route(repositoryId).cancelCheckOut(repositoryId: repositoryId, objectId: objectId, caller: caller)
    }

    /// Checks a private working copy in: passed to the mount `repositoryId` names, or to the local engine when it names
    /// none.
    public func checkIn(
        repositoryId: String, objectId: String, major: Bool, properties: Properties, content: ContentInput?,
        comment: String?, policies: [String], addACEs: [ACE], removeACEs: [ACE], caller: CallerContext
    ) async throws -> CMISObject {
        try await route(repositoryId).checkIn(
            repositoryId: repositoryId, objectId: objectId, major: major, properties: properties, content: content,
            comment: comment, policies: policies, addACEs: addACEs, removeACEs: removeACEs, caller: caller)
    }

    /// The latest version (or latest major version) of a document: passed to the mount `repositoryId` names, or to the
    /// local engine when it names none.
    public func objectOfLatestVersion(
        repositoryId: String, objectId: String, major: Bool, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject {
        try await route(repositoryId).objectOfLatestVersion(
            repositoryId: repositoryId, objectId: objectId, major: major, context: context, caller: caller)
    }

    /// Every version of a document: passed to the mount `repositoryId` names, or to the local engine when it names
    /// none.
    public func allVersions(
        repositoryId: String, objectId: String, context: OperationContext, caller: CallerContext
    ) async throws -> [CMISObject] {
        try await route(repositoryId).allVersions(
            repositoryId: repositoryId, objectId: objectId, context: context, caller: caller)
    }

    /// A page of an object's relationships: passed to the mount `repositoryId` names, or to the local engine when it
    /// names none.
    public func objectRelationships(
        repositoryId: String, objectId: String, includeSubRelationshipTypes: Bool, direction: RelationshipDirection,
        typeId: String?, context: OperationContext, maxItems: Int?, skipCount: Int, caller: CallerContext
    ) async throws -> ObjectList {
        try await route(repositoryId).objectRelationships(
            repositoryId: repositoryId, objectId: objectId, includeSubRelationshipTypes: includeSubRelationshipTypes,
            direction: direction, typeId: typeId, context: context, maxItems: maxItems, skipCount: skipCount,
            caller: caller)
    }

    /// Applies a policy to an object: passed to the mount `repositoryId` names, or to the local engine when it names
    /// none.
    public func applyPolicy(
        repositoryId: String, policyId: String, objectId: String, caller: CallerContext
    ) async throws {
        try await route(repositoryId).applyPolicy(
            repositoryId: repositoryId, policyId: policyId, objectId: objectId, caller: caller)
    }

    /// Removes a policy from an object: passed to the mount `repositoryId` names, or to the local engine when it names
    /// none.
    public func removePolicy(
        repositoryId: String, policyId: String, objectId: String, caller: CallerContext
    ) async throws {
        try await route(repositoryId).removePolicy(
            repositoryId: repositoryId, policyId: policyId, objectId: objectId, caller: caller)
    }

    /// The policies applied to an object: passed to the mount `repositoryId` names, or to the local engine when it
    /// names none.
    public func appliedPolicies(
        repositoryId: String, objectId: String, context: OperationContext, caller: CallerContext
    ) async throws -> [CMISObject] {
        try await route(repositoryId).appliedPolicies(
            repositoryId: repositoryId, objectId: objectId, context: context, caller: caller)
    }

    /// An object's ACL: passed to the mount `repositoryId` names, or to the local engine when it names none.
    public func acl(
        repositoryId: String, objectId: String, onlyBasicPermissions: Bool, caller: CallerContext
    ) async throws -> ACL {
        try await route(repositoryId).acl(
            repositoryId: repositoryId, objectId: objectId, onlyBasicPermissions: onlyBasicPermissions, caller: caller)
    }

    /// Changes an object's ACL: passed to the mount `repositoryId` names, or to the local engine when it names none.
    public func applyACL(
        repositoryId: String, objectId: String, addACEs: [ACE], removeACEs: [ACE], propagation: String?,
        caller: CallerContext
    ) async throws -> ACL {
        try await route(repositoryId).applyACL(
            repositoryId: repositoryId, objectId: objectId, addACEs: addACEs, removeACEs: removeACEs,
            propagation: propagation, caller: caller)
    }
}
