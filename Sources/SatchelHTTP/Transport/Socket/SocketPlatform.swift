// The one place where SocketTransport deals with platform differences (Glibc, Musl, Darwin).
//
// Everything else in this folder calls these wrappers, which retry on EINTR and report `errno` as an `Int32`.
#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

import SatchelText

enum SocketPlatform {
    #if canImport(Darwin)
        static let streamType = SOCK_STREAM
        static let tcpProtocol = Int32(IPPROTO_TCP)
        /// Darwin has no `MSG_NOSIGNAL`; sockets get `SO_NOSIGPIPE` instead (see ``configure(_:)``).
        static let sendFlags: Int32 = 0
    #else
        static let streamType = Int32(SOCK_STREAM.rawValue)
        static let tcpProtocol = Int32(IPPROTO_TCP)
        static let sendFlags = Int32(MSG_NOSIGNAL)
    #endif

    static var errno: Int32 {
        #if canImport(Glibc)
            Glibc.errno
        #elseif canImport(Musl)
            Musl.errno
        #else
            Darwin.errno
        #endif
    }

    static func isWouldBlock(_ code: Int32) -> Bool { code == EAGAIN || code == EWOULDBLOCK }

    /// The system's description of an `errno` value.
    static func describe(_ code: Int32) -> String { String(cString: strerror(code)) }

