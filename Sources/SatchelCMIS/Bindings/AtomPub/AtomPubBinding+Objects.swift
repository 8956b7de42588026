import Foundation
public import SatchelCMISCore
import SatchelHTTP
import Synchronization

extension AtomPubBinding {
    /// The `typebyid` URI template; cached per repository, so asking twice costs one request.
    public func typeDefinition(repositoryId: String, typeId: String) async throws -> TypeDefinition {
        try await types.definition(repositoryId: repositoryId, typeId: typeId) {
            let url = try await expand(repositoryId, "typebyid", ["id": typeId])
            let body = try await send(HTTPClient.Request(.get, url: url, operation: "get CMIS type \(typeId)")).body
            return try AtomPubParser.typeDefinition(body)
        }
    }

    /// POST of a type entry to the repository's `types` collection.
    public func createType(repositoryId: String, type: TypeDefinition) async throws -> TypeDefinition {
        let workspace = try await workspace(repositoryId)
        guard let collection = workspace.collection("types") else {
            throw CMISError(.notSupported, "repository \(repositoryId) has no types collection")
        }
        return try await sendType(
            .post, url: try resolve(collection.href), repositoryId: repositoryId, type: type,
            operation: "create CMIS type \(type.id)")
    }

    /// PUT of a type entry to the type's URL (the `typebyid` template).
    public func updateType(repositoryId: String, type: TypeDefinition) async throws -> TypeDefinition {
        let url = try await expand(repositoryId, "typebyid", ["id": type.id])
        return try await sendType(
            .put, url: url, repositoryId: repositoryId, type: type, operation: "update CMIS type \(type.id)")
    }

    /// DELETE of the type's URL (the `typebyid` template).
    public func deleteType(repositoryId: String, typeId: String) async throws {
        let url = try await expand(repositoryId, "typebyid", ["id": typeId])
        _ = try await send(
            changeRequest(
                .delete, url: url, repositoryId: repositoryId, body: nil, operation: "delete CMIS type \(typeId)"))
        types.forget(repositoryId, typeId)
    }

    func sendType(
        _ method: HTTPClient.Method, url: URL, repositoryId: String, type: TypeDefinition, operation: String
    ) async throws -> TypeDefinition {
        let request = changeRequest(
            method, url: url, repositoryId: repositoryId,
            body: .data(AtomPubWriter.typeEntry(type), contentType: Self.entryMediaType), operation: operation)
        let defined = try AtomPubParser.typeDefinition(try await send(request).body)
        types.forget(repositoryId, defined.id)
        return defined
    }

    /// Every cached type definition and folder link is dropped.
    public func clearTypeCache() {
        types.clear()
        state.withLock { $0.childrenLinks.removeAll() }
    }

    /// The `objectbyid` URI template. A folder's children link is remembered for `children`.
    public func object(repositoryId: String, id: String, context: OperationContext) async throws -> CMISObject {
        var values = Self.templateValues(context)
        values["id"] = id
        let url = try await expand(repositoryId, "objectbyid", values)
        return try await entry(repositoryId: repositoryId, url: url, operation: "get CMIS object \(id)").object
    }

    /// The `objectbypath` URI template.
    public func object(repositoryId: String, path: String, context: OperationContext) async throws -> CMISObject {
        var values = Self.templateValues(context)
        values["path"] = path
        let url = try await expand(repositoryId, "objectbypath", values)
        return try await entry(repositoryId: repositoryId, url: url, operation: "get CMIS object at \(path)").object
    }

    /// GET on the folder's children feed: the `root` collection for the root folder, else the folder's `down`
    /// link (read once, then remembered).
    public func children(
        repositoryId: String, folderId: String, context: OperationContext, maxItems: Int, skipCount: Int
    ) async throws -> ObjectInFolderList {
        let base = try await childrenURL(repositoryId: repositoryId, folderId: folderId)
        let query = Self.contextQuery(context) + [("maxItems", String(maxItems)), ("skipCount", String(skipCount))]
        let request = HTTPClient.Request(
            .get, url: Self.url(base, query: query), operation: "get CMIS children of \(folderId)")
        let body = try await send(request).body
        return try await parseTyped(repositoryId: repositoryId) { try AtomPubParser.children(body, typeDefinition: $0) }
    }

    /// POSTs a `cmis:query` document to the repository's `query` collection; throws `.notSupported` when it has
    /// none.
    public func query(
        repositoryId: String, statement: String, searchAllVersions: Bool, includeAllowableActions: Bool,
        includeRelationships: OperationContext.IncludeRelationships, renditionFilter: String?, maxItems: Int,
        skipCount: Int
    ) async throws -> ObjectList {
        let workspace = try await workspace(repositoryId)
        guard let collection = workspace.collection("query") else {
            throw CMISError(.notSupported, "repository \(repositoryId) has no query collection")
        }
        let body = AtomPubWriter.query(
            statement: statement, searchAllVersions: searchAllVersions, maxItems: maxItems, skipCount: skipCount,
            includeAllowableActions: includeAllowableActions, includeRelationships: includeRelationships,
            renditionFilter: renditionFilter)
        let request = HTTPClient.Request(
            .post, url: try resolve(collection.href), body: .data(body, contentType: "application/cmisquery+xml"),
            operation: "run CMIS query")
        let response = try await send(request).body
        return try await parseTyped(repositoryId: repositoryId) {
            try AtomPubParser.queryResults(response, typeDefinition: $0)
        }
    }

    /// GETs an entry and remembers a folder's children link.
    func entry(repositoryId: String, url: URL, operation: String) async throws -> AtomPubEntry {
        let body = try await send(HTTPClient.Request(.get, url: url, operation: operation)).body
        let entry = try await parseTyped(repositoryId: repositoryId) {
            try AtomPubParser.entry(body, typeDefinition: $0)
        }
        remember(entry, repositoryId: repositoryId)
        return entry
    }

    func remember(_ entry: AtomPubEntry, repositoryId: String) {
        guard let id = entry.object.id,
            let href = entry.links.down.first(where: { $0.type?.contains("type=feed") ?? false })?.href
                ?? entry.links.down.first(where: { $0.type == nil })?.href,
            let url = try? resolve(href)
        else { return }
        state.withLock { $0.childrenLinks[Key(repositoryId: repositoryId, id: id)] = url }
    }

    /// A folder's children feed URL: the root collection for the root folder, otherwise the folder's `down` link.
    func childrenURL(repositoryId: String, folderId: String) async throws -> URL {
        if let url = state.withLock({ $0.childrenLinks[Key(repositoryId: repositoryId, id: folderId)] }) {
            return url
        }
        let workspace = try await workspace(repositoryId)
        if folderId == workspace.repositoryInfo.rootFolderId, let root = workspace.collection("root") {
            return try resolve(root.href)
        }
        var values = Self.templateValues(OperationContext(filter: ["cmis:objectId"]))
        values["id"] = folderId
        let url = try await expand(repositoryId, "objectbyid", values)
        _ = try await entry(repositoryId: repositoryId, url: url, operation: "get CMIS folder \(folderId)")
        guard let link = state.withLock({ $0.childrenLinks[Key(repositoryId: repositoryId, id: folderId)] }) else {
            throw CMISError(.invalidArgument, "object \(folderId) has no children (not a folder)")
        }
        return link
    }
}
