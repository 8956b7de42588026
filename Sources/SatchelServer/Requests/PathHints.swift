import Hummingbird
import SatchelCMISCore

/// The answer to a path no API serves: a 404 that says where the APIs are, and which path was probably meant when
/// the request is one prefix off (a Nuxeo client given the server's root instead of `…/nuxeo`, a CMIS client given
/// `…/browser` instead of `…/cmis/browser`). A Nuxeo-shaped path gets Nuxeo's exception entity, anything else the
/// Browser binding's error object, so each client shows the message as the server's own.
enum PathHints {
    /// The longest part of the request's path quoted back: enough to recognise, never a large echo.
    static let quotedPathLimit = 200

    /// Prefixes one step off an API root, and the root they were probably meant for.
    static let misplaced: [(prefix: String, root: String, api: String)] = [
        ("/api/v1", "/nuxeo", "the Nuxeo REST API"),
        ("/site/api/v1", "/nuxeo", "the Nuxeo REST API"),
        ("/site/automation", "/nuxeo", "Nuxeo Automation"),
        ("/browser", "/cmis", "the CMIS Browser binding"),
        ("/atom", "/cmis", "CMIS AtomPub"),
        ("/b/json", "/mcm", "the SAP Mobile Documents Browser binding"),
        ("/b/atom", "/mcm", "SAP Mobile Documents AtomPub"),
    ]

    /// Where each API lives, as the general hint lists them.
    static let apis =
        "the CMIS Browser binding at \(MountPoints.cmisBrowser), CMIS AtomPub at \(MountPoints.cmisAtom), "
        + "SAP Mobile Documents at \(MountPoints.mobileDocumentsBrowser) and \(MountPoints.mobileDocumentsAtom), "
        + "the Nuxeo REST API at \(NuxeoRoutes.apiRoot) and offline OData endpoints under /offline/NAME/ (when "
        + "configured); /cmis-endpoints.json lists the repositories"

    /// The 404 for `path`, which no route serves and no API's prefix covers.
    static func response(for path: String) -> Response {
        let quoted = path.count > quotedPathLimit ? String(path.prefix(quotedPathLimit)) + "…" : path
        for entry in misplaced where path == entry.prefix || path.hasPrefix(entry.prefix + "/") {
            let meant = String((entry.root + path).prefix(quotedPathLimit))
            let message = "no API at \(quoted): \(entry.api) is under \(entry.root) (did you mean \(meant)?)"
            if entry.root == "/nuxeo" { return NuxeoHandler.exception(404, message) }
            return CMISErrorResponse.json(CMISError(.objectNotFound, message), status: .notFound)
        }
        let message = "no API at \(quoted): this server serves \(apis)"
        return CMISErrorResponse.json(CMISError(.objectNotFound, message), status: .notFound)
    }
}
