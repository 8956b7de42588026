import Foundation
import SatchelCMISCore

/// What a Nuxeo API path names, decided once: the repository (`repo/{name}/…`, `default` or nothing for the shared
/// one) and the decoded segments after it.
///
/// The XSRF check and the handler both read this value, so they cannot disagree about the repository: a segment
/// spelled with escapes (`%72epo/mydocs-alice`) is decoded before anything looks at it, and a path whose escapes do
/// not decode to UTF-8 is refused.
struct NuxeoAddress: Equatable {
    /// The CMIS repository the request acts on.
    var repository: String
    /// The decoded segments after the API root and the `repo/{name}` prefix.
    var segments: [String]

    /// Reads a path under ``NuxeoRoutes/apiRoot`` or ``NuxeoRoutes/siteAPIRoot``.
    init(path: String, defaultRepository: String) throws(CMISError) {
        let root = path.hasPrefix(NuxeoRoutes.siteAPIRoot) ? NuxeoRoutes.siteAPIRoot : NuxeoRoutes.apiRoot
        var segments = try Self.segments(of: path, below: root)
        repository = defaultRepository
        if segments.first == "repo", segments.count >= 2 {
            repository = segments[1] == "default" ? defaultRepository : segments[1]
            segments.removeFirst(2)
        }
        self.segments = segments
    }

    /// The decoded segments of `path` after `root`.
    static func segments(of path: String, below root: String) throws(CMISError) -> [String] {
        try FormDecoding.pathSegments(path.dropFirst(root.count))
    }

    /// Whether a `Content-Type` names JSON: `application/json` or a `+json` type (`application/json+nxrequest`,
    /// Nuxeo's own, is one too), with any parameters. A type that merely mentions JSON (`text/plain; x=json`, which
    /// a page on another site may send without asking) is not.
    static func isJSONMediaType(_ contentType: String) -> Bool {
        let mediaType = contentType.split(separator: ";", maxSplits: 1, omittingEmptySubsequences: false)[0]
        let parts = mediaType.split(separator: "/", omittingEmptySubsequences: false)
        guard parts.count == 2 else { return false }
        let type = parts[0].trimmingCharacters(in: .whitespaces).lowercased()
        let subtype = parts[1].trimmingCharacters(in: .whitespaces).lowercased()
        guard type == "application" else { return false }
        return subtype == "json" || subtype.hasSuffix("+json") || subtype.hasPrefix("json+")
    }
}
