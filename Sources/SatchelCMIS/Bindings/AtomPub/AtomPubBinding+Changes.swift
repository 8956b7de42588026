import Foundation
public import SatchelCMISCore
public import SatchelHTTP
import Synchronization

extension AtomPubBinding {
    /// Relationships are posted to the source object's relationships collection, unfiled objects to the unfiled
    /// collection, everything else to the parent folder's children.
    public func createObject(
        repositoryId: String, parentId: String?, baseType: BaseTypeId, properties: Properties
    ) async throws -> CMISObject {
        let body = AtomPubWriter.entry(properties: properties)
        let url: URL
        switch baseType {
        case .secondary:
            throw CMISError(.invalidArgument, "secondary types cannot be instantiated; add them to an object")
        case .relationship:
            guard let sourceId = properties["cmis:sourceId"]?.stringValue else {
                throw CMISError(.invalidArgument, "a relationship needs cmis:sourceId")
            }
            let source = try await objectEntry(repositoryId: repositoryId, objectId: sourceId)
            guard let link = source.links.cmis("relationships") else {
                throw CMISError(.notSupported, "object \(sourceId) has no relationships link")
            }
            url = try resolve(link.href)
        default:
            if let parentId {
                url = try await childrenURL(repositoryId: repositoryId, folderId: parentId)
            } else {
                guard let collection = try await workspace(repositoryId).collection("unfiled") else {
                    throw CMISError(.notSupported, "repository \(repositoryId) has no unfiled collection")
                }
                url = try resolve(collection.href)
            }
        }
        let request = changeRequest(
            .post, url: url, repositoryId: repositoryId, body: .data(body, contentType: Self.entryMediaType),
            operation: "create CMIS \(baseType.rawValue)")
        return try await sendForEntry(request, repositoryId: repositoryId).object
    }

    /// POSTs the object's entry to the target folder's children with `sourceFolderId` (the object's first parent
    /// when not given).
    public func moveObject(
        repositoryId: String, objectId: String, targetFolderId: String, sourceFolderId: String?
    ) async throws -> CMISObject {
        var source = sourceFolderId
        if source == nil {
            let parents = try await parents(
                repositoryId: repositoryId, objectId: objectId, context: OperationContext(filter: ["cmis:objectId"]))
            source = parents.first?.object.id
        }
        guard let source else { throw CMISError(.invalidArgument, "object \(objectId) is not filed in a folder") }
        let children = try await childrenURL(repositoryId: repositoryId, folderId: targetFolderId)
        let request = changeRequest(
            .post, url: Self.url(children, query: [("sourceFolderId", source)]), repositoryId: repositoryId,
            body: .data(Self.referenceEntry(objectId), contentType: Self.entryMediaType),
            operation: "move CMIS object \(objectId) to \(targetFolderId)")
        return try await sendForEntry(request, repositoryId: repositoryId).object
    }

    /// DELETE on the folder's descendants (else folder tree) link; a feed in the answer lists what failed.
    public func deleteTree(
        repositoryId: String, folderId: String, allVersions: Bool, unfileObjects: UnfileObjects,
        continueOnFailure: Bool
    ) async throws -> [String] {
        let entry = try await objectEntry(repositoryId: repositoryId, objectId: folderId)
        let link =
            entry.links.down.first { $0.type?.hasPrefix(Self.treeMediaType) ?? false }
            ?? entry.links.cmis("foldertree")
        guard let link else {
            throw CMISError(.invalidArgument, "object \(folderId) has no descendants (not a folder)")
        }
        let query = [
            ("allVersions", String(allVersions)), ("unfileObjects", unfileObjects.rawValue),
            ("continueOnFailure", String(continueOnFailure)),
        ]
        let request = changeRequest(
            .delete, url: Self.url(try resolve(link.href), query: query), repositoryId: repositoryId, body: nil,
            operation: "delete CMIS folder tree \(folderId)")
        let body = try await send(request).body
        state.withLock { _ = $0.childrenLinks.removeValue(forKey: Key(repositoryId: repositoryId, id: folderId)) }
        guard body.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else { return [] }
        let feed = try AtomPubParser.feed(body, types: { _ in nil }, requireId: false)
        return feed.entries.compactMap(\.object.id)
    }

    /// The AtomPub binding has no bulk update: one property update per object (secondary types through
    /// `cmis:secondaryObjectTypeIds`); objects that could not be updated are left out of the result.
    public func bulkUpdate(
        repositoryId: String, objects: [(id: String, changeToken: String?)], properties: Properties,
        addSecondaryTypeIds: [String], removeSecondaryTypeIds: [String]
    ) async throws -> [BulkUpdateResult] {
        var results: [BulkUpdateResult] = []
        for (id, changeToken) in objects {
            var update = properties
            do {
                if !addSecondaryTypeIds.isEmpty || !removeSecondaryTypeIds.isEmpty {
                    let current = try await object(
                        repositoryId: repositoryId, id: id,
                        context: OperationContext(filter: ["cmis:objectId", "cmis:secondaryObjectTypeIds"]))
                    var secondary =
                        current.properties["cmis:secondaryObjectTypeIds"]?.values.compactMap(\.stringValue)
                        ?? []
                    secondary.removeAll { removeSecondaryTypeIds.contains($0) }
                    for typeId in addSecondaryTypeIds where !secondary.contains(typeId) { secondary.append(typeId) }
                    update["cmis:secondaryObjectTypeIds"] = CMISProperty(
                        id: "cmis:secondaryObjectTypeIds", type: .id, cardinality: .multi,
                        values: secondary.map { .id($0) })
                }
                let updated = try await updateProperties(
                    repositoryId: repositoryId, objectId: id, properties: update, changeToken: changeToken)
                let newId = updated.id.flatMap { $0 == id ? nil : $0 }
                results.append(
                    BulkUpdateResult(
                        id: id, newId: newId, changeToken: updated.properties["cmis:changeToken"]?.stringValue))
            } catch let error as CMISError where error.code != .unauthorized && error.code != .connection {
                continue
            }
        }
        return results
    }

