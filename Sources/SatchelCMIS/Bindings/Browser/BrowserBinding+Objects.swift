import Foundation
public import SatchelCMISCore
import SatchelHTTP

extension BrowserBinding {
    /// `cmisselector=object` with `objectId` on the root folder URL: succinct properties, typed through the
    /// cached type definitions.
    public func object(repositoryId: String, id: String, context: OperationContext) async throws -> CMISObject {
        let endpoints = try await self.endpoints(repositoryId)
        let query = [("objectId", id), ("cmisselector", "object")] + Self.objectParameters(context)
        let request = HTTPClient.Request(
            .get, url: Self.url(endpoints.rootFolder, query: query), operation: "get CMIS object \(id)")
        let body = try await send(request).body
        return try await parseTyped(repositoryId: repositoryId) { try BrowserParser.object(body, typeDefinition: $0) }
    }

    /// `cmisselector=object` on the root folder URL with the path's segments appended.
    public func object(repositoryId: String, path: String, context: OperationContext) async throws -> CMISObject {
        let endpoints = try await self.endpoints(repositoryId)
        var url = endpoints.rootFolder
        for segment in path.split(separator: "/") { url.appendPathComponent(String(segment)) }
        let query = [("cmisselector", "object")] + Self.objectParameters(context)
        let request = HTTPClient.Request(
            .get, url: Self.url(url, query: query), operation: "get CMIS object at \(path)")
        let body = try await send(request).body
        return try await parseTyped(repositoryId: repositoryId) { try BrowserParser.object(body, typeDefinition: $0) }
    }

    /// `cmisselector=children` on the folder, with `maxItems`, `skipCount` and the context's `orderBy`.
    public func children(
        repositoryId: String, folderId: String, context: OperationContext, maxItems: Int, skipCount: Int
    ) async throws -> ObjectInFolderList {
        let endpoints = try await self.endpoints(repositoryId)
        var query: [(String, String)] = [
            ("objectId", folderId), ("cmisselector", "children"), ("maxItems", String(maxItems)),
            ("skipCount", String(skipCount)), ("includePathSegment", String(context.includePathSegment)),
        ]
        if let orderBy = context.orderBy { query.append(("orderBy", orderBy)) }
        let request = HTTPClient.Request(
            .get, url: Self.url(endpoints.rootFolder, query: query + Self.objectParameters(context)),
            operation: "get CMIS children of \(folderId)")
        let body = try await send(request).body
        return try await parseTyped(repositoryId: repositoryId) { try BrowserParser.children(body, typeDefinition: $0) }
    }

    /// `cmisselector=query` on the repository URL, in the full form: succinct results are keyed by query name
    /// alone, so a column's property id and type would be lost behind an alias (`cmis:objectId AS oid`).
    public func query(
        repositoryId: String, statement: String, searchAllVersions: Bool, includeAllowableActions: Bool,
        includeRelationships: OperationContext.IncludeRelationships, renditionFilter: String?, maxItems: Int,
        skipCount: Int
    ) async throws -> ObjectList {
        let endpoints = try await self.endpoints(repositoryId)
        var query: [(String, String)] = [
            ("cmisselector", "query"), ("q", statement), ("searchAllVersions", String(searchAllVersions)),
            ("maxItems", String(maxItems)), ("skipCount", String(skipCount)),
        ]
        if includeAllowableActions { query.append(("includeAllowableActions", "true")) }
        if includeRelationships != .none { query.append(("includeRelationships", includeRelationships.rawValue)) }
        if let renditionFilter { query.append(("renditionFilter", renditionFilter)) }
        let request = HTTPClient.Request(
            .get, url: Self.url(endpoints.repository, query: query), operation: "run CMIS query")
        let body = try await send(request).body
        return try await parseTyped(repositoryId: repositoryId) {
            try BrowserParser.queryResults(body, typeDefinition: $0)
        }
    }
}
