import Foundation
public import SatchelCMISCore
public import SatchelHTTP
import SatchelJSON

extension BrowserBinding {
    /// createItem, createPolicy or createRelationship, chosen by the base type of `cmis:objectTypeId`
    /// (relationships and unfiled objects go to the repository URL).
    public func createObject(
        repositoryId: String, parentId: String?, baseType: BaseTypeId, properties: Properties
    ) async throws -> CMISObject {
        let action: String
        switch baseType {
        case .item: action = "createItem"
        case .policy: action = "createPolicy"
        case .relationship: action = "createRelationship"
        case .folder: action = "createFolder"
        case .document: action = "createDocument"
        case .secondary:
            throw CMISError(.invalidArgument, "secondary types cannot be instantiated; add them to an object")
        }
        let body = try await post(
            repositoryId: repositoryId, objectId: baseType == .relationship ? nil : parentId, action: action,
            fields: Self.propertyFields(properties), operation: "create CMIS \(baseType.rawValue)")
        return try await parseTyped(repositoryId: repositoryId) { try BrowserParser.object(body, typeDefinition: $0) }
    }

    /// `cmisaction=move`, with `sourceFolderId` when given.
    public func moveObject(
        repositoryId: String, objectId: String, targetFolderId: String, sourceFolderId: String?
    ) async throws -> CMISObject {
        var fields = [("targetFolderId", targetFolderId)]
        if let sourceFolderId { fields.append(("sourceFolderId", sourceFolderId)) }
        let body = try await post(
            repositoryId: repositoryId, objectId: objectId, action: "move", fields: fields,
            operation: "move CMIS object \(objectId) to \(targetFolderId)")
        return try await parseTyped(repositoryId: repositoryId) { try BrowserParser.object(body, typeDefinition: $0) }
    }

    /// Deletes a folder and everything in it; returns the ids that could not be deleted.
    public func deleteTree(
        repositoryId: String, folderId: String, allVersions: Bool, unfileObjects: UnfileObjects,
        continueOnFailure: Bool
    ) async throws -> [String] {
        let body = try await post(
            repositoryId: repositoryId, objectId: folderId, action: "deleteTree",
            fields: [
                ("allVersions", String(allVersions)), ("unfileObjects", unfileObjects.rawValue),
                ("continueOnFailure", String(continueOnFailure)),
            ], operation: "delete CMIS folder tree \(folderId)")
        return try Self.failedIds(body)
    }

    /// `cmisaction=bulkUpdate`, posted to the repository URL: one request for all the objects.
    public func bulkUpdate(
        repositoryId: String, objects: [(id: String, changeToken: String?)], properties: Properties,
        addSecondaryTypeIds: [String], removeSecondaryTypeIds: [String]
    ) async throws -> [BulkUpdateResult] {
        var fields: [(String, String)] = []
        for (index, object) in objects.enumerated() {
            fields.append(("objectId[\(index)]", object.id))
            if let token = object.changeToken { fields.append(("changeToken[\(index)]", token)) }
        }
        fields += Self.propertyFields(properties)
        for (index, id) in addSecondaryTypeIds.enumerated() { fields.append(("addSecondaryTypeId[\(index)]", id)) }
        for (index, id) in removeSecondaryTypeIds.enumerated() {
            fields.append(("removeSecondaryTypeId[\(index)]", id))
        }
        let body = try await post(
            repositoryId: repositoryId, objectId: nil, action: "bulkUpdate", fields: fields,
            operation: "bulk-update \(objects.count) CMIS objects")
        return try BrowserJSON.parse(body).array().map { entry in
            BulkUpdateResult(
                id: try entry.require("id").string(), newId: try entry.string("newId"),
                changeToken: try entry.string("changeToken"))
        }
    }

    /// `cmisaction=setContent` with `overwriteFlag` (and `changeToken` when given), the content in a multipart
    /// form.
    public func setContentStream(
        repositoryId: String, objectId: String, content: ContentSource, overwrite: Bool, changeToken: String?,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws -> CMISObject {
        var fields = [("overwriteFlag", String(overwrite))]
        if let changeToken { fields.append(("changeToken", changeToken)) }
        let body = try await post(
            repositoryId: repositoryId, objectId: objectId, action: "setContent", fields: fields, content: content,
            progress: progress, operation: "set the content of CMIS document \(objectId)")
        return try await parseTyped(repositoryId: repositoryId) { try BrowserParser.object(body, typeDefinition: $0) }
    }

    /// `cmisaction=appendContent` with `isLastChunk`, the content in a multipart form.
    public func appendContentStream(
        repositoryId: String, objectId: String, content: ContentSource, isLastChunk: Bool, changeToken: String?,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws -> CMISObject {
        var fields = [("isLastChunk", String(isLastChunk))]
        if let changeToken { fields.append(("changeToken", changeToken)) }
        let body = try await post(
            repositoryId: repositoryId, objectId: objectId, action: "appendContent",
            fields: fields, content: content, progress: progress,
            operation: "append to the content of CMIS document \(objectId)")
        return try await parseTyped(repositoryId: repositoryId) { try BrowserParser.object(body, typeDefinition: $0) }
    }

    /// `cmisaction=deleteContent`, with `changeToken` when given.
    public func deleteContentStream(
        repositoryId: String, objectId: String, changeToken: String?
    ) async throws -> CMISObject {
        let body = try await post(
            repositoryId: repositoryId, objectId: objectId, action: "deleteContent",
            fields: changeToken.map { [("changeToken", $0)] } ?? [],
            operation: "delete the content of CMIS document \(objectId)")
        return try await parseTyped(repositoryId: repositoryId) { try BrowserParser.object(body, typeDefinition: $0) }
    }

    /// `cmisaction=addObjectToFolder`.
    public func addObjectToFolder(
        repositoryId: String, objectId: String, folderId: String, allVersions: Bool
    ) async throws -> CMISObject {
        let body = try await post(
            repositoryId: repositoryId, objectId: objectId, action: "addObjectToFolder",
            fields: [("folderId", folderId), ("allVersions", String(allVersions))],
            operation: "file CMIS object \(objectId) in \(folderId)")
        return try await parseTyped(repositoryId: repositoryId) { try BrowserParser.object(body, typeDefinition: $0) }
    }

    /// `cmisaction=removeObjectFromFolder` (without `folderId` when it is nil: from every folder).
    public func removeObjectFromFolder(
        repositoryId: String, objectId: String, folderId: String?
    ) async throws -> CMISObject {
        let body = try await post(
            repositoryId: repositoryId, objectId: objectId, action: "removeObjectFromFolder",
            fields: folderId.map { [("folderId", $0)] } ?? [],
            operation: "unfile CMIS object \(objectId)\(folderId.map { " from \($0)" } ?? "")")
        return try await parseTyped(repositoryId: repositoryId) { try BrowserParser.object(body, typeDefinition: $0) }
    }

    /// deleteTree answers nothing on success, or `{"ids":[…]}` listing what it could not delete.
    static func failedIds(_ body: Data) throws -> [String] {
        guard body.contains(where: { !($0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09) }) else { return [] }
        let json = try BrowserJSON.parse(body)
        guard json.value.objectValue != nil, let ids = json["ids"] else { return [] }
        return try ids.array().map { try $0.string() }
    }
}