    /// PUTs the content to the document's `edit-media` link (with `overwriteFlag` and the change token), then reads
    /// the document again: the new version when the repository made one.
    public func setContentStream(
        repositoryId: String, objectId: String, content: ContentSource, overwrite: Bool, changeToken: String?,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws -> CMISObject {
        var query = [("overwriteFlag", String(overwrite))]
        if let changeToken { query.append(("changeToken", changeToken)) }
        return try await putContent(
            repositoryId: repositoryId, objectId: objectId, content: content, query: query, progress: progress,
            operation: "set the content of CMIS document \(objectId)")
    }

    /// PUTs the content to the document's `edit-media` link with `append=true` and `isLastChunk`, then reads the
    /// document again.
    public func appendContentStream(
        repositoryId: String, objectId: String, content: ContentSource, isLastChunk: Bool, changeToken: String?,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws -> CMISObject {
        var query = [("append", "true"), ("isLastChunk", String(isLastChunk))]
        if let changeToken { query.append(("changeToken", changeToken)) }
        return try await putContent(
            repositoryId: repositoryId, objectId: objectId, content: content, query: query, progress: progress,
            operation: "append to the content of CMIS document \(objectId)")
    }

    /// DELETE on the document's `edit-media` link, then reads the document again.
    public func deleteContentStream(
        repositoryId: String, objectId: String, changeToken: String?
    ) async throws -> CMISObject {
        let entry = try await objectEntry(repositoryId: repositoryId, objectId: objectId)
        let url = try contentURL(entry)
        let request = changeRequest(
            .delete, url: Self.url(url, query: changeToken.map { [("changeToken", $0)] } ?? []),
            repositoryId: repositoryId, body: nil, operation: "delete the content of CMIS document \(objectId)")
        let response = try await send(request)
        return try await object(
            repositoryId: repositoryId, id: Self.locatedId(response) ?? objectId, context: OperationContext())
    }

    /// POSTs the object's entry to the folder's children: the repository files it there too.
    public func addObjectToFolder(
        repositoryId: String, objectId: String, folderId: String, allVersions: Bool
    ) async throws -> CMISObject {
        let children = try await childrenURL(repositoryId: repositoryId, folderId: folderId)
        let request = changeRequest(
            .post, url: Self.url(children, query: [("allVersions", String(allVersions))]),
            repositoryId: repositoryId,
            body: .data(Self.referenceEntry(objectId), contentType: Self.entryMediaType),
            operation: "file CMIS object \(objectId) in \(folderId)")
        return try await sendForEntry(request, repositoryId: repositoryId).object
    }

    /// POSTs the object's entry to the unfiled collection with `removeFrom`.
    public func removeObjectFromFolder(
        repositoryId: String, objectId: String, folderId: String?
    ) async throws -> CMISObject {
        guard let collection = try await workspace(repositoryId).collection("unfiled") else {
            throw CMISError(.notSupported, "repository \(repositoryId) has no unfiled collection")
        }
        let request = changeRequest(
            .post, url: Self.url(try resolve(collection.href), query: folderId.map { [("removeFrom", $0)] } ?? []),
            repositoryId: repositoryId,
            body: .data(Self.referenceEntry(objectId), contentType: Self.entryMediaType),
            operation: "unfile CMIS object \(objectId)\(folderId.map { " from \($0)" } ?? "")")
        return try await sendForEntry(request, repositoryId: repositoryId).object
    }

    // MARK: Helpers

    /// PUTs content to the document's `edit-media` link and reads the document again (its id from `Location`
    /// when the repository made a new version).
    func putContent(
        repositoryId: String, objectId: String, content: ContentSource, query: [(String, String)],
        progress: (@Sendable (TransferProgress) -> Void)?, operation: String
    ) async throws -> CMISObject {
        let entry = try await objectEntry(repositoryId: repositoryId, objectId: objectId)
        let url = try contentURL(entry)
        var request = changeRequest(
            .put, url: Self.url(url, query: query), repositoryId: repositoryId, body: nil, operation: operation)
        switch content.storage {
        case .data(let data): request.body = .data(data, contentType: content.mimeType)
        case .file(let file):
            do {
                request.body = try HTTPClient.Body.file(file, contentType: content.mimeType)
            } catch let error as HTTPTransferError {
                throw CMISError(.invalidArgument, error.message, httpError: error)
            }
        }
        request.headers["Content-Disposition"] =
            "attachment; filename*=UTF-8''" + AtomPubURITemplate.encode(content.filename)
        let response = try await send(request, progress: progress)
        return try await object(
            repositoryId: repositoryId, id: Self.locatedId(response) ?? objectId, context: OperationContext())
    }

    /// The `id` query parameter of a response's `Location` (the content or entry it created).
    static func locatedId(_ response: HTTPClient.Response) -> String? {
        guard let location = response.headers["Location"] ?? response.headers["Content-Location"] else { return nil }
        return URLComponents(string: location)?.queryItems?.first { $0.name == "id" }?.value
    }
}
