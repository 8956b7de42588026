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

    @Test("the same exchanges over URLSession", arguments: TransportExchanges.names)
    func exchange(_ name: String) async throws {
        let client = makeClient(timeout: .seconds(30), transport: URLSessionTransport())
        try await TransportExchanges.check(name, client: client, server: Self.server.value, prompt: false)
    }
}
