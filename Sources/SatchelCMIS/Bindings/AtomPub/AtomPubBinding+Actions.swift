import Foundation
public import SatchelCMISCore
public import SatchelHTTP
import Synchronization

extension AtomPubBinding {
    static let entryMediaType = "application/atom+xml;type=entry"

    /// POSTs an Atom entry with the properties to the parent folder's children feed; the answer is the new
    /// folder's entry.
    public func createFolder(repositoryId: String, parentId: String, properties: Properties) async throws -> CMISObject
    {
        try await requireBaseType(.folder, of: properties, repositoryId: repositoryId, operation: "createFolder")
        return try await postEntry(
            repositoryId: repositoryId, parentId: parentId, body: AtomPubWriter.entry(properties: properties),
            progress: nil, operation: "create CMIS folder in \(parentId)"
        ).object
    }

    /// Content in memory goes inline in the posted entry (base64: one request); a file is streamed afterwards with a
    /// PUT to the new document's content link, and the document is then read again. `cmis:contentStreamFileName` is
    /// set from the content's file name when the properties do not set it.
    public func createDocument(
        repositoryId: String, parentId: String, properties: Properties, content: ContentSource?,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws -> CMISObject {
        try await requireBaseType(.document, of: properties, repositoryId: repositoryId, operation: "createDocument")
        var properties = properties
        if let content, properties["cmis:contentStreamFileName"] == nil {
            properties["cmis:contentStreamFileName"] = CMISProperty(
                id: "cmis:contentStreamFileName", type: .string, values: [.string(content.filename)])
        }
        switch content?.storage {
        case .data(let data)?:
            // In memory already: inline, one request, atomic.
            return try await postEntry(
                repositoryId: repositoryId, parentId: parentId,
                body: AtomPubWriter.entry(properties: properties, content: data, mimeType: content?.mimeType),
                progress: progress, operation: "create CMIS document in \(parentId)"
            ).object
        case .file(let file)?:
            // Base64 inside XML cannot be streamed from disk: create the document, then PUT the file to it.
            let entry = try await postEntry(
                repositoryId: repositoryId, parentId: parentId, body: AtomPubWriter.entry(properties: properties),
                progress: nil, operation: "create CMIS document in \(parentId)")
            guard let id = entry.object.id else { throw CMISError(.invalidResponse, "the new document has no id") }
            let target = try contentURL(entry)
            var request = changeRequest(
                .put, url: target, repositoryId: repositoryId, body: nil, operation: "upload CMIS content of \(id)")
            do {
                request.body = try HTTPClient.Body.file(
                    file, contentType: content?.mimeType ?? "application/octet-stream")
            } catch let error as HTTPTransferError {
                throw CMISError(.invalidArgument, error.message, httpError: error)
            }
            if let name = content?.filename {
                request.headers["Content-Disposition"] =
                    "attachment; filename*=UTF-8''" + AtomPubURITemplate.encode(name)
            }
            _ = try await send(request, progress: progress)
            return try await object(repositoryId: repositoryId, id: id, context: OperationContext())
        case nil:
            return try await postEntry(
                repositoryId: repositoryId, parentId: parentId, body: AtomPubWriter.entry(properties: properties),
                progress: nil, operation: "create CMIS document in \(parentId)"
            ).object
        }
    }

    /// PUTs an entry with the properties to the object's `edit` link; the change token goes in as
    /// `cmis:changeToken`.
    public func updateProperties(
        repositoryId: String, objectId: String, properties: Properties, changeToken: String?
    ) async throws -> CMISObject {
        var properties = properties
        if let changeToken {
            properties["cmis:changeToken"] = CMISProperty(
                id: "cmis:changeToken", type: .string, values: [.string(changeToken)])
        }
        let url = try await editURL(repositoryId: repositoryId, objectId: objectId)
        let request = changeRequest(
            .put, url: url, repositoryId: repositoryId,
            body: .data(AtomPubWriter.entry(properties: properties), contentType: Self.entryMediaType),
            operation: "update CMIS object \(objectId)")
        let body = try await send(request).body
        let entry = try await parseTyped(repositoryId: repositoryId) {
            try AtomPubParser.entry(body, typeDefinition: $0)
        }
        remember(entry, repositoryId: repositoryId)
        return entry.object
    }

    /// DELETE on the object's `edit` link, with `allVersions`.
    public func deleteObject(repositoryId: String, objectId: String, allVersions: Bool) async throws {
        let url = try await editURL(repositoryId: repositoryId, objectId: objectId)
        let request = changeRequest(
            .delete, url: Self.url(url, query: [("allVersions", String(allVersions))]), repositoryId: repositoryId,
            body: nil, operation: "delete CMIS object \(objectId)")
        _ = try await send(request)
        state.withLock { _ = $0.childrenLinks.removeValue(forKey: Key(repositoryId: repositoryId, id: objectId)) }
    }

    /// AtomPub has one way to create anything (an entry posted to a folder), so the server makes whatever type the
    /// entry names: a createFolder with a document type would make a document. The Browser binding's server
    /// refuses that (`createFolder` is its own action); here the type is checked first (its definition is cached)
    /// and the same `constraint` is thrown.
    func requireBaseType(
        _ base: BaseTypeId, of properties: Properties, repositoryId: String, operation: String
    ) async throws {
        // The base type itself needs no lookup; a type the repository cannot describe is the server's to refuse.
        guard let typeId = properties["cmis:objectTypeId"]?.stringValue, typeId != base.rawValue else { return }
        let type: TypeDefinition
        do {
            type = try await typeDefinition(repositoryId: repositoryId, typeId: typeId)
        } catch let error as CMISError where error.code == .objectNotFound {
            return
        }
        guard type.baseTypeId == base else {
            throw CMISError(
                .constraint,
                "\(operation) needs a type based on \(base.rawValue); \(typeId) is a \(type.baseTypeId.rawValue) type")
        }
    }

    /// POSTs an entry to the parent folder's children collection; the answer is the new object's entry.
    func postEntry(
        repositoryId: String, parentId: String, body: Data, progress: (@Sendable (TransferProgress) -> Void)?,
        operation: String
    ) async throws -> AtomPubEntry {
        let url = try await childrenURL(repositoryId: repositoryId, folderId: parentId)
        let request = changeRequest(
            .post, url: url, repositoryId: repositoryId, body: .data(body, contentType: Self.entryMediaType),
            operation: operation)
        let response = try await send(request, progress: progress).body
        let entry = try await parseTyped(repositoryId: repositoryId) {
            try AtomPubParser.entry(response, typeDefinition: $0)
        }
        remember(entry, repositoryId: repositoryId)
        return entry
    }

    /// The object's `edit` link (its `self` link when it has none).
    func editURL(repositoryId: String, objectId: String) async throws -> URL {
        var values = Self.templateValues(OperationContext(filter: ["cmis:objectId"]))
        values["id"] = objectId
        let url = try await expand(repositoryId, "objectbyid", values)
        let entry = try await entry(repositoryId: repositoryId, url: url, operation: "get CMIS object \(objectId)")
        guard let href = entry.links.edit?.href ?? entry.links.selfLink?.href else {
            throw CMISError(.invalidResponse, "object \(objectId) has no edit link")
        }
        return try resolve(href)
    }

    /// Where a document's content is read and written: `edit-media`, else `atom:content src`.
    func contentURL(_ entry: AtomPubEntry) throws -> URL {
        guard let href = entry.links.editMedia?.href ?? entry.links.contentSource else {
            throw CMISError(
                .streamNotSupported, "object \(entry.object.id ?? "?") has no content link (edit-media or content src)")
        }
        return try resolve(href)
    }
}
