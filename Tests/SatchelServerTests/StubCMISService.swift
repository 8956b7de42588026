import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelRepository
import Synchronization

/// A tiny stand-in for the repository engine: two repositories per caller (`shared`, `mydocs-<user>`), a root
/// folder, folder creation and documents with content; everything else is `notSupported`. It lets the HTTP
/// tests (auth, XSRF, hostile input) run without depending on the engine's behaviour.
final class StubCMISService: CMISService {
    struct Stored {
        var object: CMISObject
        var content: ContentInput?
    }

    let blobs: BlobStore
    private let objects = Mutex<[String: Stored]>([:])
    private let counter = Atomic<Int>(0)

    init(blobs: BlobStore) { self.blobs = blobs }

    static func folder(id: String, name: String) -> CMISObject {
        CMISObject(
            properties: Properties([
                CMISProperty(id: "cmis:objectId", type: .id, values: [.id(id)]),
                CMISProperty(id: "cmis:name", type: .string, values: [.string(name)]),
                CMISProperty(id: "cmis:baseTypeId", type: .id, values: [.id("cmis:folder")]),
                CMISProperty(id: "cmis:objectTypeId", type: .id, values: [.id("cmis:folder")]),
            ]))
    }

    func check(_ repositoryId: String, _ caller: CallerContext) throws {
        guard repositoryId == "shared" || repositoryId == "mydocs-\(caller.user)" else {
            throw CMISError(.objectNotFound, "no repository \(repositoryId)")
        }
    }

    func repositoryInfos(caller: CallerContext) async throws -> [RepositoryInfo] {
        let mine = try await repositoryInfo(repositoryId: "mydocs-\(caller.user)", caller: caller)
        let shared = try await repositoryInfo(repositoryId: "shared", caller: caller)
        return [mine, shared]
    }

    func repositoryInfo(repositoryId: String, caller: CallerContext) async throws -> RepositoryInfo {
        try check(repositoryId, caller)
        var info = RepositoryInfo(id: repositoryId, name: repositoryId, rootFolderId: "root")
        if repositoryId.hasPrefix("mydocs-") {
            info.extensions = [
                CMISExtension(namespace: "http://www.sap.com/mcm", name: "myDocuments", value: "root"),
                CMISExtension(namespace: "http://www.sap.com/mcm", name: "token", value: caller.sessionToken),
            ]
        }
        return info
    }

