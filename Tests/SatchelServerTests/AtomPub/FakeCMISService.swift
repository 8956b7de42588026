import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelRepository
import Synchronization

/// A small in-memory CMIS service: one repository of folders and documents, enough to drive the AtomPub routes
/// without the engine. Operations it does not model throw `notSupported`.
final class FakeCMISService: CMISService {
    struct Stored {
        var object: CMISObject
        var parentId: String?
        var content: ContentInput?
    }

    let blobs: BlobStore
    let repositoryId: String
    let extensions: [CMISExtension]
    private let store: Mutex<(objects: [String: Stored], next: Int)>

    init(blobs: BlobStore, repositoryId: String = "shared", extensions: [CMISExtension] = []) {
        self.blobs = blobs
        self.repositoryId = repositoryId
        self.extensions = extensions
        var root = CMISObject(properties: Self.properties(id: "root", name: "", type: .folder))
        root.properties["cmis:path"] = CMISProperty(id: "cmis:path", type: .string, values: [.string("/")])
        store = Mutex((["root": Stored(object: root)], 1))
    }

    static func properties(id: String, name: String, type: BaseTypeId) -> Properties {
        var properties = Properties()
        properties["cmis:objectId"] = CMISProperty(id: "cmis:objectId", type: .id, values: [.id(id)])
        properties["cmis:name"] = CMISProperty(id: "cmis:name", type: .string, values: [.string(name)])
        properties["cmis:objectTypeId"] = CMISProperty(
            id: "cmis:objectTypeId", type: .id, values: [.id(type.rawValue)])
        properties["cmis:baseTypeId"] = CMISProperty(id: "cmis:baseTypeId", type: .id, values: [.id(type.rawValue)])
        properties["cmis:changeToken"] = CMISProperty(id: "cmis:changeToken", type: .string, values: [.string("1")])
        properties["cmis:creationDate"] = CMISProperty(
            id: "cmis:creationDate", type: .datetime, values: [.datetime(Date(timeIntervalSince1970: 1_700_000_000))])
        return properties
    }

    func check(_ repositoryId: String) throws {
        guard repositoryId == self.repositoryId else {
            throw CMISError(.objectNotFound, "no repository \(repositoryId)")
        }
    }

    func stored(_ id: String) throws -> Stored {
        guard let stored = store.withLock({ $0.objects[id] }) else {
            throw CMISError(.objectNotFound, "no object \(id)")
        }
        return stored
    }

    func path(of id: String) -> String {
        store.withLock { state in
            var segments: [String] = []
            var current = state.objects[id]
            while let item = current, let parent = item.parentId {
                segments.insert(item.object.name ?? "", at: 0)
                current = state.objects[parent]
            }
            return "/" + segments.joined(separator: "/")
        }
    }

    // MARK: Repository

    func repositoryInfos(caller: CallerContext) async throws -> [RepositoryInfo] {
        [try await repositoryInfo(repositoryId: repositoryId, caller: caller)]
    }

    func repositoryInfo(repositoryId: String, caller: CallerContext) async throws -> RepositoryInfo {
        try check(repositoryId)
        var capabilities = RepositoryCapabilities()
        capabilities.query = QueryCapability(rawValue: "metadataonly")
        capabilities.creatablePropertyTypes = [.string]
        capabilities.newTypeSettableAttributes = NewTypeSettableAttributes()
        var info = RepositoryInfo(
            id: repositoryId, name: "Fake", rootFolderId: "root", capabilities: capabilities, extensions: extensions)
        info.cmisVersionSupported = "1.1"
        var extensions = info.extensions
        if let index = extensions.firstIndex(where: { $0.name == MobileDocuments.tokenExtension }) {
            extensions[index].value = caller.sessionToken
        }
        info.extensions = extensions
        return info
    }

