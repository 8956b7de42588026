import Foundation
public import SatchelCMISCore
import SatchelHTTP

extension BrowserBinding {
    /// `GET` on the root folder URL with `objectId` and a selector, typed through the cached type definitions.
    func getObjectSelector(
        repositoryId: String, objectId: String, selector: String, parameters: [(String, String)], operation: String
    ) async throws -> Data {
        let endpoints = try await self.endpoints(repositoryId)
        let query = [("objectId", objectId), ("cmisselector", selector)] + parameters
        let request = HTTPClient.Request(.get, url: Self.url(endpoints.rootFolder, query: query), operation: operation)
        return try await send(request).body
    }

    /// `GET` on the repository URL with a selector.
    func getRepositorySelector(
        repositoryId: String, selector: String, parameters: [(String, String)], operation: String
    ) async throws -> Data {
        let endpoints = try await self.endpoints(repositoryId)
        let query = [("cmisselector", selector)] + parameters
        let request = HTTPClient.Request(.get, url: Self.url(endpoints.repository, query: query), operation: operation)
        return try await send(request).body
    }

    /// `cmisselector=typeChildren` on the repository URL.
    public func typeChildren(
        repositoryId: String, typeId: String?, includePropertyDefinitions: Bool, maxItems: Int, skipCount: Int
    ) async throws -> TypeDefinitionList {
        var parameters: [(String, String)] = [
            ("includePropertyDefinitions", String(includePropertyDefinitions)), ("maxItems", String(maxItems)),
            ("skipCount", String(skipCount)),
        ]
        if let typeId { parameters.append(("typeId", typeId)) }
        let body = try await getRepositorySelector(
            repositoryId: repositoryId, selector: "typeChildren", parameters: parameters,
            operation: "get CMIS type children of \(typeId ?? "the base types")")
        return try BrowserParser.typeDefinitionList(body)
    }

    /// `cmisselector=typeDescendants` on the repository URL.
    public func typeDescendants(
        repositoryId: String, typeId: String?, depth: Int?, includePropertyDefinitions: Bool
    ) async throws -> [TypeDefinitionContainer] {
        var parameters: [(String, String)] = [("includePropertyDefinitions", String(includePropertyDefinitions))]
        if let typeId { parameters.append(("typeId", typeId)) }
        if let depth { parameters.append(("depth", String(depth))) }
        let body = try await getRepositorySelector(
            repositoryId: repositoryId, selector: "typeDescendants", parameters: parameters,
            operation: "get CMIS type descendants of \(typeId ?? "the base types")")
        return try BrowserParser.typeDescendants(body)
    }

    /// `cmisselector=descendants` on the folder, or `folderTree` when `foldersOnly`.
    public func descendants(
        repositoryId: String, folderId: String, depth: Int?, foldersOnly: Bool, context: OperationContext
    ) async throws -> [ContainerNode] {
        var parameters = Self.objectParameters(context)
        parameters.append(("includePathSegment", String(context.includePathSegment)))
        if let depth { parameters.append(("depth", String(depth))) }
        let body = try await getObjectSelector(
            repositoryId: repositoryId, objectId: folderId, selector: foldersOnly ? "folderTree" : "descendants",
            parameters: parameters, operation: "get CMIS \(foldersOnly ? "folder tree" : "descendants") of \(folderId)")
        return try await parseTyped(repositoryId: repositoryId) {
            try BrowserParser.descendants(body, typeDefinition: $0)
        }
    }

    /// `cmisselector=parents`, with relative path segments when the context's `includePathSegment` asks for them.
    public func parents(
        repositoryId: String, objectId: String, context: OperationContext
    ) async throws -> [ObjectParent] {
        let parameters =
            Self.objectParameters(context) + [("includeRelativePathSegment", String(context.includePathSegment))]
        let body = try await getObjectSelector(
            repositoryId: repositoryId, objectId: objectId, selector: "parents", parameters: parameters,
            operation: "get CMIS parents of \(objectId)")
        return try await parseTyped(repositoryId: repositoryId) { try BrowserParser.parents(body, typeDefinition: $0) }
    }

    /// `cmisselector=parent` on the folder.
    public func folderParent(
        repositoryId: String, folderId: String, context: OperationContext
    ) async throws -> CMISObject {
        let body = try await getObjectSelector(
            repositoryId: repositoryId, objectId: folderId, selector: "parent",
            parameters: Self.objectParameters(context), operation: "get CMIS parent of folder \(folderId)")
        return try await parseTyped(repositoryId: repositoryId) { try BrowserParser.object(body, typeDefinition: $0) }
    }

    /// `cmisselector=checkedout` on the folder, or on the repository URL when `folderId` is nil.
    public func checkedOutDocuments(
        repositoryId: String, folderId: String?, context: OperationContext, maxItems: Int, skipCount: Int
    ) async throws -> ObjectList {
        var parameters = Self.objectParameters(context)
        parameters += [("maxItems", String(maxItems)), ("skipCount", String(skipCount))]
        if let orderBy = context.orderBy { parameters.append(("orderBy", orderBy)) }
        let body: Data
        if let folderId {
            body = try await getObjectSelector(
                repositoryId: repositoryId, objectId: folderId, selector: "checkedout", parameters: parameters,
                operation: "get CMIS checked-out documents in \(folderId)")
        } else {
            body = try await getRepositorySelector(
                repositoryId: repositoryId, selector: "checkedout", parameters: parameters,
                operation: "get CMIS checked-out documents")
        }
        return try await parseTyped(repositoryId: repositoryId) {
            try BrowserParser.objectList(body, typeDefinition: $0)
        }
    }

    /// `cmisselector=relationships` on the object.
    public func relationships(
        repositoryId: String, objectId: String, direction: RelationshipDirection, typeId: String?,
        includeSubRelationshipTypes: Bool, context: OperationContext, maxItems: Int, skipCount: Int
    ) async throws -> ObjectList {
        var parameters = Self.objectParameters(context)
        parameters += [
            ("relationshipDirection", direction.rawValue),
            ("includeSubRelationshipTypes", String(includeSubRelationshipTypes)), ("maxItems", String(maxItems)),
            ("skipCount", String(skipCount)),
        ]
        if let typeId { parameters.append(("typeId", typeId)) }
        let body = try await getObjectSelector(
            repositoryId: repositoryId, objectId: objectId, selector: "relationships", parameters: parameters,
            operation: "get CMIS relationships of \(objectId)")
        return try await parseTyped(repositoryId: repositoryId) {
            try BrowserParser.objectList(body, typeDefinition: $0)
        }
    }

    /// `cmisselector=contentChanges` on the repository URL.
    public func contentChanges(
        repositoryId: String, changeLogToken: String?, includeProperties: Bool, includePolicyIds: Bool,
        includeACL: Bool, maxItems: Int
    ) async throws -> ContentChanges {
        var parameters: [(String, String)] = [
            ("includeProperties", String(includeProperties)), ("includePolicyIds", String(includePolicyIds)),
            ("includeACL", String(includeACL)), ("maxItems", String(maxItems)), ("succinct", "true"),
        ]
        if let changeLogToken { parameters.append(("changeLogToken", changeLogToken)) }
        let body = try await getRepositorySelector(
            repositoryId: repositoryId, selector: "contentChanges", parameters: parameters,
            operation: "get CMIS content changes")
        return try await parseTyped(repositoryId: repositoryId) {
            try BrowserParser.contentChanges(body, typeDefinition: $0)
        }
    }
}
