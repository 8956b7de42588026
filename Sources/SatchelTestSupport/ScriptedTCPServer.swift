public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP server on `127.0.0.1`, port 0, that runs `script` on its own thread for every connection: for answers no
/// well-behaved HTTP server would give (malformed heads, bodies cut short, silence, keep-alive tricks).
///
/// ```swift
/// let server = try ScriptedTCPServer { connection in
///     guard connection.readRequest() != nil else { return }
///     connection.write("HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\nhello")
/// }
/// defer { server.stop() }
/// ```
public final class ScriptedTCPServer: Sendable {
    public let port: Int
    private let listener: Int32
    private let accepted = Mutex(0)

    public var acceptedConnections: Int { accepted.withLock { $0 } }

    public init(script: @escaping @Sendable (ScriptedConnection) -> Void) throws {
        let (fd, port) = try LoopbackPort.listen(backlog: 16)
        listener = fd
        self.port = port
        LoopbackPort.acceptLoop(fd) { [self] client in
            accepted.withLock { $0 += 1 }
            script(ScriptedConnection(fd: client))
            close(client)
        }
    }

    /// Stops accepting (the accept loop then closes the listener); accepted connections run their script to the end.
    public func stop() {
        shutdown(listener, Int32(SHUT_RDWR))
    }

    /// A port nobody listens on (bound, then released).
    public static func unusedPort() throws -> Int {
        let server = try ScriptedTCPServer { _ in }
        server.stop()
        return server.port
    }
}

/// One accepted connection, used by the thread its script runs on (not `Sendable`: it keeps unread bytes).
public final class ScriptedConnection {
    public struct Request: Sendable {
        public var method: String
        public var target: String
        public var headers: [String: String]
        public var body: Data
    }

    private let fd: Int32
    private var pending = Data()

    init(fd: Int32) { self.fd = fd }

    /// The next request with its body (by Content-Length), or nil when the client closed.
    public func readRequest() -> Request? {
        while pending.range(of: Data("\r\n\r\n".utf8)) == nil {
            guard receive() else { return nil }
        }
        let end = pending.range(of: Data("\r\n\r\n".utf8))!
        let head = String(decoding: pending[..<end.lowerBound], as: UTF8.self)
        pending = Data(pending[end.upperBound...])
        var lines = head.components(separatedBy: "\r\n")
        let requestLine = lines.removeFirst().split(separator: " ")
        var headers: [String: String] = [:]
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(
                in: .whitespaces)
        }
        let length = Int(headers["content-length"] ?? "0") ?? 0
        while pending.count < length {
            guard receive() else { return nil }
        }
        let body = Data(pending.prefix(length))
        pending = Data(pending.dropFirst(length))
        return Request(method: String(requestLine[0]), target: String(requestLine[1]), headers: headers, body: body)
    }

    public func write(_ text: String) { write(Data(text.utf8)) }

    public func write(_ data: Data) {
        _ = data.withUnsafeBytes { LoopbackPort.sendAll(fd, $0) }
    }

    /// Blocks until the client closes its side.
    public func waitForClose() {
        while receive() {}
    }

    private func receive() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = recv(fd, &buffer, buffer.count, 0)
        guard count > 0 else { return false }
        pending.append(contentsOf: buffer[0..<count])
        return true
    }
}