    static func openSocket(family: Int32, protocol: Int32) -> Int32 {
        #if canImport(Darwin)
            let fd = socket(family, streamType, `protocol`)
            if fd >= 0 { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            return fd
        #else
            return socket(family, streamType | Int32(SOCK_CLOEXEC.rawValue), `protocol`)
        #endif
    }

    /// Small answers must not wait for Nagle's algorithm; on Darwin, a closed peer must give EPIPE, not SIGPIPE.
    static func configure(_ fd: Int32) {
        var on: Int32 = 1
        _ = setsockopt(fd, tcpProtocol, TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        #if canImport(Darwin)
            _ = setsockopt(fd, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    static func connect(_ fd: Int32, _ address: UnsafeMutablePointer<sockaddr>?, _ length: socklen_t) -> Int32 {
        #if canImport(Darwin)
            Darwin.connect(fd, address, length)
        #elseif canImport(Glibc)
            Glibc.connect(fd, address, length)
        #else
            Musl.connect(fd, address, length)
        #endif
    }

    static func setNonBlocking(_ fd: Int32, _ nonBlocking: Bool) {
        let flags = fcntl(fd, F_GETFL, 0)
        guard flags >= 0 else { return }
        _ = fcntl(fd, F_SETFL, nonBlocking ? flags | O_NONBLOCK : flags & ~O_NONBLOCK)
    }

    /// Sets `SO_RCVTIMEO` and `SO_SNDTIMEO`: a blocked read or write gives up with EAGAIN after `timeout` of silence.
    static func setIdleTimeout(_ fd: Int32, _ timeout: Duration) {
        let (seconds, attoseconds) = max(timeout, .milliseconds(1)).components
        let capped = min(seconds, 365 * 24 * 3600)
        #if canImport(Darwin)
            var value = timeval(tv_sec: Int(capped), tv_usec: Int32(attoseconds / 1_000_000_000_000))
        #else
            var value = timeval(tv_sec: Int(capped), tv_usec: Int(attoseconds / 1_000_000_000_000))
        #endif
        let size = socklen_t(MemoryLayout<timeval>.size)
        _ = setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, size)
        _ = setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, size)
    }

    /// Waits up to `milliseconds` for `events`; returns the events that happened, 0 on timeout, -1 on error.
    static func poll(_ fd: Int32, events: Int16, milliseconds: Int32) -> Int16 {
        var entry = pollfd(fd: fd, events: events, revents: 0)
        while true {
            #if canImport(Darwin)
                let result = Darwin.poll(&entry, 1, milliseconds)
            #elseif canImport(Glibc)
                let result = Glibc.poll(&entry, 1, milliseconds)
            #else
                let result = Musl.poll(&entry, 1, milliseconds)
            #endif
            if result < 0, errno == EINTR { continue }
            return result < 0 ? -1 : (result == 0 ? 0 : entry.revents)
        }
    }

    static let pollIn = Int16(POLLIN)
    static let pollOut = Int16(POLLOUT)
    static let pollFailure = Int16(POLLERR | POLLHUP | POLLNVAL)

    /// The pending error of a non-blocking `connect`.
    static func pendingError(_ fd: Int32) -> Int32 {
        var value: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        guard getsockopt(fd, SOL_SOCKET, SO_ERROR, &value, &length) == 0 else { return errno }
        return value
    }

    /// One `send`, retried on EINTR; returns the byte count or -1 with `errno` set.
    static func send(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        while true {
            #if canImport(Darwin)
                let result = Darwin.send(fd, bytes, count, sendFlags)
            #elseif canImport(Glibc)
                let result = Glibc.send(fd, bytes, count, sendFlags)
            #else
                let result = Musl.send(fd, bytes, count, sendFlags)
            #endif
            if result < 0, errno == EINTR { continue }
            return result
        }
    }

    /// One `recv`, retried on EINTR; returns the byte count (0 at the end of the stream) or -1 with `errno` set.
    static func receive(_ fd: Int32, _ buffer: UnsafeMutableRawPointer, _ count: Int) -> Int {
        while true {
            #if canImport(Darwin)
                let result = Darwin.recv(fd, buffer, count, 0)
            #elseif canImport(Glibc)
                let result = Glibc.recv(fd, buffer, count, 0)
            #else
                let result = Musl.recv(fd, buffer, count, 0)
            #endif
            if result < 0, errno == EINTR { continue }
            return result
        }
    }

    /// Whether the kernel can copy a file straight to a socket (`sendfile(2)` on Linux). Elsewhere
    /// ``sendFile(_:from:offset:count:)`` is never called and files go through a buffer.
    #if os(Linux) || os(Android)
        static let hasSendFile = true
    #else
        static let hasSendFile = false
    #endif

    /// Copies up to `count` bytes of `file` from `offset` to the socket; returns the byte count or -1 with `errno`.
    static func sendFile(_ socket: Int32, from file: Int32, offset: inout Int64, count: Int) -> Int {
        #if os(Linux) || os(Android)
            while true {
                var position = off_t(offset)
                let result = sendfile(socket, file, &position, count)
                if result < 0, errno == EINTR { continue }
                if result > 0 { offset = Int64(position) }
                return result
            }
        #else
            return -1
        #endif
    }

    /// One `pread`, retried on EINTR.
    static func read(_ fd: Int32, into buffer: UnsafeMutableRawPointer, count: Int, at offset: Int64) -> Int {
        while true {
            let result = pread(fd, buffer, count, off_t(offset))
            if result < 0, errno == EINTR { continue }
            return result
        }
    }

    /// One `write`, retried on EINTR.
    static func write(_ fd: Int32, _ bytes: UnsafeRawPointer, _ count: Int) -> Int {
        SystemCalls.write(fd, bytes, count)
    }

    static func openForReading(_ path: String) -> Int32 { open(path, O_RDONLY | O_CLOEXEC) }

    static func openForWriting(_ path: String) -> Int32 {
        open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
    }

    static func close(_ fd: Int32) { SystemCalls.close(fd) }

    static func shutdownBoth(_ fd: Int32) {
        #if canImport(Darwin)
            _ = Darwin.shutdown(fd, Int32(SHUT_RDWR))
        #elseif canImport(Glibc)
            _ = Glibc.shutdown(fd, Int32(SHUT_RDWR))
        #else
            _ = Musl.shutdown(fd, Int32(SHUT_RDWR))
        #endif
    }

    static func unlink(_ path: String) { SystemCalls.unlink(path) }

    /// A peer that closes while we write raises SIGPIPE, which would end the process; `MSG_NOSIGNAL` covers
    /// `send`, but not `sendfile`. Blocking the signal on our own I/O thread turns it into EPIPE; the signal stays
    /// pending on that thread only and disappears with it.
    static func blockBrokenPipeSignalOnThisThread() {
        var set = sigset_t()
        sigemptyset(&set)
        sigaddset(&set, SIGPIPE)
        pthread_sigmask(SIG_BLOCK, &set, nil)
    }
}
