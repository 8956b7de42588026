import Foundation
public import SatchelCMISCore
public import SatchelHTTP

extension CMISSession {
    /// Checks a document out and returns its private working copy (edit it, then
    /// ``checkIn(_:major:properties:content:comment:progress:)``).
    ///
    /// ```swift
    /// let pwc = try await session.checkOut(document.id!)
    /// let text = ContentSource.data(Data("v2".utf8), filename: "notes.txt", mimeType: "text/plain")
    /// let next = try await session.checkIn(pwc.id!, major: true, content: text, comment: "v2")
    /// ```
    public func checkOut(_ documentId: String) async throws -> CMISObject {
        cache.remove(id: documentId, allPaths: true)
        return try await binding.checkOut(repositoryId: repositoryId, objectId: documentId)
    }

    /// Throws away a private working copy (pass the working copy's id or the checked-out document's).
    public func cancelCheckOut(_ objectId: String) async throws {
        cache.remove(id: objectId, allPaths: true)
        try await binding.cancelCheckOut(repositoryId: repositoryId, objectId: objectId)
    }

    /// Checks a private working copy in as a new major or minor version and returns that version.
    public func checkIn(
        _ workingCopyId: String, major: Bool = true, properties: [CMISProperty] = [], content: ContentSource? = nil,
        comment: String? = nil, progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> CMISObject {
        cache.remove(id: workingCopyId, allPaths: true)
        return try await binding.checkIn(
            repositoryId: repositoryId, objectId: workingCopyId, major: major, properties: Properties(properties),
            content: content, comment: comment, progress: progress)
    }

    /// Every version of the document's version series, newest first.
    public func allVersions(of documentId: String, context: OperationContext? = nil) async throws -> [CMISObject] {
        try await binding.allVersions(
            repositoryId: repositoryId, objectId: documentId, context: context ?? parameters.operationContext)
    }

    /// The latest version (or latest major version) of the document's version series.
    public func latestVersion(
        of documentId: String, major: Bool = false, context: OperationContext? = nil
    ) async throws -> CMISObject {
        try await binding.objectOfLatestVersion(
            repositoryId: repositoryId, objectId: documentId, major: major,
            context: context ?? parameters.operationContext)
    }
}
