import Foundation
import SatchelCMISCore
import SatchelHTTP

extension BrowserBinding {
    public func contentStream(repositoryId: String, objectId: String, range: ByteRange?) async throws -> Data {
        try await send(contentRequest(repositoryId: repositoryId, objectId: objectId, range: range)).body
    }

    public func downloadContentStream(
        repositoryId: String, objectId: String, range: ByteRange?, to file: URL,
        progress: (@Sendable (TransferProgress) -> Void)?
    ) async throws {
        let request = try await contentRequest(repositoryId: repositoryId, objectId: objectId, range: range)
        do {
            try await client.download(request, to: file, progress: progress)
        } catch let error as HTTPError {
            throw Self.map(error)
        }
    }

    func contentRequest(repositoryId: String, objectId: String, range: ByteRange?) async throws -> HTTPRequest {
        let endpoints = try await self.endpoints(repositoryId)
        var request = HTTPRequest(
            .get, url: Self.url(endpoints.rootFolder, query: [("objectId", objectId), ("cmisselector", "content")]),
            operation: "get CMIS content of \(objectId)")
        request.range = range
        return request
    }
}
