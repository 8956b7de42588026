import Foundation
import HTTPTypes
import Hummingbird
import SatchelText

/// The absolute URLs of one request's AtomPub resources: `<scheme>://<host><mount>/<repository>/<resource>?id=…`.
///
/// Built from ``Hummingbird/Request/serverBaseURL(_:)`` (the request's Host, or a trusted proxy's forwarded
/// headers), so links work whatever name the client used to reach the server.
struct AtomPubURLs: Sendable {
    /// The mount point's absolute URL, without a trailing slash (the service document's URL).
    var service: String

    init(service: String) { self.service = service }

    init(request: Request, context: ServerRequestContext, mountPath: String) {
        var mount = mountPath.hasPrefix("/") ? mountPath : "/" + mountPath
        while mount.hasSuffix("/") { mount.removeLast() }
        service = request.serverBaseURL(context) + mount
    }

    /// `<service>/<repository>/<resource>?name=value&…`, each part percent-encoded.
    func url(_ repositoryId: String, _ resource: String, _ query: [(String, String?)] = []) -> String {
        var text = service + "/" + Self.encode(repositoryId) + "/" + resource
        let items = query.compactMap { name, value in value.map { Self.encode(name) + "=" + Self.encode($0) } }
        if !items.isEmpty { text += "?" + items.joined(separator: "&") }
        return text
    }

    func entry(_ repositoryId: String, id: String) -> String { url(repositoryId, "entry", [("id", id)]) }

    /// Percent-encodes everything but RFC 3986 unreserved characters.
    static func encode(_ value: String) -> String { PercentEncoding.encode(value) }
}