    func typeDefinition(repositoryId: String, typeId: String, caller: CallerContext) async throws -> TypeDefinition {
        try check(repositoryId)
        guard let base = BaseTypeId(rawValue: typeId), base == .folder || base == .document else {
            throw CMISError(.objectNotFound, "no type \(typeId)")
        }
        var type = TypeDefinition(id: typeId, baseTypeId: base, parentTypeId: nil)
        type.propertyDefinitions = [
            PropertyDefinition(id: "cmis:name", propertyType: .string, cardinality: .single, updatability: .readwrite),
            PropertyDefinition(id: "cmis:objectId", propertyType: .id, cardinality: .single, updatability: .readonly),
            PropertyDefinition(
                id: "cmis:objectTypeId", propertyType: .id, cardinality: .single, updatability: .oncreate),
            PropertyDefinition(
                id: "cmis:description", propertyType: .string, cardinality: .single, updatability: .readwrite),
        ]
        return type
    }

    func typeChildren(
        repositoryId: String, typeId: String?, includePropertyDefinitions: Bool, maxItems: Int?, skipCount: Int,
        caller: CallerContext
    ) async throws -> (types: [TypeDefinition], hasMoreItems: Bool, numItems: Int) {
        let types = [
            try await typeDefinition(repositoryId: repositoryId, typeId: "cmis:document", caller: caller),
            try await typeDefinition(repositoryId: repositoryId, typeId: "cmis:folder", caller: caller),
        ]
        return (typeId == nil ? types : [], false, typeId == nil ? 2 : 0)
    }

    // MARK: Objects

    func object(
        repositoryId: String, id: String, context: OperationContext, caller: CallerContext
    ) async throws
        -> CMISObject
    {
        try check(repositoryId)
        var object = try stored(id).object
        if object.baseType == .folder {
            object.properties["cmis:path"] = CMISProperty(
                id: "cmis:path", type: .string, values: [.string(path(of: id))])
        }
        if context.includeAllowableActions { object.allowableActions = AllowableActions([.getProperties]) }
        return object
    }

    func object(
        repositoryId: String, path: String, context: OperationContext, caller: CallerContext
    ) async throws
        -> CMISObject
    {
        try check(repositoryId)
        var current = "root"
        for segment in path.split(separator: "/") {
            let next = store.withLock { state in
                state.objects.first { $0.value.parentId == current && $0.value.object.name == String(segment) }?.key
            }
            guard let next else { throw CMISError(.objectNotFound, "nothing at \(path)") }
            current = next
        }
        return try await object(repositoryId: repositoryId, id: current, context: context, caller: caller)
    }

    func children(
        repositoryId: String, folderId: String, context: OperationContext, maxItems: Int?, skipCount: Int,
        caller: CallerContext
    ) async throws -> ObjectInFolderList {
        try check(repositoryId)
        _ = try stored(folderId)
        let all = store.withLock { state in
            state.objects.values.filter { $0.parentId == folderId }.map(\.object)
                .sorted { ($0.name ?? "") < ($1.name ?? "") }
        }
        let page = all.dropFirst(skipCount).prefix(maxItems ?? 100)
        return ObjectInFolderList(
            objects: page.map { ObjectInFolder(object: $0, pathSegment: context.includePathSegment ? $0.name : nil) },
            hasMoreItems: skipCount + page.count < all.count, numItems: Int64(all.count))
    }

