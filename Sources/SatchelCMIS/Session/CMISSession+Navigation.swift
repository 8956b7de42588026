import Foundation
public import SatchelCMISCore

extension CMISSession {
    /// A page of the subtypes of a type (of the base types when `typeId` is nil).
    public func typeChildren(
        of typeId: String? = nil, includePropertyDefinitions: Bool = false, maxItems: Int = 100, skipCount: Int = 0
    ) async throws -> TypeDefinitionList {
        try await binding.typeChildren(
            repositoryId: repositoryId, typeId: typeId, includePropertyDefinitions: includePropertyDefinitions,
            maxItems: maxItems, skipCount: skipCount)
    }

    /// The type hierarchy below a type (every base type when `typeId` is nil).
    public func typeDescendants(
        of typeId: String? = nil, depth: Int? = nil, includePropertyDefinitions: Bool = false
    ) async throws -> [TypeDefinitionContainer] {
        try await binding.typeDescendants(
            repositoryId: repositoryId, typeId: typeId, depth: depth,
            includePropertyDefinitions: includePropertyDefinitions)
    }

    /// Everything below a folder, as a tree, `depth` levels deep (all levels when nil).
    ///
    /// ```swift
    /// for node in try await session.descendants(of: folder.id!, depth: 2) {
    ///     print(node.object.name ?? "", node.children.count)
    /// }
    /// ```
    public func descendants(
        of folderId: String, depth: Int? = nil, context: OperationContext? = nil
    ) async throws -> [ContainerNode] {
        try await binding.descendants(
            repositoryId: repositoryId, folderId: folderId, depth: depth, foldersOnly: false,
            context: context ?? parameters.operationContext)
    }

    /// The folders below a folder, as a tree (documents left out).
    public func folderTree(
        of folderId: String, depth: Int? = nil, context: OperationContext? = nil
    ) async throws -> [ContainerNode] {
        try await binding.descendants(
            repositoryId: repositoryId, folderId: folderId, depth: depth, foldersOnly: true,
            context: context ?? parameters.operationContext)
    }

    /// The folders an object is filed in, each with the object's name there.
    public func parents(of objectId: String, context: OperationContext? = nil) async throws -> [ObjectParent] {
        try await binding.parents(
            repositoryId: repositoryId, objectId: objectId, context: context ?? parameters.operationContext)
    }

    /// A folder's parent folder.
    public func parent(ofFolder folderId: String, context: OperationContext? = nil) async throws -> CMISObject {
        try await binding.folderParent(
            repositoryId: repositoryId, folderId: folderId, context: context ?? parameters.operationContext)
    }

    /// One page of the checked-out documents, in a folder or in the whole repository.
    public func checkedOutDocuments(
        in folderId: String? = nil, context: OperationContext? = nil, maxItems: Int? = nil, skipCount: Int = 0
    ) async throws -> ObjectList {
        let context = context ?? parameters.operationContext
        return try await binding.checkedOutDocuments(
            repositoryId: repositoryId, folderId: folderId, context: context,
            maxItems: maxItems ?? pageSize(context), skipCount: skipCount)
    }

    /// One page of an object's relationships.
    public func relationships(
        of objectId: String, direction: RelationshipDirection = .either, typeId: String? = nil,
        includeSubRelationshipTypes: Bool = true, context: OperationContext? = nil, maxItems: Int? = nil,
        skipCount: Int = 0
    ) async throws -> ObjectList {
        let context = context ?? parameters.operationContext
        return try await binding.relationships(
            repositoryId: repositoryId, objectId: objectId, direction: direction, typeId: typeId,
            includeSubRelationshipTypes: includeSubRelationshipTypes, context: context,
            maxItems: maxItems ?? pageSize(context), skipCount: skipCount)
    }

    /// One page of the change log, after `token` (from the oldest kept event when nil). Pass the returned
    /// `changeLogToken` to read on.
    public func contentChanges(
        since token: String? = nil, includeProperties: Bool = false, maxItems: Int = 100
    ) async throws -> ContentChanges {
        try await binding.contentChanges(
            repositoryId: repositoryId, changeLogToken: token, includeProperties: includeProperties,
            maxItems: maxItems)
    }
}
