import Foundation
import HTTPTypes
import Hummingbird
import SatchelCMISCore
import SatchelCMISQL
import SatchelJSON
import SatchelRepository
import NIOFoundationEssentialsCompat

/// CMIS objects as Nuxeo documents: where each is shown (path, parent), its blob, lock and trash mark.
extension NuxeoHandler {
    /// An object's path: a folder's own, a document's parent's with its name.
    func path(of object: CMISObject, repository: String, caller: CallerContext) async throws -> String {
        try await placement(of: object, repository: repository, caller: caller).path
    }

    /// An object's path and its parent's id: a folder's own, a document's first parent's (the caller may read).
    func placement(
        of object: CMISObject, repository: String, caller: CallerContext
    ) async throws -> (
        path: String, parentID: String?
    ) {
        if let path = object.path { return (path, object.parentId) }
        guard let id = object.id else { return ("/", nil) }
        let found = try await service(repository).placements(repositoryId: repository, objectIds: [id], caller: caller)[
            id]
        return Self.placement(of: object, found: found)
    }

    /// Where an object is shown: its own path, or what the service found, or its name under the root when no parent
    /// is the caller's to see.
    static func placement(of object: CMISObject, found: ObjectPlacement?) -> (path: String, parentID: String?) {
        if let path = object.path { return (path, object.parentId) }
        if let path = found?.path { return (path, found?.parentId) }
        return ("/" + (object.name ?? object.id ?? ""), nil)
    }

    /// An object as a Nuxeo document, placed (path and parent) where the caller does not know it, with its blob's
    /// digest.
    func render(
        _ object: CMISObject, placedAt known: (path: String, parentID: String?)? = nil, repository: String,
        caller: CallerContext
    ) async throws -> JSONValue {
        try await render([object], placedAt: [known], repository: repository, caller: caller)[0]
    }

    /// A page of objects as Nuxeo documents. What the page needs of the repository beyond the objects (the paths
    /// of documents not placed by `known`, and the digests of their blobs) is read in one call for the whole page
    /// (``CMISService/placements(repositoryId:objectIds:caller:)``), not per document.
    func render(
        _ objects: [CMISObject], placedAt known: [(path: String, parentID: String?)?]? = nil, repository: String,
        caller: CallerContext
    ) async throws -> [JSONValue] {
        func hasBlob(_ object: CMISObject) -> Bool { object.baseType == .document && object.contentStreamLength != nil }
        // A query on a base type answers with that type's properties only: a Nuxeo type's own title is read with
        // the placements.
        func lacksTitle(_ object: CMISObject) -> Bool {
            Self.hasOwnTitle(object) && object.properties[DocumentTypes.titleProperty] == nil
        }
        var needed: [String] = []
        for (index, object) in objects.enumerated() {
            guard let id = object.id else { continue }
            let placed = (known?[index] ?? nil) != nil || object.path != nil
            if !placed || hasBlob(object) || lacksTitle(object) { needed.append(id) }
        }
        let found =
            needed.isEmpty
            ? [:]
            : try await service(repository).placements(repositoryId: repository, objectIds: needed, caller: caller)
        // The page's locks and trash marks, one read each.
        let keys = objects.map(Self.markKey(of:))
        let locks = try await marks.locks(of: keys, in: repository)
        let trashed = try await marks.trashMarks(of: keys, in: repository)
        return objects.enumerated().map { index, object in
            let placement = object.id.flatMap { found[$0] }
            let shown = (known?[index] ?? nil) ?? Self.placement(of: object, found: placement)
            return document(
                object, title: placement?.title, path: shown.path, parentID: shown.parentID,
                digest: hasBlob(object) ? placement?.contentHash : nil, lock: locks[keys[index]],
                isTrashed: trashed[keys[index]] != nil, repository: repository)
        }
    }

    /// A CMIS object as a Nuxeo document: its Nuxeo type and `dc:title` when it was made as one (`DocumentTypes`),
    /// otherwise `Folder` or `File` titled by its name; documents carry `file:content`.
    func document(
        _ object: CMISObject, title storedTitle: String? = nil, path: String, parentID: String?, digest: String?,
        lock: DocumentLock?, isTrashed: Bool, repository: String
    ) -> JSONValue {
        let isFolder = object.baseType == .folder
        // A Nuxeo type keeps its type and title; an object made through CMIS is a File or a Folder titled by name.
        let type =
            object.objectTypeId.flatMap { Self.creatableTypes.contains($0) ? $0 : nil }
            ?? (isFolder ? "Folder" : "File")
        let title =
            object.properties[DocumentTypes.titleProperty]?.values.first?.stringValue ?? storedTitle ?? object.name
        let modified = object.lastModificationDate.map { JSONValue.string(Self.timestamp($0)) } ?? .null
        var properties: JSONObject = [
            "dc:title": title.map { .string($0) } ?? .null,
            "dc:description": object.objectDescription.map { .string($0) } ?? .null,
            "dc:creator": object.createdBy.map { .string($0) } ?? .null,
            "dc:created": object.creationDate.map { .string(Self.timestamp($0)) } ?? .null,
            "dc:modified": modified,
            "dc:lastContributor": object.lastModifiedBy.map { .string($0) } ?? .null,
        ]
        if !isFolder {
            var content: JSONValue = .null
            if let length = object.contentStreamLength, object.id != nil {
                content = [
                    "name": .string(object.contentStreamFileName ?? object.name ?? "content"),
                    "mime-type": object.contentStreamMimeType.map { .string($0) } ?? .null,
                    "encoding": .null,
                    "digestAlgorithm": digest == nil ? .null : "SHA-256", "digest": digest.map { .string($0) } ?? .null,
                    // Nuxeo writes the length as a string.
                    "length": .string(String(length)),
                    "data": .string(
                        "\(NuxeoRoutes.apiRoot)/repo/\(repository)/id/\(Self.uid(of: object))/@blob/file:content"),
                ]
            }
            properties.append(key: "file:content", value: content)
        }
        let uid = Self.uid(of: object)
        let isVersion = object.baseType == .document && object.isLatestVersion == false
        var document: JSONObject = [
            "entity-type": "document", "repository": .string(repository == defaultRepository ? "default" : repository),
            "uid": .string(uid), "path": .string(path), "type": .string(type),
            "state": "project", "parentRef": (parentID ?? object.parentId).map { .string($0) } ?? .null,
            "isCheckedOut": .bool(
                object.properties["cmis:isVersionSeriesCheckedOut"]?.values.first?.boolValue ?? false),
            "isVersion": .bool(isVersion), "isProxy": false,
            "isTrashed": .bool(isTrashed),
            "changeToken": object.changeToken.map { .string($0) } ?? .null,
            "title": title.map { .string($0) } ?? .null, "lastModified": modified,
            "properties": .object(properties),
            "facets": .array(isFolder ? ["Folderish"] : ["Downloadable", "Versionable"]),
        ]
        if let label = object.versionLabel { document.append(key: "versionLabel", value: .string(label)) }
        if let lock {
            document.append(key: "lockOwner", value: .string(lock.owner))
            document.append(key: "lockCreated", value: .string(Self.timestamp(lock.created)))
        }
        return .object(document)
    }

    /// Nuxeo's dates: UTC with milliseconds (`2024-01-15T10:20:30.123Z`), as `xsd:dateTime` is written.
    static func timestamp(_ date: Date) -> String { AtomPubWriter.dateString(date) }
}