    func create(
        parentId: String?, properties: Properties, type: BaseTypeId, content: ContentInput?
    ) throws -> CMISObject {
        guard let parentId else { throw CMISError(.constraint, "unfiled objects are not supported") }
        let parent = try stored(parentId)
        guard parent.object.baseType == .folder else { throw CMISError(.invalidArgument, "\(parentId) is no folder") }
        guard let name = properties["cmis:name"]?.stringValue, !name.isEmpty else {
            throw CMISError(.invalidArgument, "cmis:name is required")
        }
        return try store.withLock { state in
            if state.objects.values.contains(where: { $0.parentId == parentId && $0.object.name == name }) {
                throw CMISError(.nameConstraintViolation, "\(name) exists already")
            }
            let id = "o\(state.next)"
            state.next += 1
            var object = CMISObject(properties: Self.properties(id: id, name: name, type: type))
            object.properties["cmis:parentId"] = CMISProperty(id: "cmis:parentId", type: .id, values: [.id(parentId)])
            if let description = properties["cmis:description"] { object.properties["cmis:description"] = description }
            if type == .document {
                object.properties["cmis:isPrivateWorkingCopy"] = CMISProperty(
                    id: "cmis:isPrivateWorkingCopy", type: .boolean, values: [.boolean(false)])
            }
            Self.describe(content, in: &object)
            state.objects[id] = Stored(object: object, parentId: parentId, content: content)
            return object
        }
    }

    static func describe(_ content: ContentInput?, in object: inout CMISObject) {
        guard let content else { return }
        object.properties["cmis:contentStreamLength"] = CMISProperty(
            id: "cmis:contentStreamLength", type: .integer, values: [.integer(content.blob.length)])
        object.properties["cmis:contentStreamMimeType"] = CMISProperty(
            id: "cmis:contentStreamMimeType", type: .string, values: [.string(content.mimeType)])
        if let name = content.fileName {
            object.properties["cmis:contentStreamFileName"] = CMISProperty(
                id: "cmis:contentStreamFileName", type: .string, values: [.string(name)])
        }
    }

    func createFolder(
        repositoryId: String, parentId: String, properties: Properties, policies: [String], addACEs: [ACE],
        removeACEs: [ACE], caller: CallerContext
    ) async throws -> CMISObject {
        try check(repositoryId)
        return try create(parentId: parentId, properties: properties, type: .folder, content: nil)
    }

    func createDocument(
        repositoryId: String, parentId: String?, properties: Properties, content: ContentInput?,
        versioningState: VersioningState?, policies: [String], addACEs: [ACE], removeACEs: [ACE],
        caller: CallerContext
    ) async throws -> CMISObject {
        try check(repositoryId)
        return try create(parentId: parentId, properties: properties, type: .document, content: content)
    }

    func updateProperties(
        repositoryId: String, objectId: String, changeToken: String?, properties: Properties, caller: CallerContext
    ) async throws -> CMISObject {
        try check(repositoryId)
        return try store.withLock { state in
            guard var item = state.objects[objectId] else { throw CMISError(.objectNotFound, "no object \(objectId)") }
            if let changeToken, changeToken != item.object.changeToken {
                throw CMISError(.updateConflict, "the object changed")
            }
            for property in properties {
                guard ["cmis:name", "cmis:description"].contains(property.id) else {
                    throw CMISError(.constraint, "\(property.id) is not updatable")
                }
                item.object.properties[property.id] = property
            }
            let token = String((Int(item.object.changeToken ?? "0") ?? 0) + 1)
            item.object.properties["cmis:changeToken"] = CMISProperty(
                id: "cmis:changeToken", type: .string, values: [.string(token)])
            state.objects[objectId] = item
            return item.object
        }
    }

    func deleteObject(repositoryId: String, objectId: String, allVersions: Bool, caller: CallerContext) async throws {
        try check(repositoryId)
        try store.withLock { state in
            guard state.objects[objectId] != nil, objectId != "root" else {
                throw CMISError(.objectNotFound, "no object \(objectId)")
            }
            if state.objects.values.contains(where: { $0.parentId == objectId }) {
                throw CMISError(.constraint, "the folder is not empty")
            }
            state.objects[objectId] = nil
        }
    }

