import Foundation
import SatchelCMISCore
import SatchelHTTP

extension BrowserBinding {

    func contentRequest(repositoryId: String, objectId: String, range: ByteRange?) async throws -> HTTPClient.Request {
        let endpoints = try await self.endpoints(repositoryId)
        var request = HTTPClient.Request(
            .get, url: Self.url(endpoints.rootFolder, query: [("objectId", objectId), ("cmisselector", "content")]),
            operation: "get CMIS content of \(objectId)")
        request.range = range
        return request
    }
}
