import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Ports for servers that tests start as separate processes (which must be told a port before they listen).
public enum LoopbackPort {
    /// A TCP port nobody listens on right now on 127.0.0.1: bind port 0, read what the kernel chose, close.
    /// Another process may take it before the caller's server binds it; callers retry on a clash.
    public static func free() throws -> Int {
        let (descriptor, port) = try listen(backlog: 1)
        close(descriptor)
        return port
    }
}

extension LoopbackPort {
    /// A TCP socket listening on 127.0.0.1, on a port the kernel chose: the descriptor and the port. For the test
    /// servers that accept connections themselves.
    public static func listen(backlog: Int32) throws -> (descriptor: Int32, port: Int) {
        try bind(listening: backlog)
    }

    /// A socket bound to 127.0.0.1 on a port the kernel chose, listening with `backlog` unless it is nil.
    private static func bind(listening backlog: Int32?) throws -> (descriptor: Int32, port: Int) {
        #if canImport(Glibc) || canImport(Musl)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw LoopbackPortError(message: "socket() failed: errno \(errno)") }
        var on: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let listening = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
                systemBind(descriptor, pointer, length) == 0 && (backlog.map { systemListen(descriptor, $0) } ?? 0) == 0
                    && getsockname(descriptor, pointer, &length) == 0
            }
        }
        guard listening else {
            let failure = errno
            close(descriptor)
            throw LoopbackPortError(message: "bind/listen failed: errno \(failure)")
        }
        return (descriptor, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Accepts connections on `listener` on a thread of its own, each handed to `connection` on a new thread, until
    /// the listener is shut down. Only that thread closes the listener: closing it elsewhere could let its number be
    /// reused by another test's socket while the loop still calls accept on it.
    public static func acceptLoop(_ listener: Int32, _ connection: @escaping @Sendable (Int32) -> Void) {
        Thread {
            while true {
                let client = accept(listener, nil, nil)
                guard client >= 0 else {
                    close(listener)
                    return
                }
                Thread { connection(client) }.start()
            }
        }.start()
    }

    /// Sends all of `bytes` on a socket, or stops at the first failure (false). A peer that has gone raises no
    /// SIGPIPE (which would end the test process).
    @discardableResult
    public static func sendAll(_ fd: Int32, _ bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        while offset < bytes.count {
            let sent = send(fd, bytes.baseAddress! + offset, bytes.count - offset, Int32(MSG_NOSIGNAL))
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// A TCP socket connected to 127.0.0.1:`port`, or -1 (with `errno` set) when nothing accepts there.
    public static func connect(_ port: Int) -> Int32 {
        #if canImport(Glibc) || canImport(Musl)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return -1 }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                systemConnect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else {
            let failure = errno
            close(descriptor)
            errno = failure
            return -1
        }
        return descriptor
    }
}

/// A port on 127.0.0.1 that is bound but never listens: every connection to it is refused, and no other socket
/// (another test's server) can take it while this lives. Closing a listener to get a refusing port races with
/// whoever binds next.
public final class RefusingPort: Sendable {
    private let descriptor: Int32
    public let port: Int

    public init() throws {
        (descriptor, port) = try LoopbackPort.bindWithoutListening()
    }

    deinit { close(descriptor) }
}

extension LoopbackPort {
    fileprivate static func bindWithoutListening() throws -> (descriptor: Int32, port: Int) {
        try bind(listening: nil)
    }
}

/// `bind(2)`, named apart from ``LoopbackPort``'s own.
private func systemBind(_ descriptor: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    bind(descriptor, address, length)
}

/// `listen(2)`, named apart from ``LoopbackPort/listen(backlog:)``.
private func systemListen(_ descriptor: Int32, _ backlog: Int32) -> Int32 { listen(descriptor, backlog) }

/// `connect(2)`, named apart from ``LoopbackPort/connect(_:)``.
private func systemConnect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    connect(descriptor, address, length)
}

/// Why no free loopback port could be found.
public struct LoopbackPortError: Error, CustomStringConvertible {
    public var message: String
    public var description: String { "no free port on 127.0.0.1: \(message)" }
}
