import Foundation
public import SatchelCMISCore
import SatchelHTTP
import SatchelXML

extension AtomPubBinding {
    static let treeMediaType = "application/cmistree+xml"

    /// GET on the repository's `types` collection; throws `.notSupported` when it has none.
    public func typeChildren(
        repositoryId: String, typeId: String?, includePropertyDefinitions: Bool, maxItems: Int, skipCount: Int
    ) async throws -> TypeDefinitionList {
        let workspace = try await workspace(repositoryId)
        guard let collection = workspace.collection("types") else {
            throw CMISError(.notSupported, "repository \(repositoryId) has no types collection")
        }
        var query = [
            ("includePropertyDefinitions", String(includePropertyDefinitions)), ("maxItems", String(maxItems)),
            ("skipCount", String(skipCount)),
        ]
        if let typeId { query.insert(("typeId", typeId), at: 0) }
        let url = Self.url(try resolve(collection.href), query: query)
        let body = try await send(HTTPClient.Request(.get, url: url, operation: "get CMIS type children")).body
        return try AtomPubParser.typeDefinitionList(body)
    }

    /// GET on the repository's `typedescendants` link, with the nested `cmisra:children` feeds (at most 64 levels).
    public func typeDescendants(
        repositoryId: String, typeId: String?, depth: Int?, includePropertyDefinitions: Bool
    ) async throws -> [TypeDefinitionContainer] {
        let workspace = try await workspace(repositoryId)
        guard let link = workspace.links.cmis("typedescendants") else {
            throw CMISError(.notSupported, "repository \(repositoryId) has no typedescendants link")
        }
        var query = [("includePropertyDefinitions", String(includePropertyDefinitions))]
        if let typeId { query.insert(("typeId", typeId), at: 0) }
        if let depth { query.append(("depth", String(depth))) }
        let url = Self.url(try resolve(link.href), query: query)
        let body = try await send(HTTPClient.Request(.get, url: url, operation: "get CMIS type descendants")).body
        let feed = try AtomPubParser.root(body, expecting: [("feed", AtomPubParser.atom)])
        return try Self.typeContainers(feed, path: "/atom:feed", depth: 0)
    }

    /// The type entries of a feed, each with its `cmisra:children` feed nested.
    static func typeContainers(_ feed: XElement, path: String, depth: Int) throws -> [TypeDefinitionContainer] {
        guard depth < 64 else { throw CMISError(.invalidResponse, "type descendants nest too deeply", path: path) }
        return try feed.children("entry", namespace: AtomPubParser.atom).enumerated().map { index, entry in
            let entryPath = path + "/atom:entry[\(index + 1)]"
            let type = try AtomPubParser.typeDefinition(fromEntry: entry, path: entryPath)
            let nested = entry.child("children", namespace: AtomPubParser.cmisra)?
                .child("feed", namespace: AtomPubParser.atom)
            let children = try nested.map {
                try typeContainers($0, path: entryPath + "/cmisra:children/atom:feed", depth: depth + 1)
            }
            return TypeDefinitionContainer(type: type, children: children ?? [])
        }
    }

    /// GET on the folder's descendants link (its `down` link of the tree type), or its `foldertree` link when
    /// `foldersOnly`; throws `.invalidArgument` when the object has no such link.
    public func descendants(
        repositoryId: String, folderId: String, depth: Int?, foldersOnly: Bool, context: OperationContext
    ) async throws -> [ContainerNode] {
        let entry = try await objectEntry(repositoryId: repositoryId, objectId: folderId)
        let link =
            foldersOnly
            ? entry.links.cmis("foldertree")
            : entry.links.down.first { $0.type?.hasPrefix(Self.treeMediaType) ?? false }
        guard let link else {
            throw CMISError(
                .invalidArgument, "object \(folderId) has no \(foldersOnly ? "folder tree" : "descendants") link")
        }
        var query = Self.contextQuery(context)
        if let depth { query.append(("depth", String(depth))) }
        let request = HTTPClient.Request(
            .get, url: Self.url(try resolve(link.href), query: query),
            operation: "get CMIS \(foldersOnly ? "folder tree" : "descendants") of \(folderId)")
        let body = try await send(request).body
        return try await parseTyped(repositoryId: repositoryId) {
            try AtomPubParser.descendants(body, typeDefinition: $0)
        }
    }

