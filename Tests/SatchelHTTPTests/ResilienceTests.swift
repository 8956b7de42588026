import Foundation
import SatchelHTTP
import SatchelTestSupport
import Testing

@Suite("Timeouts, retries, cancellation and hostile servers")
struct ResilienceTests {
    @Test("a timeout is an error value")
    func timeout() async throws {
        try await withServer { server, _ async throws in
            let client = makeClient(timeout: .milliseconds(300))
            let started = ContinuousClock.now
            let error = await #expect(throws: HTTPTransferError.self) {
                try await client.send(HTTPClient.Request(url: server.url("/slow?ms=8000")))
            }
            #expect(error?.code == .timeout)
            #expect(ContinuousClock.now - started < .seconds(6))  // well before the answer would have come

            var generous = HTTPClient.Request(url: server.url("/slow?ms=100"))
            generous.timeout = .seconds(30)  // the whole suite runs in parallel on two cores
            #expect(try await client.send(generous).status == 200)
        }
    }

    @Test("idempotent requests are retried on 503 and 429; a POST is not, unless it is repeatable")
    func retries() async throws {
        try await withServer { server, state async throws in
            let client = makeClient()
            #expect(try await client.send(HTTPClient.Request(url: server.url("/flaky?key=g&fail=2"))).status == 200)
            #expect(state.attempts("g") == 3)

            _ = try await client.send(HTTPClient.Request(url: server.url("/flaky?key=t&fail=1&status=429")))
            #expect(state.attempts("t") == 2)

            let exhausted = await #expect(throws: HTTPTransferError.self) {
                try await client.send(HTTPClient.Request(url: server.url("/flaky?key=x&fail=5")))
            }
            #expect(exhausted?.code == .serviceUnavailable)
            #expect(state.attempts("x") == 3)

            let post = await #expect(throws: HTTPTransferError.self) {
                try await client.send(HTTPClient.Request(.post, url: server.url("/flaky?key=p"), body: .text("once")))
            }
            #expect(post?.code == .serviceUnavailable)
            #expect(state.attempts("p") == 1)

            var repeatable = HTTPClient.Request(.post, url: server.url("/flaky?key=r"), body: .text("again"))
            repeatable.repeatabilityID = UUID().uuidString
            _ = try? await client.send(repeatable)
            #expect(state.attempts("r") == 3)
        }
    }

    @Test("Retry-After is honoured")
    func retryAfter() async throws {
        try await withServer { server, state async throws in
            let started = ContinuousClock.now
            _ = try await makeClient().send(HTTPClient.Request(url: server.url("/flaky?key=ra&fail=1&retryAfter=1")))
            #expect(ContinuousClock.now - started >= .seconds(1))
            #expect(state.attempts("ra") == 2)

            var policy = RetryPolicy(maximumAttempts: 3, initialDelay: .milliseconds(10))
            policy.maximumRetryAfter = .seconds(5)
            let impatient = makeClient(retry: policy)
            let error = await #expect(throws: HTTPTransferError.self) {
                try await impatient.send(HTTPClient.Request(url: server.url("/flaky?key=long&fail=1&retryAfter=3600")))
            }
            #expect(error?.code == .serviceUnavailable)
            #expect(error?.responseHeaders?["Retry-After"] == "3600")
            #expect(state.attempts("long") == 1)
        }
    }

    @Test("cancelling the task cancels the request", arguments: ["memory", "file"])
    func cancellation(destination: String) async throws {
        try await withServer { server, _ async throws in
            let client = makeClient()
            let directory = try temporaryDirectory()
            let file = directory.appendingPathComponent("partial.bin")
            let task = Task {
                let request = HTTPClient.Request(url: server.url("/drip?chunks=300&ms=100"))
                if destination == "file" {
                    try await client.download(request, to: file)
                } else {
                    try await client.send(request)
                }
            }
            try await Task.sleep(for: .milliseconds(300))
            let started = ContinuousClock.now
            task.cancel()
            let result = await task.result
            #expect(ContinuousClock.now - started < .seconds(8))  // the drip would take 30 s
            guard case .failure(let error as HTTPTransferError) = result else {
                Issue.record("expected a cancellation error, got \(result)")
                return
            }
            #expect(error.code == .cancelled)
            #expect(!FileManager.default.fileExists(atPath: file.path))
            let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(leftovers.isEmpty)
        }
    }

    @Test("a refused connection is a connection error, retried for GET")
    func connectionRefused() async throws {
        // Bound and never listening: refused, and no other test's server can take the port meanwhile.
        let refusing = try RefusingPort()
        let port = refusing.port
        let error = await #expect(throws: HTTPTransferError.self) {
            try await makeClient().send(HTTPClient.Request(url: URL(string: "http://127.0.0.1:\(port)/")!))
        }
        #expect(error?.code == .connection)
        #expect(error?.url?.port == port)
        withExtendedLifetime(refusing) {}
    }

    @Test("a server that drops the connection mid-body gives an error, and nothing is written")
    func droppedMidBody() async throws {
        try await withServer { server, _ async throws in
            let client = makeClient(retry: .never)
            let error = await #expect(throws: HTTPTransferError.self) {
                try await client.send(HTTPClient.Request(url: server.url("/cut?length=100000&send=5000")))
            }
            #expect([.connection, .invalidResponse].contains(error?.code))

            let directory = try temporaryDirectory()
            let file = directory.appendingPathComponent("keep.txt")
            try Data("precious".utf8).write(to: file)
            _ = await #expect(throws: HTTPTransferError.self) {
                try await client.download(HTTPClient.Request(url: server.url("/cut?length=100000&send=5000")), to: file)
            }
            #expect(try Data(contentsOf: file) == Data("precious".utf8))
        }
    }

    @Test(
        "malformed and oversized response headers give a clear error, never a crash",
        arguments: [
            "HTTP/1.1 200 OK\r\nContent-Length: 5\r\nThis line has no colon\r\n\r\nhello",
            "HTTP/1.1 abc Broken\r\n\r\n",
            "NOT HTTP AT ALL\r\n\r\n",
            "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\nshort",
            "HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "x", count: 300_000) + "\r\nContent-Length: 2\r\n\r\nok",
            "HTTP/1.1 200 OK\r\nContent-Length: -5\r\n\r\n",
        ]
    )
    func malformedHeaders(response: String) async throws {
        let raw = try RawTCPServer(response: Array(response.utf8))
        defer { raw.stop() }
        let client = makeClient(retry: .never)
        let error = await #expect(throws: HTTPTransferError.self) {
            try await client.send(HTTPClient.Request(url: raw.url))
        }
        #expect([.invalidResponse, .connection].contains(error?.code))
        #expect(error?.url == raw.url)
        #expect(error?.description.contains("127.0.0.1") == true)
    }
}
