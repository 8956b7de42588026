import Foundation
import SatchelCMISCore
import SatchelJSON
import SatchelRepository

/// Document changes shared by the REST endpoints and Automation.
extension NuxeoHandler {
    /// Nuxeo types that are folders here (each a CMIS subtype of `cmis:folder`).
    static let folderTypes = Set(DocumentTypes.folderTypes)
    /// Every Nuxeo type a document can be created as (each a CMIS subtype keeping the type and `dc:title`).
    static let creatableTypes = Set(DocumentTypes.documentTypes + DocumentTypes.folderTypes)

    /// A new child of `parent` of the Nuxeo type `type` (a folder for a folder type), named `name` (its path
    /// segment), titled `title` (the name when none is given), as Nuxeo keeps both.
    func createChild(
        in parent: CMISObject, type: String, name: String, title: String?, description: String?, repository: String,
        caller: CallerContext
    ) async throws -> CMISObject {
        guard parent.baseType == .folder, let parentID = parent.id else {
            throw CMISError(.invalidArgument, "\(parent.name ?? "that") is not a folder: nothing can be created in it")
        }
        guard !name.isEmpty else { throw CMISError(.invalidArgument, "a new document needs a name (or dc:title)") }
        guard Self.creatableTypes.contains(type) else {
            let known = (DocumentTypes.documentTypes + DocumentTypes.folderTypes).joined(separator: ", ")
            throw CMISError(
                .invalidArgument, "there is no document type \(String(type.prefix(100))) here (types: \(known))")
        }
        var properties = [CMISProperty(id: "cmis:name", type: .string, values: [.string(name)])]
        if try await knowsType(type, repository: repository, caller: caller) {
            properties.append(CMISProperty(id: "cmis:objectTypeId", type: .id, values: [.id(type)]))
            properties.append(
                CMISProperty(id: DocumentTypes.titleProperty, type: .string, values: [.string(title ?? name)]))
        } else {
            // A gateway mount's back-end has only the base types: the name stands for the title there.
            let base = Self.folderTypes.contains(type) ? "cmis:folder" : "cmis:document"
            properties.append(CMISProperty(id: "cmis:objectTypeId", type: .id, values: [.id(base)]))
        }
        if let description {
            properties.append(CMISProperty(id: "cmis:description", type: .string, values: [.string(description)]))
        }
        if Self.folderTypes.contains(type) {
            return try await service(repository).createFolder(
                repositoryId: repository, parentId: parentID, properties: Properties(properties), policies: [],
                addACEs: [], removeACEs: [], caller: caller)
        }
        return try await service(repository).createDocument(
            repositoryId: repository, parentId: parentID, properties: Properties(properties), content: nil,
            versioningState: nil, policies: [], addACEs: [], removeACEs: [], caller: caller)
    }

    /// Whether the repository defines the Nuxeo type `type` (every local repository does; a mount's back-end may
    /// not).
    func knowsType(_ type: String, repository: String, caller: CallerContext) async throws -> Bool {
        do {
            _ = try await service(repository).typeDefinition(repositoryId: repository, typeId: type, caller: caller)
            return true
        } catch let error as CMISError where error.code == .objectNotFound {
            return false
        }
    }

    /// Whether `object` has a title of its own: it was made as one of the Nuxeo types (through this API). An
    /// object made through CMIS as a base type has only its name, which stands for its title.
    static func hasOwnTitle(_ object: CMISObject) -> Bool {
        object.objectTypeId.map(creatableTypes.contains) ?? false
    }

    /// A document's `dc:title` and `dc:description` (`.null` clears it), guarded by `changeToken`. The title is
    /// the document's own for the Nuxeo types; for an object made through CMIS as a base type, its name.
    func updateDocument(
        _ object: CMISObject, title: String?, description: JSONValue?, changeToken: String?, repository: String,
        caller: CallerContext
    ) async throws -> CMISObject {
        guard let id = object.id else { throw CMISError(.objectNotFound, "no such document") }
        try await checkUnlocked(object, repository: repository, caller: caller)
        var properties: [CMISProperty] = []
        if let title {
            let property = Self.hasOwnTitle(object) ? DocumentTypes.titleProperty : "cmis:name"
            properties.append(CMISProperty(id: property, type: .string, values: [.string(title)]))
        }
        if let description {
            properties.append(
                CMISProperty(
                    id: "cmis:description", type: .string, values: description.stringValue.map { [.string($0)] } ?? []))
        }
        guard !properties.isEmpty else { return object }
        return try await service(repository).updateProperties(
            repositoryId: repository, objectId: id, changeToken: changeToken, properties: Properties(properties),
            caller: caller)
    }

    /// Deletes a document, or a folder with what it holds.
    func deleteDocument(_ object: CMISObject, repository: String, caller: CallerContext) async throws {
        guard let id = object.id else { throw CMISError(.objectNotFound, "no such document") }
        try await checkTreeUnlocked(object, repository: repository, caller: caller)
        if object.baseType == .folder {
            _ = try await service(repository).deleteTree(
                repositoryId: repository, folderId: id, allVersions: true, unfileObjects: .delete,
                continueOnFailure: false, caller: caller)
        } else {
            try await service(repository).deleteObject(
                repositoryId: repository, objectId: id, allVersions: true, caller: caller)
        }
        // The repository's own store forgot them with the document; a mount's back-end cannot.
        try await marks.forget([Self.markKey(of: object)], in: repository)
    }
}
