import Foundation
import SatchelCMISCore
import SatchelJSON
import SatchelRepository

/// Document changes shared by the REST endpoints and Automation.
extension NuxeoHandler {
    /// Nuxeo types that are folders here; any other type makes a document.
    static let folderTypes: Set<String> = ["Folder", "Workspace", "OrderedFolder", "WorkspaceRoot", "Domain"]

    /// A new child of `parent`: a folder for a folder type, a document otherwise.
    func createChild(
        in parent: CMISObject, type: String, name: String, description: String?, repository: String,
        caller: CallerContext
    ) async throws -> CMISObject {
        guard parent.baseType == .folder, let parentID = parent.id else {
            throw CMISError(.invalidArgument, "\(parent.name ?? "that") is not a folder: nothing can be created in it")
        }
        guard !name.isEmpty else { throw CMISError(.invalidArgument, "a new document needs a name (or dc:title)") }
        let isFolder = Self.folderTypes.contains(type)
        var properties = [
            CMISProperty(id: "cmis:name", type: .string, values: [.string(name)]),
            CMISProperty(
                id: "cmis:objectTypeId", type: .id, values: [.id(isFolder ? "cmis:folder" : "cmis:document")]),
        ]
        if let description {
            properties.append(CMISProperty(id: "cmis:description", type: .string, values: [.string(description)]))
        }
        if isFolder {
            return try await service.createFolder(
                repositoryId: repository, parentId: parentID, properties: Properties(properties), policies: [],
                addACEs: [], removeACEs: [], caller: caller)
        }
        return try await service.createDocument(
            repositoryId: repository, parentId: parentID, properties: Properties(properties), content: nil,
            versioningState: nil, policies: [], addACEs: [], removeACEs: [], caller: caller)
    }

    /// A document's `dc:title` (its name here) and `dc:description` (`.null` clears it), guarded by `changeToken`.
    func updateDocument(
        _ object: CMISObject, title: String?, description: JSONValue?, changeToken: String?, repository: String,
        caller: CallerContext
    ) async throws -> CMISObject {
        guard let id = object.id else { throw CMISError(.objectNotFound, "no such document") }
        try await checkUnlocked(object, repository: repository, caller: caller)
        var properties: [CMISProperty] = []
        if let title { properties.append(CMISProperty(id: "cmis:name", type: .string, values: [.string(title)])) }
        if let description {
            properties.append(
                CMISProperty(
                    id: "cmis:description", type: .string, values: description.stringValue.map { [.string($0)] } ?? []))
        }
        guard !properties.isEmpty else { return object }
        return try await service.updateProperties(
            repositoryId: repository, objectId: id, changeToken: changeToken, properties: Properties(properties),
            caller: caller)
    }

    /// Deletes a document, or a folder with what it holds.
    func deleteDocument(_ object: CMISObject, repository: String, caller: CallerContext) async throws {
        guard let id = object.id else { throw CMISError(.objectNotFound, "no such document") }
        try await checkTreeUnlocked(object, repository: repository, caller: caller)
        if object.baseType == .folder {
            _ = try await service.deleteTree(
                repositoryId: repository, folderId: id, allVersions: true, unfileObjects: .delete,
                continueOnFailure: false, caller: caller)
        } else {
            try await service.deleteObject(repositoryId: repository, objectId: id, allVersions: true, caller: caller)
        }
        // The repository's own store forgot them with the document; a mount's back-end cannot.
        try await marks.forget([Self.markKey(of: object)], in: repository)
    }
}
