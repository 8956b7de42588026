import Foundation
import SatchelCMIS
import SatchelCMISCore
import Testing

/// How the AtomPub client reads a server's error body: the exception and message a CMIS server writes into its HTML
/// page, or the status alone.
@Suite("AtomPub binding: error bodies")
struct AtomPubErrorBodyTests {
    @Test(
        "error bodies map to CMIS exceptions",
        arguments: [
            (
                404,
                "<html><head><title>Apache Chemistry OpenCMIS - objectNotFound error</title></head><body>"
                    + "<h1>objectNotFound</h1><p><!--message-->Unknown object &lt;42&gt;<!--/message--></p>"
                    + "Exception: <!--exception-->objectNotFound<!--/exception--></body></html>",
                CMISError.Code.objectNotFound, "Unknown object <42>"
            ),
            (409, "<html><head><title>updateConflict</title></head></html>", .updateConflict, "HTTP status 409"),
            (
                500, "<!--exception-->storage<!--/exception--><!--message-->disk full<!--/message-->", .storage,
                "disk full"
            ),
            (403, "Forbidden", .permissionDenied, "HTTP status 403"),
            (401, "<!--exception-->permissionDenied<!--/exception-->", .unauthorized, "HTTP status 401"),
            (502, "", .runtime, "HTTP status 502"),
        ])
    func errorBodies(status: Int, body: String, code: CMISError.Code, message: String) {
        let error = CMISError.atomPub(status: status, body: Data(body.utf8))
        #expect(error.code == code)
        #expect(error.status == status)
        #expect(error.message == message)
    }
}