    /// Follows the object's `up` link: a folder's is its parent's entry, another object's a feed of its parents
    /// with relative path segments. An object without one (the root folder) has no parents.
    public func parents(
        repositoryId: String, objectId: String, context: OperationContext
    ) async throws -> [ObjectParent] {
        let entry = try await objectEntry(repositoryId: repositoryId, objectId: objectId)
        guard let up = entry.links.up else { return [] }
        if up.type?.contains("type=entry") ?? false {
            // A folder's `up` is its parent's entry.
            let url = Self.url(try resolve(up.href), query: Self.contextQuery(context))
            let parent = try await self.entry(
                repositoryId: repositoryId, url: url, operation: "get the parent of CMIS object \(objectId)")
            return [ObjectParent(object: parent.object)]
        }
        var query = Self.contextQuery(context)
        query.append(("includeRelativePathSegment", String(context.includePathSegment)))
        let request = HTTPClient.Request(
            .get, url: Self.url(try resolve(up.href), query: query),
            operation: "get the parents of CMIS object \(objectId)")
        let body = try await send(request).body
        return try await parseTyped(repositoryId: repositoryId) { types in
            let feed = try AtomPubParser.root(body, expecting: [("feed", AtomPubParser.atom)])
            return try feed.children("entry", namespace: AtomPubParser.atom).enumerated().map { index, element in
                let parsed = try AtomPubParser.entry(
                    from: element, path: "/atom:feed/atom:entry[\(index + 1)]", types: types, requireId: true,
                    depth: 0)
                return ObjectParent(
                    object: parsed.object,
                    relativePathSegment: AtomPubParser.text(element, "relativePathSegment", AtomPubParser.cmisra))
            }
        }
    }

    /// Follows the folder's `up` link; throws `.invalidArgument` for the root folder or an object that is not a
    /// folder.
    public func folderParent(
        repositoryId: String, folderId: String, context: OperationContext
    ) async throws -> CMISObject {
        let entry = try await objectEntry(repositoryId: repositoryId, objectId: folderId)
        guard let up = entry.links.up, up.type?.contains("type=entry") ?? true else {
            throw CMISError(.invalidArgument, "object \(folderId) has no parent folder (the root, or not a folder)")
        }
        let url = Self.url(try resolve(up.href), query: Self.contextQuery(context))
        return try await self.entry(
            repositoryId: repositoryId, url: url, operation: "get the parent of CMIS folder \(folderId)"
        ).object
    }

    /// GET on the repository's `checkedout` collection (with `folderId` when given); throws `.notSupported` when
    /// it has none.
    public func checkedOutDocuments(
        repositoryId: String, folderId: String?, context: OperationContext, maxItems: Int, skipCount: Int
    ) async throws -> ObjectList {
        let workspace = try await workspace(repositoryId)
        guard let collection = workspace.collection("checkedout") else {
            throw CMISError(.notSupported, "repository \(repositoryId) has no checkedout collection")
        }
        var query = Self.contextQuery(context) + [("maxItems", String(maxItems)), ("skipCount", String(skipCount))]
        if let folderId { query.append(("folderId", folderId)) }
        return try await objectList(
            repositoryId: repositoryId, url: Self.url(try resolve(collection.href), query: query),
            operation: "get CMIS checked out documents")
    }

    /// GET on the object's `relationships` link; throws `.notSupported` when it has none.
    public func relationships(
        repositoryId: String, objectId: String, direction: RelationshipDirection, typeId: String?,
        includeSubRelationshipTypes: Bool, context: OperationContext, maxItems: Int, skipCount: Int
    ) async throws -> ObjectList {
        let entry = try await objectEntry(repositoryId: repositoryId, objectId: objectId)
        guard let link = entry.links.cmis("relationships") else {
            throw CMISError(.notSupported, "object \(objectId) has no relationships link")
        }
        var query =
            Self.contextQuery(context) + [
                ("relationshipDirection", direction.rawValue),
                ("includeSubRelationshipTypes", String(includeSubRelationshipTypes)),
                ("maxItems", String(maxItems)), ("skipCount", String(skipCount)),
            ]
        if let typeId { query.append(("typeId", typeId)) }
        return try await objectList(
            repositoryId: repositoryId, url: Self.url(try resolve(link.href), query: query),
            operation: "get the relationships of CMIS object \(objectId)")
    }

