import Foundation
import SatchelHTTP
import SatchelTestSupport
import Testing

/// The suites above run over the platform's default transport (on Linux, sockets for `http`); this one checks
/// that URLSession, which carries `https` and is the default on Apple platforms, gives the same results.
///
/// `scripts/test` runs this suite in a phase of its own: under the load of the other suites, swift-corelibs
/// URLSession was seen to stall transfers (the transport's watchdog then reports a timeout).
@Suite("URLSessionTransport against a loopback server", .serialized)
struct URLSessionTransportTests {
    /// One server for the whole suite, left running until the test process exits: stopping a Hummingbird server
    /// while libcurl still reaches for it crashed NIO ("Deinited NIOAsyncWriter without calling finish()").
    static let server = Task { try await TestHTTPServer.startStandard() }

    @Test(
        "the same exchanges over URLSession",
        arguments: ["redirect+cookies", "json", "upload", "download", "range", "status", "timeout", "cancel"]
    )
    func exchange(_ name: String) async throws {
        do {
            let server = try await Self.server.value
            let client = makeClient(timeout: .seconds(30), transport: URLSessionTransport())
            switch name {
            case "redirect+cookies":
                let response = try await client.send(HTTPClient.Request(url: server.url("/set-cookie")))
                #expect(try response.decode(Inspection.self).header("Cookie")?.contains("session=abc123") == true)
            case "json":
                let response = try await client.send(
                    HTTPClient.Request(.post, url: server.url("/echo"), body: .json(["a": "1"])))
                #expect(response.text == #"{"a":"1"}"#)
            case "upload":
                let file = try temporaryDirectory().appendingPathComponent("up.bin")
                try TestHTTPServer.pattern(count: 2_000_000).write(to: file)
                let response = try await client.upload(
                    HTTPClient.Request(.put, url: server.url("/sink")), fromFile: file)
                let result = try response.decode(SinkResult.self)
                #expect(result.received == 2_000_000 && result.matchesPattern)
            case "download":
                let file = try temporaryDirectory().appendingPathComponent("down.bin")
                try await client.download(HTTPClient.Request(url: server.url("/bytes/2000000")), to: file)
                #expect(try Data(contentsOf: file) == TestHTTPServer.pattern(count: 2_000_000))
            case "range":
                var request = HTTPClient.Request(url: server.url("/bytes/5000"))
                request.range = .suffix(10)
                let response = try await client.send(request)
                #expect(response.status == 206 && response.body == TestHTTPServer.pattern(count: 10, from: 4990))
            case "status":
                let error = await #expect(throws: HTTPTransferError.self) {
                    try await client.send(HTTPClient.Request(url: server.url("/status/404")))
                }
                #expect(error?.code == .notFound && error?.serverMessage == "status 404 as requested")
            case "timeout":
                var request = HTTPClient.Request(url: server.url("/slow?ms=3000"))
                request.timeout = .milliseconds(300)
                let error = await #expect(throws: HTTPTransferError.self) { try await client.send(request) }
                #expect(error?.code == .timeout)
            default:
                let task = Task { try await client.send(HTTPClient.Request(url: server.url("/drip?chunks=50&ms=100"))) }
                try await Task.sleep(for: .milliseconds(200))
                task.cancel()
                guard case .failure(let error as HTTPTransferError) = await task.result else {
                    Issue.record("expected a cancellation error")
                    return
                }
                #expect(error.code == .cancelled)
            }
        }
    }
}