    func contentStream(
        repositoryId: String, objectId: String, streamId: String?, caller: CallerContext
    )
        async throws -> ContentOutput
    {
        try check(repositoryId)
        guard let content = try stored(objectId).content else {
            throw CMISError(.constraint, "\(objectId) has no content")
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
    ) async throws -> CMISObject {
        try check(repositoryId)
        return try store.withLock { state in
            guard var item = state.objects[objectId] else { throw CMISError(.objectNotFound, "no object \(objectId)") }
            if item.content != nil, !overwrite { throw CMISError(.contentAlreadyExists, "content exists") }
            item.content = content
            Self.describe(content, in: &item.object)
            state.objects[objectId] = item
            return item.object
        }
    }

    func query(
        repositoryId: String, statement: String, searchAllVersions: Bool, includeAllowableActions: Bool,
        includeRelationships: OperationContext.IncludeRelationships, renditionFilter: String?, maxItems: Int?,
        skipCount: Int, caller: CallerContext
    ) async throws -> ObjectList {
        try check(repositoryId)
        // Understands only: SELECT * FROM cmis:document|cmis:folder [WHERE cmis:name = 'x'].
        let words = statement.split(separator: " ")
        guard words.count >= 4, words[0].uppercased() == "SELECT", let from = words.firstIndex(of: "FROM"),
            from + 1 < words.count
        else { throw CMISError(.invalidArgument, "cannot parse \(statement)") }
        let type = String(words[from + 1])
        var name: String?
        if let quote = statement.firstIndex(of: "'"),
            let end = statement[statement.index(after: quote)...].firstIndex(of: "'")
        {
            name = String(statement[statement.index(after: quote)..<end])
        }
        let all = store.withLock { state in
            state.objects.values.map(\.object).filter { $0.objectTypeId == type && (name == nil || $0.name == name) }
                .sorted { ($0.name ?? "") < ($1.name ?? "") }
        }
        let page = all.dropFirst(skipCount).prefix(maxItems ?? 100)
        return ObjectList(
            objects: Array(page), hasMoreItems: skipCount + page.count < all.count, numItems: Int64(all.count))
    }

    // MARK: Not modelled

    func unsupported() -> CMISError { CMISError(.notSupported, "not in the fake service") }

    func typeDescendants(
        repositoryId: String, typeId: String?, depth: Int?, includePropertyDefinitions: Bool, caller: CallerContext
    ) async throws -> [TypeTreeNode] { throw unsupported() }
    func descendants(
        repositoryId: String, folderId: String, depth: Int?, foldersOnly: Bool, context: OperationContext,
        caller: CallerContext
    ) async throws -> [ContainerNode] { throw unsupported() }
    func objectParents(
        repositoryId: String, objectId: String, context: OperationContext, caller: CallerContext
    ) async throws -> [ObjectParent] {
        let item = try stored(objectId)
        guard let parent = item.parentId else { return [] }
        return [
            ObjectParent(
                object: try await object(repositoryId: repositoryId, id: parent, context: context, caller: caller),
                relativePathSegment: item.object.name)
        ]
    }
    func folderParent(
        repositoryId: String, folderId: String, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject { throw unsupported() }
    func checkedOutDocuments(
        repositoryId: String, folderId: String?, context: OperationContext, maxItems: Int?, skipCount: Int,
        caller: CallerContext
    ) async throws -> ObjectList { ObjectList(objects: [], hasMoreItems: false, numItems: 0) }
    func allowableActions(
        repositoryId: String, objectId: String, caller: CallerContext
    ) async throws
        -> AllowableActions
    { AllowableActions([.getProperties]) }
    func createDocumentFromSource(
        repositoryId: String, sourceId: String, parentId: String?, properties: Properties,
        versioningState: VersioningState?, caller: CallerContext
    ) async throws -> CMISObject { throw unsupported() }
    func createObject(
        repositoryId: String, parentId: String?, properties: Properties, policies: [String], addACEs: [ACE],
        removeACEs: [ACE], caller: CallerContext
    ) async throws -> CMISObject { throw unsupported() }
    func bulkUpdateProperties(
        repositoryId: String, objects: [(id: String, changeToken: String?)], properties: Properties,
        addSecondaryTypeIds: [String], removeSecondaryTypeIds: [String], caller: CallerContext
    ) async throws -> [(id: String, newId: String?, changeToken: String?)] { throw unsupported() }
    func moveObject(
        repositoryId: String, objectId: String, targetFolderId: String, sourceFolderId: String?,
        caller: CallerContext
    ) async throws -> CMISObject { throw unsupported() }
    func deleteTree(
        repositoryId: String, folderId: String, allVersions: Bool, unfileObjects: UnfileObjects,
        continueOnFailure: Bool, caller: CallerContext
    ) async throws -> [String] { throw unsupported() }
    func appendContentStream(
        repositoryId: String, objectId: String, isLastChunk: Bool, changeToken: String?, content: ContentInput,
        caller: CallerContext
    ) async throws -> CMISObject { throw unsupported() }
    func deleteContentStream(
        repositoryId: String, objectId: String, changeToken: String?, caller: CallerContext
    ) async throws -> CMISObject { throw unsupported() }
    func renditions(
        repositoryId: String, objectId: String, filter: String?, caller: CallerContext
    ) async throws -> [Rendition] { [] }
    func addObjectToFolder(
        repositoryId: String, objectId: String, folderId: String, allVersions: Bool, caller: CallerContext
    ) async throws -> CMISObject { throw unsupported() }
    func removeObjectFromFolder(
        repositoryId: String, objectId: String, folderId: String?, caller: CallerContext
    ) async throws -> CMISObject { throw unsupported() }
    func contentChanges(
        repositoryId: String, changeLogToken: String?, includeProperties: Bool, includePolicyIds: Bool,
        includeACL: Bool, maxItems: Int?, caller: CallerContext
    ) async throws -> ContentChanges { throw unsupported() }
    func checkOut(repositoryId: String, objectId: String, caller: CallerContext) async throws -> CMISObject {
        throw unsupported()
    }
    func cancelCheckOut(repositoryId: String, objectId: String, caller: CallerContext) async throws {
        throw unsupported()
    }
    func checkIn(
        repositoryId: String, objectId: String, major: Bool, properties: Properties, content: ContentInput?,
        comment: String?, policies: [String], addACEs: [ACE], removeACEs: [ACE], caller: CallerContext
    ) async throws -> CMISObject { throw unsupported() }
    func objectOfLatestVersion(
        repositoryId: String, objectId: String, major: Bool, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject { throw unsupported() }
    func allVersions(
        repositoryId: String, objectId: String, context: OperationContext, caller: CallerContext
    ) async throws -> [CMISObject] {
        [try await object(repositoryId: repositoryId, id: objectId, context: context, caller: caller)]
    }
    func objectRelationships(
        repositoryId: String, objectId: String, includeSubRelationshipTypes: Bool,
        direction: RelationshipDirection, typeId: String?, context: OperationContext, maxItems: Int?,
        skipCount: Int, caller: CallerContext
    ) async throws -> ObjectList { ObjectList(objects: [], hasMoreItems: false, numItems: 0) }
    func applyPolicy(repositoryId: String, policyId: String, objectId: String, caller: CallerContext) async throws {
        throw unsupported()
    }
    func removePolicy(repositoryId: String, policyId: String, objectId: String, caller: CallerContext) async throws {
        throw unsupported()
    }
    func appliedPolicies(
        repositoryId: String, objectId: String, context: OperationContext, caller: CallerContext
    ) async throws -> [CMISObject] { [] }
    func acl(
        repositoryId: String, objectId: String, onlyBasicPermissions: Bool, caller: CallerContext
    )
        async throws -> ACL
    { ACL(aces: [ACE(principalId: caller.user, permissions: ["cmis:all"], isDirect: true)], isExact: true) }
    func applyACL(
        repositoryId: String, objectId: String, addACEs: [ACE], removeACEs: [ACE], propagation: String?,
        caller: CallerContext
    ) async throws -> ACL { throw unsupported() }
}