    /// GET on the repository's `changes` link. The token to read on from is taken from the feed's `next` link, else
    /// from a `changeLogToken` element of the feed (any namespace), else from its `first` link.
    public func contentChanges(
        repositoryId: String, changeLogToken: String?, includeProperties: Bool, includePolicyIds: Bool,
        includeACL: Bool, maxItems: Int
    ) async throws -> ContentChanges {
        let workspace = try await workspace(repositoryId)
        guard let link = workspace.links.cmis("changes") else {
            throw CMISError(.notSupported, "repository \(repositoryId) has no changes link")
        }
        var query = [
            ("includeProperties", String(includeProperties)), ("includePolicyIds", String(includePolicyIds)),
            ("includeACL", String(includeACL)), ("maxItems", String(maxItems)),
        ]
        if let changeLogToken { query.insert(("changeLogToken", changeLogToken), at: 0) }
        let request = HTTPClient.Request(
            .get, url: Self.url(try resolve(link.href), query: query), operation: "get CMIS content changes")
        let body = try await send(request).body
        let feed = try await parseTyped(repositoryId: repositoryId) { try AtomPubParser.feed(body, typeDefinition: $0) }
        // The token to continue from: the `next` link's, else the feed's own element (`chemistry:changeLogToken`,
        // the only place the reference server writes it), else the `first` link's.
        func linkToken(_ link: AtomPubLink?) -> String? {
            link.flatMap { URLComponents(string: $0.href)?.queryItems?.first { $0.name == "changeLogToken" }?.value }
        }
        let token = linkToken(feed.links.next) ?? feed.changeLogToken ?? linkToken(feed.links.link("first"))
        return ContentChanges(
            objects: feed.entries.map(\.object), hasMoreItems: feed.hasMoreItems, numItems: feed.numItems,
            changeLogToken: token)
    }

    // MARK: Helpers

    /// The properties a server needs to give an entry its links (`up` needs the parent, `via` the series).
    static let linkProperties = [
        "cmis:objectId", "cmis:baseTypeId", "cmis:objectTypeId", "cmis:parentId", "cmis:versionSeriesId",
        "cmis:isPrivateWorkingCopy", "cmis:contentStreamMimeType",
    ]

    /// An object's entry (its links), read with the few properties its links depend on.
    func objectEntry(repositoryId: String, objectId: String) async throws -> AtomPubEntry {
        var values = Self.templateValues(OperationContext(filter: Self.linkProperties))
        values["id"] = objectId
        let url = try await expand(repositoryId, "objectbyid", values)
        return try await entry(repositoryId: repositoryId, url: url, operation: "get CMIS object \(objectId)")
    }

    /// GETs an object feed.
    func objectList(repositoryId: String, url: URL, operation: String) async throws -> ObjectList {
        let body = try await send(HTTPClient.Request(.get, url: url, operation: operation)).body
        return try await parseTyped(repositoryId: repositoryId) {
            try AtomPubParser.objectList(body, typeDefinition: $0)
        }
    }

    /// Sends a change whose answer is an entry, and parses it.
    func sendForEntry(_ request: HTTPClient.Request, repositoryId: String) async throws -> AtomPubEntry {
        let body = try await send(request).body
        let entry = try await parseTyped(repositoryId: repositoryId) {
            try AtomPubParser.entry(body, typeDefinition: $0)
        }
        remember(entry, repositoryId: repositoryId)
        return entry
    }

    /// An entry that names an existing object (`cmis:objectId` only), to post to a collection.
    static func referenceEntry(_ objectId: String) -> Data {
        var properties = Properties()
        properties["cmis:objectId"] = CMISProperty(id: "cmis:objectId", type: .id, values: [.id(objectId)])
        return AtomPubWriter.entry(properties: properties)
    }
}
