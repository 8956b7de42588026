import Foundation
import Synchronization
import Testing

@testable import SatchelHTTP
import SatchelTestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// SocketTransport against a scripted loopback server: each test says byte for byte what the server answers, so
/// framing, keep-alive, broken connections and hostile heads can be tested exactly.
@Suite struct SocketTransportTests {
    @Test func contentLengthBodyAndInterimResponse() async throws {
        let server = try ScriptedTCPServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.write(
                "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 5\r\nX-A:  b \r\n\r\nhello")
        }
        defer { server.stop() }
        let response = try await SocketTransport().perform(server.request("/a"))
        #expect(response.status == 200)
        #expect(String(decoding: response.body, as: UTF8.self) == "hello")
        #expect(response.headers["x-a"] == "b")
    }

    @Test func chunkedBodyWithTrailers() async throws {
        let server = try ScriptedTCPServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.write(
                "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                    + "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Sum: 1\r\n\r\n"
            )
        }
        defer { server.stop() }
        let response = try await SocketTransport().perform(server.request("/chunked"))
        #expect(String(decoding: response.body, as: UTF8.self) == "hello world")
        #expect(response.headers["X-Sum"] == nil)
    }

    @Test func untilCloseAndBodilessResponses() async throws {
        let server = try ScriptedTCPServer { connection in
            guard let request = connection.readRequest() else { return }
            if request.target == "/old" {
                connection.write("HTTP/1.0 200 OK\r\n\r\nuntil close")
                return
            }
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 7\r\n\r\n")  // HEAD: no body follows
            guard connection.readRequest() != nil else { return }
            connection.write("HTTP/1.1 204 No Content\r\n\r\n")
            guard connection.readRequest() != nil else { return }
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\nok")
        }
        defer { server.stop() }
        let transport = SocketTransport()
        let old = try await transport.perform(server.request("/old"))
        #expect(String(decoding: old.body, as: UTF8.self) == "until close")
        let head = try await transport.perform(server.request("/h", method: .head))
        #expect(head.status == 200 && head.body.isEmpty)
        let empty = try await transport.perform(server.request("/e"))
        #expect(empty.status == 204 && empty.body.isEmpty)
        let last = try await transport.perform(server.request("/l"))
        #expect(last.body == Data("ok".utf8))
        #expect(server.acceptedConnections == 2)
    }

    @Test func keepAliveReuseAndStaleConnectionRetry() async throws {
        let server = try ScriptedTCPServer { connection in
            for _ in 0..<3 {
                guard connection.readRequest() != nil else { return }
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 1\r\n\r\nx")
            }
            // A keep-alive race: the next request arrives, and the server closes without answering.
            _ = connection.readRequest()
        }
        defer { server.stop() }
        let transport = SocketTransport()
        for _ in 0..<3 { _ = try await transport.perform(server.request("/k")) }
        #expect(server.acceptedConnections == 1)
        let retried = try await transport.perform(server.request("/k"))
        #expect(retried.status == 200)
        #expect(server.acceptedConnections == 2)

        for _ in 0..<2 { _ = try await transport.perform(server.request("/k")) }
        let error = await httpError { try await transport.perform(server.request("/k", method: .post)) }
        #expect(error?.code == .connection)
        #expect(server.acceptedConnections == 2)
    }

    @Test func connectionClosedMidBody() async throws {
        let server = try ScriptedTCPServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n0123456789")
        }
        defer { server.stop() }
        let error = await httpError { try await SocketTransport().perform(server.request("/cut")) }
        #expect(error?.code == .connection)
        #expect(error?.message == "the connection closed before the whole response arrived (10 of 100 bytes)")
    }

    @Test(arguments: [
        "HTTP/1.1 200 OK\r\n" + String(repeating: "X-Field: value\r\n", count: 300) + "\r\n",
        "HTTP/1.1 200 OK\r\nX-Big: " + String(repeating: "a", count: 70_000) + "\r\n\r\n",
        "HTTP/1.1 200 OK\r\nBad Name: x\r\n\r\n",
        "HTTP/1.1 200 OK\r\nX: 1\r\n folded\r\n\r\n",
        "HTTP/2 200\r\n\r\n",
        "HTTP/1.1 200 OK\r\nContent-Length: 1, 2\r\n\r\nx",
        "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
    ])
    func hostileHeadsAreInvalidResponses(_ answer: String) async throws {
        let server = try ScriptedTCPServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.write(answer)
        }
        defer { server.stop() }
        let error = await httpError { try await SocketTransport().perform(server.request("/bad")) }
        #expect(error?.code == .invalidResponse)
    }

    @Test func oversizedHeadersMessage() async throws {
        let server = try ScriptedTCPServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.write("HTTP/1.1 200 OK\r\n" + String(repeating: "X-Field: value\r\n", count: 201) + "\r\n")
        }
        defer { server.stop() }
        let error = await httpError { try await SocketTransport().perform(server.request("/big")) }
        #expect(error?.message.hasPrefix("malformed or oversized response headers") == true)
    }

    @Test func idleTimeout() async throws {
        let server = try ScriptedTCPServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n01234")
            connection.waitForClose()
        }
        defer { server.stop() }
        let started = ContinuousClock.now
        var request = server.request("/slow")
        request.timeout = .milliseconds(300)
        let error = await httpError { try await SocketTransport().perform(request) }
        #expect(error?.code == .timeout)
        // The server never sends the rest, so an answer at all shows an idle timeout fired, and the message names
        // which one. The bound is loose: on a loaded two-core CI machine the awaiting task has been resumed 5.5 s
        // late, but it still tells this 300 ms timeout from the request's usual 10 s.
        #expect(error?.message.contains("\(Duration.milliseconds(300))") == true)
        #expect(ContinuousClock.now - started < .seconds(9))
    }

    @Test func cancellationAbortsPromptly() async throws {
        let server = try ScriptedTCPServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.waitForClose()
        }
        defer { server.stop() }
        let transport = SocketTransport()
        var request = server.request("/never")
        request.timeout = .seconds(60)
        let task = Task { try await transport.perform(request) }
        try await Task.sleep(for: .milliseconds(200))
        let started = ContinuousClock.now
        task.cancel()
        let error = await httpError { try await task.value }
        #expect(error?.code == .cancelled)
        // Far below the 60 s timeout: the cancellation ended the exchange (generous for loaded CI machines).
        #expect(ContinuousClock.now - started < .seconds(10))
    }

    @Test func connectionRefused() async throws {
        let port = try ScriptedTCPServer.unusedPort()
        let request = TransportRequest(
            method: .get,
            url: URL(string: "http://127.0.0.1:\(port)/")!,
            headers: [:],
            body: nil,
            timeout: .seconds(5),
            destination: .memory(limit: 1024)
        )
        let error = await httpError { try await SocketTransport().perform(request) }
        #expect(error?.code == .connection)
        #expect(error?.message == "could not connect to the server at 127.0.0.1:\(port)")
    }

    @Test func memoryLimit() async throws {
        let server = try ScriptedTCPServer { connection in
            while connection.readRequest() != nil {
                connection.write(
                    "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n800\r\n" + String(repeating: "a", count: 2048)
                )
                connection.write("\r\n0\r\n\r\n")
            }
        }
        defer { server.stop() }
        var request = server.request("/m")
        request.destination = .memory(limit: 1000)
        let error = await httpError { try await SocketTransport().perform(request) }
        #expect(error?.code == .responseTooLarge, "\(String(describing: error))")
    }

    @Test func fileDownloadAndUploadThroughHTTPClient() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("socket-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let payload = Data((0..<(3 * 1024 * 1024 + 17)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ $0 >> 9) })
        let server = try ScriptedTCPServer { connection in
            while let request = connection.readRequest() {
                if request.method == "GET" {
                    connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(payload.count)\r\n\r\n")
                    connection.write(payload)
                } else {
                    let same = request.body == payload ? "yes" : "no"
                    connection.write("HTTP/1.1 201 Created\r\nX-Same: \(same)\r\nContent-Length: 0\r\n\r\n")
                }
            }
        }
        defer { server.stop() }
        let client = HTTPClient(transport: SocketTransport())
        let url = URL(string: "http://127.0.0.1:\(server.port)/file")!
        let file = folder.appendingPathComponent("down.bin")
        let received = Mutex<Int64>(0)
        let downloaded = try await client.download(HTTPClient.Request(url: url), to: file) { progress in
            if progress.direction == .download { received.withLock { $0 = progress.bytesDone } }
        }
        #expect(downloaded.bodyFile == file)
        #expect(try Data(contentsOf: file) == payload)
        #expect(received.withLock { $0 } == Int64(payload.count))

        let sent = Mutex<Int64>(0)
        let uploaded = try await client.upload(HTTPClient.Request(.put, url: url), fromFile: file) { progress in
            if progress.direction == .upload { sent.withLock { $0 = progress.bytesDone } }
        }
        #expect(uploaded.status == 201)
        #expect(uploaded.headers["X-Same"] == "yes")
        #expect(sent.withLock { $0 } == Int64(payload.count))
        #expect(server.acceptedConnections == 1)
    }

    @Test func automaticTransportRoutesByScheme() {
        let transport = AutomaticTransport()
        #expect(transport.transport(for: URL(string: "http://a/")!) is SocketTransport)
        #if os(Linux)
            #expect(transport.transport(for: URL(string: "HTTPS://a/")!) is NIOTransport)
            #expect(HTTPClient.defaultTransport() is AutomaticTransport)
        #else
            #expect(transport.transport(for: URL(string: "HTTPS://a/")!) is URLSessionTransport)
            #expect(HTTPClient.defaultTransport() is URLSessionTransport)
        #endif
    }
}

