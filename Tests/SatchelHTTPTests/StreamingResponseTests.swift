import Foundation
import SatchelHTTP
import SatchelTestSupport
import Synchronization
import Testing

/// `HTTPClient.stream`: the head first, then the body while it arrives, over every transport (NIO on Linux).
@Suite("Streaming responses")
struct StreamingResponseTests {
    enum Kind: String, CaseIterable, Sendable, CustomTestStringConvertible {
        case socket, urlSession, nio
        var testDescription: String { rawValue }
        func client(timeout: Duration = .seconds(10)) -> HTTPClient {
            let transport: any HTTPTransport =
                switch self {
                case .socket: SocketTransport()
                case .urlSession: URLSessionTransport()
                #if os(Linux)
                    case .nio: NIOTransport.shared
                #else
                    case .nio: URLSessionTransport()
                #endif
                }
            return makeClient(timeout: timeout, transport: transport)
        }
    }

    enum Framing: String, CaseIterable, Sendable { case contentLength, chunked }

    /// A flag the test sets and a server thread waits for (bounded).
    final class Flag: Sendable {
        private let value = Mutex(false)
        func set() { value.withLock { $0 = true } }
        var isSet: Bool { value.withLock { $0 } }
        /// Waits up to `seconds` for the flag; whether it was set.
        func wait(seconds: Double) -> Bool {
            let deadline = Date().addingTimeInterval(seconds)
            while !isSet, Date() < deadline { usleep(5000) }
            return isSet
        }
    }

    final class Counter: Sendable {
        private let count = Mutex(0)
        func increment() { count.withLock { $0 += 1 } }
        var value: Int { count.withLock { $0 } }
    }

    static func url(_ server: ScriptedTCPServer, _ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(server.port)\(path)")!
    }

