import Foundation
public import SatchelCMISCore
public import SatchelHTTP

extension BrowserBinding {
    /// `cmisaction=checkOut`; returns the private working copy.
    public func checkOut(repositoryId: String, objectId: String) async throws -> CMISObject {
        let body = try await post(
            repositoryId: repositoryId, objectId: objectId, action: "checkOut", fields: [],
            operation: "check out CMIS document \(objectId)")
        return try await parseTyped(repositoryId: repositoryId) { try BrowserParser.object(body, typeDefinition: $0) }
    }

    /// `cmisaction=cancelCheckOut`.
    public func cancelCheckOut(repositoryId: String, objectId: String) async throws {
        _ = try await post(
            repositoryId: repositoryId, objectId: objectId, action: "cancelCheckOut", fields: [],
            operation: "cancel the check-out of CMIS document \(objectId)")
    }

    /// `cmisaction=checkIn` with `major` and `checkinComment`; a multipart form when there is content.
    public func checkIn(
        repositoryId: String, objectId: String, major: Bool, properties: Properties, content: ContentSource?,
        comment: String?, progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws -> CMISObject {
        var fields = [("major", String(major))] + Self.propertyFields(properties)
        if let comment { fields.append(("checkinComment", comment)) }
        let body = try await post(
            repositoryId: repositoryId, objectId: objectId, action: "checkIn", fields: fields, content: content,
            progress: progress, operation: "check in CMIS document \(objectId)")
        return try await parseTyped(repositoryId: repositoryId) { try BrowserParser.object(body, typeDefinition: $0) }
    }

    /// `cmisselector=versions` on the document.
    public func allVersions(
        repositoryId: String, objectId: String, context: OperationContext
    ) async throws -> [CMISObject] {
        let body = try await getObjectSelector(
            repositoryId: repositoryId, objectId: objectId, selector: "versions",
            parameters: Self.objectParameters(context), operation: "get the versions of CMIS document \(objectId)")
        return try await parseTyped(repositoryId: repositoryId) {
            try BrowserParser.objectList(body, typeDefinition: $0)
        }.objects
    }

    /// `cmisselector=object` with `returnVersion` (`latest`, or `latestmajor` when `major`).
    public func objectOfLatestVersion(
        repositoryId: String, objectId: String, major: Bool, context: OperationContext
    ) async throws -> CMISObject {
        let parameters = Self.objectParameters(context) + [("returnVersion", major ? "latestmajor" : "latest")]
        let body = try await getObjectSelector(
            repositoryId: repositoryId, objectId: objectId, selector: "object", parameters: parameters,
            operation: "get the latest version of CMIS document \(objectId)")
        return try await parseTyped(repositoryId: repositoryId) { try BrowserParser.object(body, typeDefinition: $0) }
    }
}