    func typeChildren(
        repositoryId: String, typeId: String?, includePropertyDefinitions: Bool, maxItems: Int?, skipCount: Int,
        caller: CallerContext
    ) async throws -> (types: [TypeDefinition], hasMoreItems: Bool, numItems: Int) {
        throw CMISError(.notSupported, "stub")
    }
    func typeDescendants(
        repositoryId: String, typeId: String?, depth: Int?, includePropertyDefinitions: Bool, caller: CallerContext
    ) async throws -> [TypeTreeNode] { throw CMISError(.notSupported, "stub") }
    func typeDefinition(repositoryId: String, typeId: String, caller: CallerContext) async throws -> TypeDefinition {
        try check(repositoryId, caller)
        guard let base = BaseTypeId(rawValue: typeId) else { throw CMISError(.objectNotFound, "no type \(typeId)") }
        return TypeDefinition(
            id: typeId, baseTypeId: base,
            propertyDefinitions: [PropertyDefinition(id: "cmis:name", propertyType: .string)])
    }
    func children(
        repositoryId: String, folderId: String, context: OperationContext, maxItems: Int?, skipCount: Int,
        caller: CallerContext
    ) async throws -> ObjectInFolderList {
        try check(repositoryId, caller)
        let all = objects.withLock { $0.values.map(\.object) }.sorted { ($0.name ?? "") < ($1.name ?? "") }
        return ObjectInFolderList(objects: all.map { ObjectInFolder(object: $0) }, numItems: Int64(all.count))
    }
    func descendants(
        repositoryId: String, folderId: String, depth: Int?, foldersOnly: Bool, context: OperationContext,
        caller: CallerContext
    ) async throws -> [ContainerNode] { throw CMISError(.notSupported, "stub") }
    func objectParents(
        repositoryId: String, objectId: String, context: OperationContext, caller: CallerContext
    ) async throws -> [ObjectParent] { throw CMISError(.notSupported, "stub") }
    func folderParent(
        repositoryId: String, folderId: String, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject { throw CMISError(.notSupported, "stub") }
    func checkedOutDocuments(
        repositoryId: String, folderId: String?, context: OperationContext, maxItems: Int?, skipCount: Int,
        caller: CallerContext
    ) async throws -> ObjectList { throw CMISError(.notSupported, "stub") }
    func object(
        repositoryId: String, id: String, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject {
        try check(repositoryId, caller)
        if id == "root" { return Self.folder(id: "root", name: "") }
        guard let stored = objects.withLock({ $0[id] }) else { throw CMISError(.objectNotFound, "no object \(id)") }
        return stored.object
    }
    func object(
        repositoryId: String, path: String, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject {
        try check(repositoryId, caller)
        if path == "/" { return Self.folder(id: "root", name: "") }
        let name = String(path.dropFirst())
        guard let stored = objects.withLock({ $0.values.first { $0.object.name == name } }) else {
            throw CMISError(.objectNotFound, "nothing at \(path)")
        }
        return stored.object
    }
    func allowableActions(
        repositoryId: String, objectId: String, caller: CallerContext
    ) async throws
        -> AllowableActions
    { AllowableActions([.getChildren]) }
    func createFolder(
        repositoryId: String, parentId: String, properties: Properties, policies: [String], addACEs: [ACE],
        removeACEs: [ACE], caller: CallerContext
    ) async throws -> CMISObject {
        try check(repositoryId, caller)
        let id = "f\(counter.add(1, ordering: .relaxed).newValue)"
        let folder = Self.folder(id: id, name: properties["cmis:name"]?.stringValue ?? "")
        objects.withLock { $0[id] = Stored(object: folder) }
        return folder
    }
    func createDocument(
        repositoryId: String, parentId: String?, properties: Properties, content: ContentInput?,
        versioningState: VersioningState?, policies: [String], addACEs: [ACE], removeACEs: [ACE],
        caller: CallerContext
    ) async throws -> CMISObject {
        try check(repositoryId, caller)
        let id = "d\(counter.add(1, ordering: .relaxed).newValue)"
        var document = CMISObject(
            properties: Properties([
                CMISProperty(id: "cmis:objectId", type: .id, values: [.id(id)]),
                CMISProperty(
                    id: "cmis:name", type: .string, values: [.string(properties["cmis:name"]?.stringValue ?? "")]),
                CMISProperty(id: "cmis:baseTypeId", type: .id, values: [.id("cmis:document")]),
                CMISProperty(id: "cmis:objectTypeId", type: .id, values: [.id("cmis:document")]),
            ]))
        if let content {
            document.properties["cmis:contentStreamLength"] = CMISProperty(
                id: "cmis:contentStreamLength", type: .integer, values: [.integer(content.blob.length)])
            document.properties["cmis:contentStreamMimeType"] = CMISProperty(
                id: "cmis:contentStreamMimeType", type: .string, values: [.string(content.mimeType)])
        }
        objects.withLock { $0[id] = Stored(object: document, content: content) }
        return document
    }
    func createDocumentFromSource(
        repositoryId: String, sourceId: String, parentId: String?, properties: Properties,
        versioningState: VersioningState?, caller: CallerContext
    ) async throws -> CMISObject { throw CMISError(.notSupported, "stub") }
    func createObject(
        repositoryId: String, parentId: String?, properties: Properties, policies: [String], addACEs: [ACE],
        removeACEs: [ACE], caller: CallerContext
    ) async throws -> CMISObject { throw CMISError(.notSupported, "stub") }
    func updateProperties(
        repositoryId: String, objectId: String, changeToken: String?, properties: Properties, caller: CallerContext
    ) async throws -> CMISObject { throw CMISError(.notSupported, "stub") }
    func bulkUpdateProperties(
        repositoryId: String, objects: [(id: String, changeToken: String?)], properties: Properties,
        addSecondaryTypeIds: [String], removeSecondaryTypeIds: [String], caller: CallerContext
    ) async throws -> [(id: String, newId: String?, changeToken: String?)] { throw CMISError(.notSupported, "stub") }
    func moveObject(
        repositoryId: String, objectId: String, targetFolderId: String, sourceFolderId: String?,
        caller: CallerContext
    ) async throws -> CMISObject { throw CMISError(.notSupported, "stub") }
    func deleteObject(repositoryId: String, objectId: String, allVersions: Bool, caller: CallerContext) async throws {
        try check(repositoryId, caller)
        guard objects.withLock({ $0.removeValue(forKey: objectId) }) != nil else {
            throw CMISError(.objectNotFound, "no object \(objectId)")
        }
    }
    func deleteTree(
        repositoryId: String, folderId: String, allVersions: Bool, unfileObjects: UnfileObjects,
        continueOnFailure: Bool, caller: CallerContext
    ) async throws -> [String] { throw CMISError(.notSupported, "stub") }
    func contentStream(
        repositoryId: String, objectId: String, streamId: String?, caller: CallerContext
    ) async throws -> ContentOutput {
        try check(repositoryId, caller)
        guard let content = objects.withLock({ $0[objectId]?.content }) else {
            throw CMISError(.constraint, "no content")
        }
        return ContentOutput(
            file: blobs.url(for: content.blob.hash), length: content.blob.length, mimeType: content.mimeType,
            fileName: content.fileName, hash: content.blob.hash)
    }
    func readGeneration(repositoryId: String) -> UInt64? { nil }

    func checkContentUpload(repositoryId: String, targetId: String, name: String?, caller: CallerContext) async throws {
    }

    func setContentStream(
        repositoryId: String, objectId: String, overwrite: Bool, changeToken: String?, content: ContentInput,
        caller: CallerContext
    ) async throws -> CMISObject { throw CMISError(.notSupported, "stub") }
    func appendContentStream(
        repositoryId: String, objectId: String, isLastChunk: Bool, changeToken: String?, content: ContentInput,
        caller: CallerContext
    ) async throws -> CMISObject { throw CMISError(.notSupported, "stub") }
    func deleteContentStream(
        repositoryId: String, objectId: String, changeToken: String?, caller: CallerContext
    ) async throws -> CMISObject { throw CMISError(.notSupported, "stub") }
    func renditions(
        repositoryId: String, objectId: String, filter: String?, caller: CallerContext
    ) async throws -> [Rendition] { [] }
    func addObjectToFolder(
        repositoryId: String, objectId: String, folderId: String, allVersions: Bool, caller: CallerContext
    ) async throws -> CMISObject { throw CMISError(.notSupported, "stub") }
    func removeObjectFromFolder(
        repositoryId: String, objectId: String, folderId: String?, caller: CallerContext
    ) async throws -> CMISObject { throw CMISError(.notSupported, "stub") }
    func query(
        repositoryId: String, statement: String, searchAllVersions: Bool, includeAllowableActions: Bool,
        includeRelationships: OperationContext.IncludeRelationships, renditionFilter: String?, maxItems: Int?,
        skipCount: Int, caller: CallerContext
    ) async throws -> ObjectList { throw CMISError(.notSupported, "stub") }
    func contentChanges(
        repositoryId: String, changeLogToken: String?, includeProperties: Bool, includePolicyIds: Bool,
        includeACL: Bool, maxItems: Int?, caller: CallerContext
    ) async throws -> ContentChanges { throw CMISError(.notSupported, "stub") }
    func checkOut(repositoryId: String, objectId: String, caller: CallerContext) async throws -> CMISObject {
        throw CMISError(.notSupported, "stub")
    }
    func cancelCheckOut(repositoryId: String, objectId: String, caller: CallerContext) async throws {
        throw CMISError(.notSupported, "stub")
    }
    func checkIn(
        repositoryId: String, objectId: String, major: Bool, properties: Properties, content: ContentInput?,
        comment: String?, policies: [String], addACEs: [ACE], removeACEs: [ACE], caller: CallerContext
    ) async throws -> CMISObject { throw CMISError(.notSupported, "stub") }
    func objectOfLatestVersion(
        repositoryId: String, objectId: String, major: Bool, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject { throw CMISError(.notSupported, "stub") }
    func allVersions(
        repositoryId: String, objectId: String, context: OperationContext, caller: CallerContext
    ) async throws -> [CMISObject] { throw CMISError(.notSupported, "stub") }
    func objectRelationships(
        repositoryId: String, objectId: String, includeSubRelationshipTypes: Bool,
        direction: RelationshipDirection, typeId: String?, context: OperationContext, maxItems: Int?,
        skipCount: Int, caller: CallerContext
    ) async throws -> ObjectList { throw CMISError(.notSupported, "stub") }
    func applyPolicy(repositoryId: String, policyId: String, objectId: String, caller: CallerContext) async throws {
        throw CMISError(.notSupported, "stub")
    }
    func removePolicy(repositoryId: String, policyId: String, objectId: String, caller: CallerContext) async throws {
        throw CMISError(.notSupported, "stub")
    }
    func appliedPolicies(
        repositoryId: String, objectId: String, context: OperationContext, caller: CallerContext
    ) async throws -> [CMISObject] { [] }
    func acl(
        repositoryId: String, objectId: String, onlyBasicPermissions: Bool, caller: CallerContext
    )
        async throws -> ACL
    { ACL(aces: []) }
    func applyACL(
        repositoryId: String, objectId: String, addACEs: [ACE], removeACEs: [ACE], propagation: String?,
        caller: CallerContext
    ) async throws -> ACL { throw CMISError(.notSupported, "stub") }
}
