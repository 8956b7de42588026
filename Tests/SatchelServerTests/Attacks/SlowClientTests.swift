import Foundation
import SatchelHTTP
import SatchelServer
import SatchelTestSupport
import Testing

extension Attacks {
    /// Slow clients (slowloris): connections that send nothing, headers that never end, bodies that stop, and one
    /// address holding every connection. Each is closed or refused within its limit, and the server keeps answering.
    @Suite("Slow clients")
    struct SlowClients {
        static let limits = ConnectionLimits(
            idleTimeout: .seconds(1), bodyTimeout: .seconds(1), maximumConnectionsPerAddress: 4)

        static func start(limits: ConnectionLimits = limits) async throws -> ServerHarness {
            try await ServerHarness.start(configure: { $0.connectionLimits = limits })
        }

        @Test func silentAndHalfSentHeadersAreClosed() async throws {
            let harness = try await Self.start()
            try await withCleanup { () async throws in
                let silent = try RawTCPClient(port: harness.running.port)
                let trickle = try RawTCPClient(port: harness.running.port)
                try trickle.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n")
                // One header line every 200 ms: never complete.
                let feeding = Task {
                    for index in 0..<40 {
                        try? trickle.send("X-Slow-\(index): a\r\n")
                        try? await Task.sleep(for: .milliseconds(200))
                    }
                }
                defer { feeding.cancel() }
                let silentClosed = await silent.waitUntilClosed(within: .seconds(5))
                let trickleClosed = await trickle.waitUntilClosed(within: .seconds(5))
                #expect(silentClosed != nil, "an idle connection stayed open")
                #expect(trickleClosed != nil, "a request whose headers never end kept its connection")
                #expect(trickle.received.isEmpty)
                #expect(try await harness.send(.get, "/health").status == 200)
            } cleanup: {
                await harness.stop()
            }
        }

        @Test func aBodyThatStopsIsClosed() async throws {
            let harness = try await Self.start()
            try await withCleanup { () async throws in
                let stalled = try RawTCPClient(port: harness.running.port)
                let basic = ServerHarness.basic("alice")
                try stalled.send(
                    "POST /cmis/browser/shared/root HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: \(basic)\r\n"
                        + "Content-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\n"
                        + "cmisaction=")
                #expect(await stalled.waitUntilClosed(within: .seconds(5)) != nil, "a stalled body kept its connection")
                #expect(try await harness.send(.get, "/health").status == 200)
            } cleanup: {
                await harness.stop()
            }
        }

        @Test func oneAddressCannotHoldEveryConnection() async throws {
            // Idle connections are not closed during this test: only the cap is.
            let harness = try await Self.start(limits: ConnectionLimits(maximumConnectionsPerAddress: 4))
            try await withCleanup { () async throws in
                var held: [RawTCPClient] = []
                for _ in 0..<4 {
                    // Served once (so the server holds it, however loaded the machine), then left open.
                    let client = try RawTCPClient(port: harness.running.port)
                    try client.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
                    #expect(await client.waitForData(within: .seconds(5)), "a held connection was not served")
                    held.append(client)
                }
                let fifth = try RawTCPClient(port: harness.running.port)
                #expect(await fifth.waitUntilClosed(within: .seconds(5)) != nil, "a fifth connection was accepted")
                #expect(held.allSatisfy { $0.poll() }, "the first four were closed")
                // Once one goes, a new connection is served.
                held.removeFirst()
                try await Task.sleep(for: .milliseconds(100))
                let next = try RawTCPClient(port: harness.running.port)
                try next.send("GET /health HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n")
                _ = await next.waitUntilClosed(within: .seconds(5))
                #expect(String(decoding: next.received, as: UTF8.self).hasPrefix("HTTP/1.1 200"))
            } cleanup: {
                await harness.stop()
            }
        }
    }
}
