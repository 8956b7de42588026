public import Foundation
public import SatchelCMISCore
public import SatchelHTTP

extension CMISSession {
    /// A document's content in memory; `range` asks for part of it.
    ///
    /// ```swift
    /// let header = try await session.content(of: id, range: .bytes(0...15))
    /// ```
    public func content(of objectId: String, range: ByteRange? = nil) async throws -> Data {
        try await binding.contentStream(repositoryId: repositoryId, objectId: objectId, range: range)
    }

    /// A rendition's stream in memory: `streamId` is one of the object's `CMISObject.renditions` (read with a
    /// `renditionFilter`, `*` for all).
    ///
    /// ```swift
    /// let folder = try await session.object(id: id, context: OperationContext(renditionFilter: "cmis:thumbnail"))
    /// if let thumbnail = folder.renditions.first {
    ///     let png = try await session.renditionContent(of: id, streamId: thumbnail.streamId)
    /// }
    /// ```
    public func renditionContent(of objectId: String, streamId: String, range: ByteRange? = nil) async throws -> Data {
        try await binding.contentStream(
            repositoryId: repositoryId, objectId: objectId, streamId: streamId, range: range)
    }

    /// A document's content streamed into `file` (replaced only when the download succeeds).
    public func downloadContent(
        of objectId: String, to file: URL, range: ByteRange? = nil,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws {
        try await binding.downloadContentStream(
            repositoryId: repositoryId, objectId: objectId, range: range, to: file, progress: progress)
    }

    /// One page of a CMIS QL query's results.
    ///
    /// ```swift
    /// let page = try await session.query("SELECT * FROM cmis:document", maxItems: 20)
    /// if page.hasMoreItems { /* ask again with skipCount: 20 */ }
    /// ```
    public func query(
        _ statement: String, searchAllVersions: Bool = false, maxItems: Int? = nil, skipCount: Int = 0
    ) async throws -> ObjectList {
        try await binding.query(
            repositoryId: repositoryId, statement: statement, searchAllVersions: searchAllVersions,
            maxItems: maxItems ?? parameters.pageSize, skipCount: skipCount)
    }

    /// A query's results as a lazy sequence, fetched a page (``SessionParameters/pageSize``) at a time as
    /// iteration goes, with the next ``SessionParameters/prefetchPages`` pages requested ahead.
    ///
    /// ```swift
    /// for try await document in session.queryResults("SELECT cmis:name FROM cmis:document") {
    ///     print(document.properties["cmis:name"]?.stringValue ?? "")
    /// }
    /// ```
    public func queryResults(_ statement: String, searchAllVersions: Bool = false) -> PagedSequence<ObjectList> {
        let binding = binding
        let repositoryId = repositoryId
        return PagedSequence(pageSize: parameters.pageSize, prefetch: parameters.prefetchPages) {
            skipCount, maxItems in
            try await binding.query(
                repositoryId: repositoryId, statement: statement, searchAllVersions: searchAllVersions,
                maxItems: maxItems, skipCount: skipCount)
        }
    }

    /// A query built with `QueryStatement` (values escaped for CMIS QL) as a lazy sequence of its results.
    public func queryResults(
        _ statement: QueryStatement, searchAllVersions: Bool = false
    ) throws -> PagedSequence<ObjectList> {
        queryResults(try Self.text(of: statement), searchAllVersions: searchAllVersions)
    }

    /// One page of a query built with `QueryStatement` (values escaped for CMIS QL).
    ///
    /// ```swift
    /// var statement = QueryStatement("SELECT * FROM cmis:document WHERE IN_FOLDER(?)")
    /// statement.set(1, id: folderId)
    /// let page = try await session.query(statement)
    /// ```
    public func query(
        _ statement: QueryStatement, searchAllVersions: Bool = false, maxItems: Int? = nil, skipCount: Int = 0
    ) async throws -> ObjectList {
        try await query(
            try Self.text(of: statement), searchAllVersions: searchAllVersions, maxItems: maxItems,
            skipCount: skipCount)
    }

    /// The statement with its values filled in; a missing or unusable value is an `invalidArgument`.
    static func text(of statement: QueryStatement) throws -> String {
        do {
            return try statement.resolved()
        } catch {
            throw CMISError(.invalidArgument, "\(error)", underlying: error)
        }
    }
}
