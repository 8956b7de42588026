import Foundation
public import SatchelCMISCore
public import SatchelHTTP

extension CMISSession {
    /// Moves an object from one folder to another (`from` is required for multi-filed objects).
    public func move(
        _ objectId: String, to targetFolderId: String, from sourceFolderId: String? = nil
    ) async throws
        -> CMISObject
    {
        cache.remove(id: objectId, allPaths: true)
        return try await binding.moveObject(
            repositoryId: repositoryId, objectId: objectId, targetFolderId: targetFolderId,
            sourceFolderId: sourceFolderId)
    }

    /// Deletes a folder and everything below it; returns the ids that could not be deleted (empty on success).
    @discardableResult
    public func deleteTree(
        _ folderId: String, allVersions: Bool = true, unfileObjects: UnfileObjects = .delete,
        continueOnFailure: Bool = false
    ) async throws -> [String] {
        cache.removeAll()
        return try await binding.deleteTree(
            repositoryId: repositoryId, folderId: folderId, allVersions: allVersions, unfileObjects: unfileObjects,
            continueOnFailure: continueOnFailure)
    }

    /// Sets the same properties on many objects in one request.
    public func bulkUpdate(
        _ objects: [(id: String, changeToken: String?)], properties: [CMISProperty],
        addSecondaryTypeIds: [String] = [], removeSecondaryTypeIds: [String] = []
    ) async throws -> [BulkUpdateResult] {
        for object in objects { cache.remove(id: object.id, allPaths: true) }
        return try await binding.bulkUpdate(
            repositoryId: repositoryId, objects: objects, properties: Properties(properties),
            addSecondaryTypeIds: addSecondaryTypeIds, removeSecondaryTypeIds: removeSecondaryTypeIds)
    }

    /// Replaces (or, with `overwrite: false`, sets only if absent) a document's content.
    public func setContent(
        of documentId: String, to content: ContentSource, overwrite: Bool = true, changeToken: String? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> CMISObject {
        cache.remove(id: documentId)
        return try await binding.setContentStream(
            repositoryId: repositoryId, objectId: documentId, content: content, overwrite: overwrite,
            changeToken: changeToken, progress: progress)
    }

    /// Appends bytes to a document's content (for uploads in pieces).
    public func appendContent(
        to documentId: String, _ content: ContentSource, isLastChunk: Bool = false,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> CMISObject {
        cache.remove(id: documentId)
        return try await binding.appendContentStream(
            repositoryId: repositoryId, objectId: documentId, content: content, isLastChunk: isLastChunk,
            progress: progress)
    }

    /// Removes a document's content.
    public func deleteContent(of documentId: String, changeToken: String? = nil) async throws -> CMISObject {
        cache.remove(id: documentId)
        return try await binding.deleteContentStream(
            repositoryId: repositoryId, objectId: documentId, changeToken: changeToken)
    }

    /// Files an object in one more folder (multi-filing).
    public func addToFolder(
        _ objectId: String, folderId: String, allVersions: Bool = true
    ) async throws
        -> CMISObject
    {
        cache.remove(id: objectId, allPaths: true)
        return try await binding.addObjectToFolder(
            repositoryId: repositoryId, objectId: objectId, folderId: folderId, allVersions: allVersions)
    }

    /// Removes an object from one folder (from all when `folderId` is nil: unfiling).
    public func removeFromFolder(_ objectId: String, folderId: String? = nil) async throws -> CMISObject {
        cache.remove(id: objectId, allPaths: true)
        return try await binding.removeObjectFromFolder(
            repositoryId: repositoryId, objectId: objectId, folderId: folderId)
    }

    /// Creates a relationship of `typeId` from `sourceId` to `targetId`.
    public func createRelationship(
        from sourceId: String, to targetId: String, typeId: String = "cmis:relationship", name: String? = nil,
        properties: [CMISProperty] = []
    ) async throws -> CMISObject {
        var all = properties
        all.append(CMISProperty(id: "cmis:sourceId", type: .id, values: [.id(sourceId)]))
        all.append(CMISProperty(id: "cmis:targetId", type: .id, values: [.id(targetId)]))
        return try await binding.createObject(
            repositoryId: repositoryId, parentId: nil, baseType: .relationship,
            properties: Self.creationProperties(name: name ?? "\(sourceId)-\(targetId)", typeId: typeId, extra: all))
    }

    /// Creates an item (a fileable object without content).
    public func createItem(
        named name: String, in parentId: String?, typeId: String = "cmis:item", properties: [CMISProperty] = []
    ) async throws -> CMISObject {
        try await binding.createObject(
            repositoryId: repositoryId, parentId: parentId, baseType: .item,
            properties: Self.creationProperties(name: name, typeId: typeId, extra: properties))
    }

    /// Creates a policy object.
    public func createPolicy(
        named name: String, in parentId: String?, policyText: String? = nil, typeId: String = "cmis:policy",
        properties: [CMISProperty] = []
    ) async throws -> CMISObject {
        var all = properties
        if let policyText {
            all.append(CMISProperty(id: "cmis:policyText", type: .string, values: [.string(policyText)]))
        }
        return try await binding.createObject(
            repositoryId: repositoryId, parentId: parentId, baseType: .policy,
            properties: Self.creationProperties(name: name, typeId: typeId, extra: all))
    }
}
