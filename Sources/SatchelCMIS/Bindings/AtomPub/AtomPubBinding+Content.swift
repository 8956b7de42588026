import Foundation
import SatchelCMISCore
import SatchelHTTP

extension AtomPubBinding {

    /// A GET of the document's content link (found on its entry), or of the `alternate` link of the rendition
    /// `streamId` names.
    func contentRequest(
        repositoryId: String, objectId: String, streamId: String?, range: ByteRange?
    ) async throws -> HTTPClient.Request {
        let streamId = streamId.flatMap { $0.isEmpty ? nil : $0 }
        var values = Self.templateValues(
            OperationContext(filter: ["cmis:objectId"], renditionFilter: streamId == nil ? nil : "*"))
        values["id"] = objectId
        let entryURL = try await expand(repositoryId, "objectbyid", values)
        let entry = try await entry(
            repositoryId: repositoryId, url: entryURL, operation: "get CMIS object \(objectId)")
        let href: String
        if let streamId {
            href = try Self.renditionLink(streamId, of: entry, objectId: objectId)
        } else if let link = entry.links.contentSource ?? entry.links.editMedia?.href {
            // atom:content src first: edit-media may exist for a document that has no content yet.
            href = link
        } else {
            throw CMISError(.constraint, "object \(objectId) has no content stream")
        }
        let contentURL = try resolve(href)
        // The client's credentials go with the request: a link to another host (one the repository should not
        // send it to, such as a service on the client's own machine) is refused, not followed.
        guard contentURL.host?.lowercased() == url.host?.lowercased() else {
            throw CMISError(
                .invalidResponse,
                "the content link of object \(objectId) points at another host (\(contentURL.host ?? "none")) than "
                    + "the repository's (\(url.host ?? "none")): it is not followed with the repository's credentials")
        }
        var request = HTTPClient.Request(
            .get, url: contentURL, operation: Self.contentOperation(objectId, streamId: streamId))
        request.range = range
        return request
    }

    /// Where the rendition `streamId` of an entry is read: its `alternate` link. AtomPub links carry no stream id,
    /// so the link is the one whose `streamId` query item names it, else the one at the rendition's place among
    /// the entry's rendition links (servers write both lists in the same order; a rendition known only by its link
    /// is `alternate-N`, the Nth of them).
    static func renditionLink(_ streamId: String, of entry: AtomPubEntry, objectId: String) throws -> String {
        let links = entry.links.alternates.filter { $0.renditionKind != nil }
        let named = links.first { link in
            URLComponents(string: link.href)?.queryItems?.contains { $0.name == "streamId" && $0.value == streamId }
                ?? false
        }
        if let named { return named.href }
        let renditions = entry.object.renditions
        if let index = renditions.firstIndex(where: { $0.streamId == streamId }), renditions.count == links.count {
            return links[index].href
        }
        throw CMISError(
            .objectNotFound,
            "object \(objectId) has no rendition stream \(streamId.prefix(200)) (its entry lists "
                + "\(renditions.count) renditions and \(links.count) rendition links)")
    }
}
