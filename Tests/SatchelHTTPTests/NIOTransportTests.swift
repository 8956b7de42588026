import Foundation
import SatchelHTTP
import SatchelTestSupport
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

        @Test("the exchanges every transport gets right, promptly", arguments: TransportExchanges.names)
        func exchange(_ name: String) async throws {
            try await TransportExchanges.check(name, client: client(), server: Self.server.value, prompt: true)
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

#endif
