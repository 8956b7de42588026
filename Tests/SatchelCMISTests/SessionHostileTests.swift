import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelTestSupport
import Testing

/// A server that answers the service URL with something that is not a CMIS repository list: every answer must
/// become a `CMISError` with a code a caller can act on, and nothing may crash.
@Suite("CMIS session against hostile servers")
struct SessionHostileTests {
    static func http(_ status: String, _ type: String, _ body: String) -> String {
        "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.utf8.count)\r\n"
            + "Connection: close\r\n\r\n\(body)"
    }

    static let cases: [(name: String, response: String, codes: [CMISError.Code])] = [
        (
            "an HTML login page",
            http(
                "200 OK", "text/html",
                #"<html><head><title>Logon</title></head><form><input type="password"></form></html>"#),
            [.unauthorized]
        ),
        ("truncated JSON", http("200 OK", "application/json", #"{"A1":{"repositoryId":"A1","re"#), [.invalidResponse]),
        ("JSON of the wrong shape", http("200 OK", "application/json", "[1, 2, 3]"), [.invalidResponse]),
        (
            "an HTML error page with status 500",
            http("500 Internal Server Error", "text/html", "<html><head><title>Proxy Error</title></head></html>"),
            [.runtime]
        ),
        (
            "a CMIS exception with status 403",
            http("403 Forbidden", "application/json", #"{"exception":"permissionDenied","message":"nope"}"#),
            [.permissionDenied]
        ),
        (
            "a connection closed mid-body",
            "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 5000\r\n\r\n" + #"{"A1":{"#,
            [.connection, .invalidResponse]
        ),
    ]

    @Test("each bad answer is a CMISError, not a crash", arguments: 0..<cases.count)
    func hostile(_ index: Int) async throws {
        let (name, response, codes) = Self.cases[index]
        let server = try RawTCPServer(response: Array(response.utf8))
        defer { server.stop() }
        var parameters = SessionParameters(url: server.url, auth: [])
        parameters.transport = SocketTransport()
        do {
            let repositories = try await CMISSession.repositories(parameters)
            Issue.record("\(name): expected an error, got \(repositories.count) repositories")
        } catch let error as CMISError {
            #expect(codes.contains(error.code), "\(name): \(error)")
            #expect(!error.message.isEmpty)
        }
    }
}
