import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelJSON
import SatchelNuxeo
import Testing

/// A client one path step off an API (the server's root, a Nuxeo URL without `/nuxeo`) is told where the API is,
/// through its own error type, instead of a bare 404.
@Suite("Path hints")
struct PathHintTests {
    static let server = Task { try await ServerHarness.start() }
    var harness: ServerHarness { get async throws { try await Self.server.value } }

    @Test("a CMIS session opened at the server's root names the bindings' paths")
    func cmisAtRoot() async throws {
        let harness = try await harness
        var parameters = SessionParameters(url: harness.url("/"))
        parameters.auth = [BasicAuth(user: "alice", password: "pw-alice")]
        parameters.http = ServerHarness.noRetries
        let error = await #expect(throws: CMISError.self) { _ = try await CMISSession.connect(parameters) }
        #expect(error?.code == .objectNotFound)
        #expect(error?.status == 404)
        let message = error?.message ?? ""
        #expect(message.contains("no API at /"), "\(message)")
        for path in ["/cmis/browser", "/cmis/atom", "/mcm/b/json", "/nuxeo/api/v1"] {
            #expect(message.contains(path), "the hint names \(path): \(message)")
        }
    }

    @Test("a CMIS URL without /cmis is told the path it meant", arguments: ["/browser", "/atom/shared"])
    func cmisOneStepOff(path: String) async throws {
        let response = try await harness.send(.get, path, user: "alice")
        #expect(response.status == 404)
        #expect(exception(response) == "objectNotFound")
        let body = String(decoding: response.body, as: UTF8.self)
        #expect(body.contains("did you mean /cmis\(path)?"), "\(body)")
    }

    @Test("a Nuxeo session without /nuxeo gets a Nuxeo exception naming the path it meant")
    func nuxeoWithoutPrefix() async throws {
        let harness = try await harness
        let nuxeo = NuxeoSession(
            configuration: .init(
                serverURL: harness.url("/"), http: ServerHarness.noRetries,
                auth: [BasicAuth(user: "alice", password: "pw-alice")]))
        let error = await #expect(throws: NuxeoError.self) { _ = try await nuxeo.document(path: "/") }
        #expect(error?.status == 404)
        let text = String(describing: error)
        #expect(text.contains("the Nuxeo REST API is under /nuxeo"), "\(text)")
        #expect(text.contains("did you mean /nuxeo/api/v1/path?"), "\(text)")
    }

    @Test("the hint quotes at most 200 characters of the path, and an API's own 404 is left as it was")
    func boundedAndOnlyOutsideAPIs() async throws {
        let long = "/" + String(repeating: "x", count: 5_000)
        let response = try await harness.send(.get, long, user: nil)
        #expect(response.status == 404)
        #expect(response.body.count < 1_000, "the answer does not echo a long path: \(response.body.count) bytes")
        // Under an API's prefix the API answers for itself (here: an unknown repository of the Browser binding).
        let inside = try await harness.send(.get, "/cmis/browser/no-such-repository", user: "alice")
        #expect(inside.status == 404)
        #expect(!String(decoding: inside.body, as: UTF8.self).contains("no API at"))
    }
}
