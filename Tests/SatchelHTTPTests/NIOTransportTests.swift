import Foundation
import SatchelHTTP
import SatchelTestSupport
import Synchronization
import Testing

#if os(Linux)
    /// The NIO transport (async-http-client) against the loopback test server: the exchanges every transport must
    /// get right, and the cases swift-corelibs URLSession gets wrong (a 401 with a challenge, concurrent transfers).
    @Suite("NIOTransport against a loopback server", .serialized)
    struct NIOTransportTests {
        static let server = Task { try await TestHTTPServer.startStandard() }

        func client(timeout: Duration = .seconds(30), auth: [any HTTPAuthProvider] = []) throws -> HTTPClient {
            HTTPClient(
                configuration: HTTPClient.Configuration(timeout: timeout, retry: .never),
                transport: NIOTransport.shared,
                auth: auth)
        }

        @Test(
            "the exchanges every transport gets right",
            arguments: ["redirect+cookies", "json", "upload", "download", "range", "status", "timeout", "cancel"])
        func exchange(_ name: String) async throws {
            let server = try await Self.server.value
            let client = try client()
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
                try TestHTTPServer.pattern(count: 3_000_000).write(to: file)
                let progress = ProgressLog()
                let response = try await client.upload(
                    HTTPClient.Request(.put, url: server.url("/sink")), fromFile: file, progress: progress.record)
                let result = try response.decode(SinkResult.self)
                #expect(result.received == 3_000_000 && result.matchesPattern)
                #expect(progress.lastSent == 3_000_000)
            case "download":
                let file = try temporaryDirectory().appendingPathComponent("down.bin")
                let progress = ProgressLog()
                try await client.download(
                    HTTPClient.Request(url: server.url("/bytes/3000000")), to: file, progress: progress.record)
                #expect(try Data(contentsOf: file) == TestHTTPServer.pattern(count: 3_000_000))
                #expect(progress.lastReceived == 3_000_000)
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
                let start = ContinuousClock.now
                let error = await #expect(throws: HTTPTransferError.self) { try await client.send(request) }
                #expect(error?.code == .timeout, "\(String(describing: error))")
                #expect(ContinuousClock.now - start < .seconds(3))
            default:
                let task = Task { try await client.send(HTTPClient.Request(url: server.url("/drip?chunks=50&ms=100"))) }
                try await Task.sleep(for: .milliseconds(200))
                let start = ContinuousClock.now
                task.cancel()
                guard case .failure(let error as HTTPTransferError) = await task.result else {
                    Issue.record("expected a cancellation error")
                    return
                }
                #expect(error.code == .cancelled)
                #expect(ContinuousClock.now - start < .seconds(2))
            }
        }

        @Test("a 401 with a Basic challenge is answered with the credentials (corelibs URLSession stalls on it)")
        func challenge() async throws {
            let server = try await Self.server.value
            let refused = await #expect(throws: HTTPTransferError.self) {
                try await client().send(HTTPClient.Request(url: server.url("/basic/protected")))
            }
            #expect(refused?.code == .unauthorized)
            let signedIn = try client(auth: [
                BasicAuth(user: TestHTTPServer.user, password: TestHTTPServer.password, mode: .onChallenge)
            ])
            let response = try await signedIn.send(HTTPClient.Request(url: server.url("/basic/protected")))
            #expect(response.status == 200)
        }

        @Test("twenty transfers at once all arrive whole")
        func concurrent() async throws {
            let server = try await Self.server.value
            let client = try client()
            let sizes = (0..<20).map { 100_000 + $0 * 7_919 }
            try await withThrowingTaskGroup(of: Bool.self) { group in
                for size in sizes {
                    group.addTask {
                        let response = try await client.send(HTTPClient.Request(url: server.url("/bytes/\(size)")))
                        return response.body == TestHTTPServer.pattern(count: size)
                    }
                }
                for try await whole in group { #expect(whole) }
            }
        }

        @Test("nothing listening: a connection error naming the host, at once")
        func refused() async throws {
            let port = try RefusingPort()
            let start = ContinuousClock.now
            let error = await #expect(throws: HTTPTransferError.self) {
                try await client().send(HTTPClient.Request(url: URL(string: "http://127.0.0.1:\(port.port)/")!))
            }
            #expect(error?.code == .connection, "\(String(describing: error))")
            #expect(ContinuousClock.now - start < .seconds(5))
        }

        @Test("proxies from the environment: NO_PROXY wins, HTTPS_PROXY for https, HTTP_PROXY for http")
        func environmentProxy() {
            let environment = [
                "HTTPS_PROXY": "http://proxy.example.com:3128", "http_proxy": "proxy.example.com:8080",
                "NO_PROXY": "localhost,.internal.example.com",
            ]
            #expect(
                NIOTransport.Proxy.fromEnvironment(scheme: "https", host: "api.example.com", environment: environment)
                    == NIOTransport.Proxy(host: "proxy.example.com", port: 3128))
            #expect(
                NIOTransport.Proxy.fromEnvironment(scheme: "http", host: "api.example.com", environment: environment)
                    == NIOTransport.Proxy(host: "proxy.example.com", port: 8080))
            #expect(
                NIOTransport.Proxy.fromEnvironment(
                    scheme: "https", host: "cmis.internal.example.com", environment: environment) == nil)
            #expect(
                NIOTransport.Proxy.fromEnvironment(scheme: "https", host: "localhost", environment: environment) == nil)
            #expect(NIOTransport.Proxy.fromEnvironment(scheme: "https", host: "x", environment: [:]) == nil)
        }
    }

    /// Progress reports, kept for the test.
    final class ProgressLog: Sendable {
        private let state = Mutex<(sent: Int64, received: Int64)>((0, 0))
        var lastSent: Int64 { state.withLock { $0.sent } }
        var lastReceived: Int64 { state.withLock { $0.received } }
        var record: @Sendable (TransferProgress) -> Void {
            { progress in
                self.state.withLock { state in
                    switch progress.direction {
                    case .upload: state.sent = max(state.sent, progress.bytesDone)
                    case .download: state.received = max(state.received, progress.bytesDone)
                    }
                }
            }
        }
    }
#endif
