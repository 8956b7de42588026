import Foundation
import SatchelHTTP

extension CMISSession {
    /// A document's content in memory; `range` asks for part of it.
    ///
    /// ```swift
    /// let header = try await session.content(of: id, range: .bytes(0...15))
    /// ```
    public func content(of objectId: String, range: ByteRange? = nil) async throws -> Data {
        try await binding.contentStream(repositoryId: repositoryId, objectId: objectId, range: range)
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

    /// One page of a query built with ``QueryStatement`` (values escaped for CMIS QL).
    ///
    /// ```swift
    /// var statement = QueryStatement("SELECT * FROM cmis:document WHERE IN_FOLDER(?)")
    /// statement.set(1, id: folderId)
    /// let page = try await session.query(statement)
    /// ```
    public func query(
        _ statement: QueryStatement, searchAllVersions: Bool = false, maxItems: Int? = nil, skipCount: Int = 0
    ) async throws -> ObjectList {
        let text: String
        do {
            text = try statement.resolved()
        } catch {
            throw CMISError(.invalidArgument, "\(error)", underlying: error)
        }
        return try await query(text, searchAllVersions: searchAllVersions, maxItems: maxItems, skipCount: skipCount)
    }
}
