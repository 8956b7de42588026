import Foundation
public import SatchelCMISCore
public import SatchelHTTP

extension AtomPubBinding {
    /// POSTs an entry naming the document to the repository's `checkedout` collection; returns the private
    /// working copy. Throws `.notSupported` when the repository has no such collection.
    public func checkOut(repositoryId: String, objectId: String) async throws -> CMISObject {
        let workspace = try await workspace(repositoryId)
        guard let collection = workspace.collection("checkedout") else {
            throw CMISError(.notSupported, "repository \(repositoryId) has no checkedout collection")
        }
        let request = changeRequest(
            .post, url: try resolve(collection.href), repositoryId: repositoryId,
            body: .data(Self.referenceEntry(objectId), contentType: Self.entryMediaType),
            operation: "check out CMIS document \(objectId)")
        return try await sendForEntry(request, repositoryId: repositoryId).object
    }

    /// DELETE on the private working copy's `edit` link.
    public func cancelCheckOut(repositoryId: String, objectId: String) async throws {
        // DELETE of a private working copy's entry cancels the check-out.
        let url = try await editURL(repositoryId: repositoryId, objectId: objectId)
        let request = changeRequest(
            .delete, url: url, repositoryId: repositoryId, body: nil,
            operation: "cancel the check-out of CMIS document \(objectId)")
        _ = try await send(request)
    }

    /// PUTs an entry to the working copy's `edit` link with `checkin=true`. New content goes inline (base64), so a
    /// file is read into memory first.
    public func checkIn(
        repositoryId: String, objectId: String, major: Bool, properties: Properties, content: ContentSource?,
        comment: String?, progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws -> CMISObject {
        let url = try await editURL(repositoryId: repositoryId, objectId: objectId)
        var query = [("checkin", "true"), ("major", String(major))]
        if let comment { query.append(("checkinComment", comment)) }
        var properties = properties
        var data: Data?
        if let content {
            // The check-in entry carries the new content inline (base64), so a file is read into memory.
            switch content.storage {
            case .data(let bytes): data = bytes
            case .file(let file):
                do {
                    data = try Data(contentsOf: file)
                } catch {
                    throw CMISError(.invalidArgument, "cannot read \(file.path): \(error)", underlying: error)
                }
            }
            if properties["cmis:contentStreamFileName"] == nil {
                properties["cmis:contentStreamFileName"] = CMISProperty(
                    id: "cmis:contentStreamFileName", type: .string, values: [.string(content.filename)])
            }
        }
        let body = AtomPubWriter.entry(properties: properties, content: data, mimeType: content?.mimeType)
        let request = changeRequest(
            .put, url: Self.url(url, query: query), repositoryId: repositoryId,
            body: .data(body, contentType: Self.entryMediaType), operation: "check in CMIS document \(objectId)")
        let responseBody = try await send(request, progress: progress).body
        let entry = try await parseTyped(repositoryId: repositoryId) {
            try AtomPubParser.entry(responseBody, typeDefinition: $0)
        }
        return entry.object
    }

    /// GET on the document's `version-history` link. A document without one (its type is not versionable) is its
    /// own only version; anything else throws `.invalidArgument` (not a document).
    public func allVersions(
        repositoryId: String, objectId: String, context: OperationContext
    ) async throws -> [CMISObject] {
        let entry = try await objectEntry(repositoryId: repositoryId, objectId: objectId)
        guard let link = entry.links.link("version-history") else {
            // A document of a type that is not versionable has no history link: its one version is itself.
            guard entry.object.baseType == .document else {
                throw CMISError(.invalidArgument, "object \(objectId) has no version history (not a document)")
            }
            return [try await object(repositoryId: repositoryId, id: objectId, context: context)]
        }
        return try await objectList(
            repositoryId: repositoryId, url: Self.url(try resolve(link.href), query: Self.contextQuery(context)),
            operation: "get the versions of CMIS document \(objectId)"
        ).objects
    }

    /// The `objectbyid` URI template with `returnVersion` (`latest`, or `latestmajor` when `major`).
    public func objectOfLatestVersion(
        repositoryId: String, objectId: String, major: Bool, context: OperationContext
    ) async throws -> CMISObject {
        var values = Self.templateValues(context)
        values["id"] = objectId
        let base = try await expand(repositoryId, "objectbyid", values)
        let url = Self.url(base, query: [("returnVersion", major ? "latestmajor" : "latest")])
        return try await entry(
            repositoryId: repositoryId, url: url, operation: "get the latest version of CMIS document \(objectId)"
        ).object
    }
}
