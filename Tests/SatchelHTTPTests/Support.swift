import Foundation
import SatchelHTTP
import SatchelTestSupport
import Testing

/// Runs `body` against a fresh standard test server on 127.0.0.1, and stops it afterwards.
func withServer(
    _ body: (TestHTTPServer, TestServerState) async throws -> Void
) async throws {
    let state = TestServerState()
    let server = try await TestHTTPServer.startStandard(state: state)
    do {
        try await body(server, state)
        await server.stop()
    } catch {
        await server.stop()
        throw error
    }
}

/// A client with fast retries, so tests don't wait for production backoff; the platform's default transport unless
/// one is given.
func makeClient(
    auth: [any HTTPAuthProvider] = [],
    timeout: Duration = .seconds(10),
    retry: RetryPolicy = RetryPolicy(
        maximumAttempts: 3, initialDelay: .milliseconds(10), maximumDelay: .milliseconds(50)),
    baseURL: URL? = nil,
    transport: (any HTTPTransport)? = nil
) -> HTTPClient {
    let configuration = HTTPClient.Configuration(baseURL: baseURL, timeout: timeout, retry: retry)
    guard let transport else { return HTTPClient(configuration: configuration, auth: auth) }
    return HTTPClient(configuration: configuration, transport: transport, auth: auth)
}

/// The JSON object `/inspect` returns.
struct Inspection: Decodable {
    var method: String
    var path: String
    var query: String
    var headers: [String: String]
    var bodyLength: Int
    var body: String

    func header(_ name: String) -> String? {
        headers.first { $0.key.lowercased() == name.lowercased() }?.value
    }
}

func temporaryDirectory() throws -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-tests-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}