    static func body(_ count: Int) -> Data { Data((0..<count).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) }) }

    @Test(
        "the first chunk arrives before the server has sent the rest",
        arguments: Kind.allCases, Framing.allCases)
    func yieldsWhileArriving(kind: Kind, framing: Framing) async throws {
        let first = Self.body(3000)
        let rest = Self.body(200_000)
        let gotFirst = Flag()
        let sawFirstBeforeRest = Flag()
        let server = try ScriptedTCPServer { connection in
            guard connection.readRequest() != nil else { return }
            let total = first.count + rest.count
            switch framing {
            case .contentLength:
                connection.write("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n")
                connection.write("Content-Length: \(total)\r\n\r\n")
                connection.write(first)
                if gotFirst.wait(seconds: 5) { sawFirstBeforeRest.set() }
                connection.write(rest)
            case .chunked:
                connection.write("HTTP/1.1 200 OK\r\nContent-Type: application/octet-stream\r\n")
                connection.write("Transfer-Encoding: chunked\r\n\r\n")
                connection.write(String(first.count, radix: 16) + "\r\n")
                connection.write(first)
                connection.write("\r\n")
                if gotFirst.wait(seconds: 5) { sawFirstBeforeRest.set() }
                connection.write(String(rest.count, radix: 16) + "\r\n")
                connection.write(rest)
                connection.write("\r\n0\r\n\r\n")
            }
        }
        defer { server.stop() }
        let response = try await kind.client().stream(HTTPClient.Request(url: Self.url(server, "/stream")))
        #expect(response.status == 200)
        var received = Data()
        for try await chunk in response.body {
            #expect(!chunk.isEmpty)
            received.append(chunk)
            if received.count >= first.count { gotFirst.set() }
        }
        #expect(received == first + rest)
        #expect(sawFirstBeforeRest.isSet)
    }

    @Test("a slow consumer still gets every byte (the transport pauses and resumes)", arguments: Kind.allCases)
    func slowConsumer(kind: Kind) async throws {
        let body = Self.body(3_000_000)
        let server = try ScriptedTCPServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: \(body.count)\r\n\r\n")
            connection.write(body)
        }
        defer { server.stop() }
        let response = try await kind.client().stream(HTTPClient.Request(url: Self.url(server, "/slow")))
        var received = Data()
        for try await chunk in response.body {
            if received.isEmpty { try await Task.sleep(for: .milliseconds(300)) }
            received.append(chunk)
        }
        #expect(received == body)
    }

    @Test("a connection cut mid-body throws a connection error", arguments: Kind.allCases, Framing.allCases)
    func cutMidBody(kind: Kind, framing: Framing) async throws {
        let server = try ScriptedTCPServer { connection in
            guard connection.readRequest() != nil else { return }
            switch framing {
            case .contentLength:
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 10000\r\n\r\n")
                connection.write(Self.body(4000))
            case .chunked:
                connection.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n2710\r\n")
                connection.write(Self.body(4000))
            }
            usleep(50_000)
        }
        defer { server.stop() }
        let response = try await kind.client().stream(HTTPClient.Request(url: Self.url(server, "/cut")))
        var received = 0
        let error = await #expect(throws: HTTPTransferError.self) {
            for try await chunk in response.body { received += chunk.count }
        }
        #expect(error?.code == .connection)
        #expect(received <= 4000)
    }

    @Test("cancelling after the first chunk closes the connection", arguments: Kind.allCases)
    func cancelAfterFirstChunk(kind: Kind) async throws {
        let closed = Flag()
        let server = try ScriptedTCPServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.write("HTTP/1.1 200 OK\r\nContent-Length: 100000000\r\n\r\n")
            connection.write(Self.body(5000))
            connection.waitForClose()
            closed.set()
        }
        defer { server.stop() }
        let client = kind.client()
        let task = Task {
            let response = try await client.stream(HTTPClient.Request(url: Self.url(server, "/endless")))
            var received = 0
            for try await chunk in response.body {
                received += chunk.count
                withUnsafeCurrentTask { $0?.cancel() }
            }
            return received
        }
        let error = await #expect(throws: HTTPTransferError.self) { try await task.value }
        #expect(error?.code == .cancelled)
        #expect(closed.wait(seconds: 5), "the server never saw the connection close")
    }

    @Test("dropping a body half-read closes the connection", arguments: Kind.allCases)
    func dropHalfRead(kind: Kind) async throws {
        let closed = Flag()
        let server = try ScriptedTCPServer { connection in
            guard connection.readRequest() != nil else { return }
            connection.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n1388\r\n")
            connection.write(Self.body(5000))
            connection.write("\r\n")
            connection.waitForClose()
            closed.set()
        }
        defer { server.stop() }
        do {
            let response = try await kind.client().stream(HTTPClient.Request(url: Self.url(server, "/drop")))
            for try await chunk in response.body {
                #expect(!chunk.isEmpty)
                break
            }
        }
        #expect(closed.wait(seconds: 5), "the server never saw the connection close")
    }

    @Test("the size limit: an announced length at once, a growing body while reading", arguments: Kind.allCases)
    func limit(kind: Kind) async throws {
        let server = try ScriptedTCPServer { connection in
            guard let request = connection.readRequest() else { return }
            if request.target == "/announced" {
                connection.write("HTTP/1.1 200 OK\r\nContent-Length: 10000\r\n\r\n")
                connection.write(Self.body(10000))
            } else {
                connection.write("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n")
                for _ in 0..<10 {
                    connection.write("3e8\r\n")
                    connection.write(Self.body(1000))
                    connection.write("\r\n")
                }
                connection.write("0\r\n\r\n")
            }
        }
        defer { server.stop() }
        let client = kind.client()
        let announced = await #expect(throws: HTTPTransferError.self) {
            _ = try await client.stream(HTTPClient.Request(url: Self.url(server, "/announced")), maximumBytes: 2500)
        }
        #expect(announced?.code == .responseTooLarge)
        let response = try await client.stream(
            HTTPClient.Request(url: Self.url(server, "/growing")), maximumBytes: 2500)
        var received = 0
        let growing = await #expect(throws: HTTPTransferError.self) {
            for try await chunk in response.body { received += chunk.count }
        }
        #expect(growing?.code == .responseTooLarge)
        #expect(received <= 2500)
    }

    @Test("redirects are followed and error statuses throw with the body read", arguments: Kind.allCases)
    func pipeline(kind: Kind) async throws {
        let server = try ScriptedTCPServer { connection in
            while let request = connection.readRequest() {
                switch request.target {
                case "/old":
                    connection.write("HTTP/1.1 302 Found\r\nLocation: /new\r\nContent-Length: 0\r\n\r\n")
                case "/new":
                    connection.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nfresh")
                default:
                    let body = "{\"error\":\"no such thing\"}"
                    connection.write(
                        "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\n"
                            + "Content-Length: \(body.utf8.count)\r\n\r\n\(body)")
                }
            }
        }
        defer { server.stop() }
        let client = kind.client()
        let moved = try await client.stream(HTTPClient.Request(url: Self.url(server, "/old")))
        #expect(moved.url.path == "/new")
        #expect(try await moved.collect().text == "fresh")
        let error = await #expect(throws: HTTPTransferError.self) {
            _ = try await client.stream(HTTPClient.Request(url: Self.url(server, "/missing")))
        }
        #expect(error?.status == 404)
        #expect([error?.responseExcerpt, error?.serverMessage].contains { $0?.contains("no such thing") == true })
        var unvalidated = HTTPClient.Request(url: Self.url(server, "/missing"))
        unvalidated.validatesStatus = false
        let answer = try await client.stream(unvalidated)
        #expect(answer.status == 404)
        #expect(try await answer.collect().text.contains("no such thing"))
    }

    @Test("a blocked producer holds at most the high-water mark")
    func backpressure() async throws {
        let channel = ResponseBodyChannel(highWater: 250)
        let pushed = Counter()
        let thread = Thread {
            for _ in 0..<10 {
                do { try channel.push(Data(repeating: 1, count: 100)) } catch { break }
                pushed.increment()
            }
            channel.finish()
        }
        thread.start()
        // 100, 200, then 300 bytes go in; the fourth push finds 300 >= 250 and blocks until something is read. Wait
        // for the three (polling, for at most 5 s) rather than for a fixed time.
        let deadline = ContinuousClock.now + .seconds(5)
        while pushed.value < 3, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(10)) }
        // Exactly 3, not at least 3: nothing has been read, so the fourth push must still be blocked. A channel that
        // did not block would let the thread run on to 10 without pausing.
        #expect(pushed.value == 3, "\(pushed.value) pushes before anything was read")
        var total = 0
        while let chunk = try await channel.next() { total += chunk.count }
        #expect(total == 1000)
        #expect(pushed.value == 10)
    }

    @Test("an inspector sees every chunk once, in order, those already waiting first, before they are read")
    func inspector() async throws {
        let channel = ResponseBodyChannel(highWater: 1000)
        let seen = Mutex<[UInt8]>([])
        #expect(try channel.offer(Data([1])))
        #expect(try channel.offer(Data([2])))
        let body = HTTPResponseBody(channel: channel)
        let complete = Counter()
        body.inspect { chunk in
            seen.withLock { $0 += chunk }
        } complete: {
            complete.increment()
        }
        #expect(seen.withLock { $0 } == [1, 2])
        #expect(try channel.offer(Data([3, 4])))
        #expect(seen.withLock { $0 } == [1, 2, 3, 4], "a chunk is inspected when handed over, not when read")
        #expect(complete.value == 0)
        channel.finish()
        #expect(complete.value == 1)
        var read: [UInt8] = []
        for try await chunk in body { read += chunk }
        #expect(read == [1, 2, 3, 4])
        #expect(seen.withLock { $0 } == [1, 2, 3, 4])
    }

    @Test("an inspector is told of a whole body, not of one cut short; one set after the end is told at once")
    func inspectorCompletion() throws {
        let cut = ResponseBodyChannel()
        let cutComplete = Counter()
        cut.setInspector({ _ in }, complete: { cutComplete.increment() })
        #expect(try cut.offer(Data([1])))
        cut.finish(throwing: HTTPTransferError(.connection, "cut"))
        #expect(cutComplete.value == 0)
        let whole = ResponseBodyChannel()
        #expect(try whole.offer(Data([1])))
        whole.finish()
        let wholeComplete = Counter()
        let seen = Counter()
        whole.setInspector({ _ in seen.increment() }, complete: { wholeComplete.increment() })
        #expect(seen.value == 1 && wholeComplete.value == 1)
    }

    @Test("a transport that cannot stream hands the body over as one chunk")
    func fallback() async throws {
        let transport = InMemoryTransport { request in
            TransportResponse(status: 200, headers: ["Content-Type": "text/plain"], body: Data("whole".utf8))
        }
        let client = makeClient(transport: transport)
        let response = try await client.stream(HTTPClient.Request(url: URL(string: "http://example.invalid/x")!))
        var chunks: [Data] = []
        for try await chunk in response.body { chunks.append(chunk) }
        #expect(chunks == [Data("whole".utf8)])
    }
}
