public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A plain TCP connection to `127.0.0.1`, for requests no HTTP client would send: half-sent headers, a body that
/// stops, a connection that never sends anything. It never blocks a thread: reads poll, waits sleep.
///
/// ```swift
/// let client = try RawTCPClient(port: port)
/// try client.send("GET /health HTTP/1.1\r\nHost: x\r\n")       // and never finish the headers
/// let closedAfter = await client.waitUntilClosed(within: .seconds(5))
/// ```
///
/// `Sendable`: one task may send while another waits for the answer; the bytes received are behind a lock, the
/// descriptor never changes.
public final class RawTCPClient: Sendable {
    private let descriptor: Int32
    private let receivedBytes = Mutex(Data())
    /// Bytes received so far.
    public var received: Data { receivedBytes.withLock { $0 } }

    public init(port: Int) throws {
        descriptor = LoopbackPort.connect(port)
        guard descriptor >= 0 else {
            throw RawTCPClientError(message: "connect() to port \(port) failed: errno \(errno)")
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
    }

    deinit { close(descriptor) }

    /// Sends text (whatever the socket takes now; these are small).
    public func send(_ text: String) throws {
        let bytes = Array(text.utf8)
        let sent = bytes.withUnsafeBytes { buffer in
            #if canImport(Glibc)
                Glibc.send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
            #elseif canImport(Musl)
                Musl.send(descriptor, buffer.baseAddress, buffer.count, Int32(MSG_NOSIGNAL))
            #else
                Darwin.send(descriptor, buffer.baseAddress, buffer.count, 0)
            #endif
        }
        guard sent == bytes.count else { throw RawTCPClientError(message: "send() failed: errno \(errno)") }
    }

    /// Closes the sending side: the server sees the request end (short of what its headers declared, say).
    public func closeWrite() {
        _ = shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Reads what has arrived; returns false once the server has closed the connection (or reset it).
    public func poll() -> Bool {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                receivedBytes.withLock { $0.append(contentsOf: buffer[0..<count]) }
                continue
            }
            if count == 0 { return false }
            return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR
        }
    }

    /// Whether some answer arrived within `limit` (false too when the server closed the connection first).
    public func waitForData(within limit: Duration) async -> Bool {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < limit {
            let open = poll()
            if !received.isEmpty { return true }
            if !open { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return false
    }

    /// How long the server took to close the connection, or nil when it was still open after `limit`.
    public func waitUntilClosed(within limit: Duration) async -> Duration? {
        let start = ContinuousClock.now
        while ContinuousClock.now - start < limit {
            if !poll() { return ContinuousClock.now - start }
            try? await Task.sleep(for: .milliseconds(20))
        }
        return nil
    }
}

public struct RawTCPClientError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { message }
}
