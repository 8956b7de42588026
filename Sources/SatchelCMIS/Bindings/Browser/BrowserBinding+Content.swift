import Foundation
import SatchelCMISCore
import SatchelHTTP

extension BrowserBinding {

    /// `cmisselector=content` on the root folder URL, with `streamId` for a rendition.
    func contentRequest(
        repositoryId: String, objectId: String, streamId: String?, range: ByteRange?
    ) async throws -> HTTPClient.Request {
        let endpoints = try await self.endpoints(repositoryId)
        var query = [("objectId", objectId), ("cmisselector", "content")]
        if let streamId, !streamId.isEmpty { query.append(("streamId", streamId)) }
        var request = HTTPClient.Request(
            .get, url: Self.url(endpoints.rootFolder, query: query),
            operation: Self.contentOperation(objectId, streamId: streamId))
        request.range = range
        return request
    }
}
