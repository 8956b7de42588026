import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A TCP server on `127.0.0.1` that answers every request with the same raw bytes and closes the connection:
/// for responses no well-behaved HTTP server would send (malformed or oversized headers, bad status lines).
///
/// ```swift
/// let server = try RawTCPServer(response: Array("HTTP/1.1 200 OK\r\nNo colon here\r\n\r\n".utf8))
/// defer { server.stop() }
/// ```
public final class RawTCPServer: Sendable {
    public let port: Int
    private let listener: Int32
    private let stopped = Mutex(false)

    public init(response: [UInt8]) throws {
        #if canImport(Glibc)
            let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let fd = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard fd >= 0 else { throw TestServerError("socket() failed: \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                bind(fd, pointer, length) == 0 && listen(fd, 16) == 0 && getsockname(fd, pointer, &length) == 0
            }
        }
        guard bound else {
            close(fd)
            throw TestServerError("cannot listen on 127.0.0.1: \(errno)")
        }
        listener = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        let thread = Thread { [listener] in
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else { break }
                Self.answer(client, with: response)
            }
            // Only this thread closes the listener: closed elsewhere, its number could be reused by another test's
            // socket while this loop still waits in accept on it.
            close(listener)
        }
        thread.start()
    }

    public var url: URL { URL(string: "http://127.0.0.1:\(port)/raw")! }

    public func stop() {
        guard
            !stopped.withLock({
                let was = $0; $0 = true; return was
            })
        else { return }
        shutdown(listener, Int32(SHUT_RDWR))  // wakes accept(); the thread then closes the socket
    }

    deinit { stop() }

    private static func answer(_ client: Int32, with response: [UInt8]) {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        // Read the request head, so the client is not reset while it is still sending.
        while !received.suffix(4).elementsEqual([13, 10, 13, 10]), received.count < 1 << 20 {
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else { break }
            received.append(contentsOf: buffer[0..<count])
            if received.count >= 4, received.firstRange(of: [13, 10, 13, 10]) != nil { break }
        }
        _ = response.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
        shutdown(client, Int32(SHUT_RDWR))
        close(client)
    }
}