/// SocketTransport through HTTPClient against the shared Hummingbird test server (a real, independent HTTP stack).
@Suite struct SocketTransportLiveServerTests {
    @Test func downloadUploadAndErrorsAgainstTestServer() async throws {
        let server = try await TestHTTPServer.startStandard()
        let folder = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: folder) }
        let client = HTTPClient(configuration: .init(retry: .never), transport: SocketTransport())
        do {
            let size = 5_000_003
            let file = folder.appendingPathComponent("pattern.bin")
            try await client.download(HTTPClient.Request(url: server.url("/bytes/\(size)")), to: file)
            #expect(try Data(contentsOf: file) == TestHTTPServer.pattern(count: size))

            let sink = try await client.upload(HTTPClient.Request(.put, url: server.url("/sink")), fromFile: file)
            let answer = try JSONSerialization.jsonObject(with: sink.body) as? [String: Any]
            #expect(answer?["received"] as? Int == size && answer?["matchesPattern"] as? Bool == true)

            var request = HTTPClient.Request(.post, url: server.url("/inspect?a=1"), headers: ["X-Test": "yes"])
            request.body = .text("hello")
            let inspection = try await client.send(request).decode(Inspection.self)
            #expect(inspection.method == "POST" && inspection.query == "a=1" && inspection.body == "hello")
            #expect(inspection.header("x-test") == "yes")

            let cut = await httpError {
                try await client.send(HTTPClient.Request(url: server.url("/cut?length=100000&send=1000")))
            }
            #expect(cut?.code == .connection)
            let missing = await httpError { try await client.send(HTTPClient.Request(url: server.url("/status/404"))) }
            #expect(missing?.status == 404)
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }
}

private func httpError(_ body: () async throws -> some Any) async -> HTTPTransferError? {
    do {
        _ = try await body()
        Issue.record("expected an HTTPTransferError")
        return nil
    } catch let error as HTTPTransferError {
        return error
    } catch {
        Issue.record("expected an HTTPTransferError, got \(error)")
        return nil
    }
}

// MARK: - Requests to the scripted server

extension ScriptedTCPServer {
    func request(_ path: String, method: HTTPClient.Method = .get) -> TransportRequest {
        TransportRequest(
            method: method,
            url: URL(string: "http://127.0.0.1:\(port)\(path)")!,
            headers: [:],
            body: nil,
            timeout: .seconds(10),
            destination: .memory(limit: 1 << 20)
        )
    }
}
