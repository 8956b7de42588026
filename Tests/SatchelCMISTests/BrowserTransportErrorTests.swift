import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import Testing

/// What the client adds to the Browser binding's errors: the transport's failure behind each one.
@Suite("Browser binding: the transport's failure behind an error")
struct BrowserTransportErrorTests {
    @Test(
        "without a readable exception the status decides, and the transport's failure stays behind the error",
        arguments: [
            (400, CMISError.Code.invalidArgument), (401, .unauthorized), (403, .permissionDenied),
            (404, .objectNotFound), (405, .notSupported), (409, .constraint), (500, .runtime), (503, .runtime),
        ])
    func statusFallback(status: Int, code: CMISError.Code) {
        let httpError = HTTPTransferError(.server, "HTTP \(status)", status: status)
        let error = CMISError.browser(status: status, body: Data("<html>oops</html>".utf8), httpError: httpError)
        #expect(error.code == code)
        #expect(error.httpError?.status == status)
    }

    @Test("a transport failure without a status is a connection error")
    func transport() {
        #expect(CMISError.transport(HTTPTransferError(.connection, "refused")).code == .connection)
        #expect(CMISError.transport(HTTPTransferError(.unauthorized, "no", status: 401)).code == .unauthorized)
    }
}
