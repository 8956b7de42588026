import Foundation
import SatchelCMISCore
import SatchelHTTP

extension AtomPubBinding {

    /// A GET of the document's content link (found on its entry).
    func contentRequest(repositoryId: String, objectId: String, range: ByteRange?) async throws -> HTTPClient.Request {
        var values = Self.templateValues(OperationContext(filter: ["cmis:objectId"]))
        values["id"] = objectId
        let url = try await expand(repositoryId, "objectbyid", values)
        let entry = try await entry(repositoryId: repositoryId, url: url, operation: "get CMIS object \(objectId)")
        // atom:content src first: edit-media may exist for a document that has no content yet.
        let href = entry.links.contentSource ?? entry.links.editMedia?.href
        guard let href else {
            throw CMISError(.constraint, "object \(objectId) has no content stream")
        }
        var request = HTTPClient.Request(.get, url: try resolve(href), operation: "get CMIS content of \(objectId)")
        request.range = range
        return request
    }
}
