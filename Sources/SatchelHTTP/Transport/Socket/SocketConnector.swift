import Foundation
import SatchelText

/// Opens TCP connections: `getaddrinfo`, then a non-blocking `connect` to each address in turn.
///
/// The connect waits in short slices so that a cancelled request stops within a tenth of a second even while the
/// server does not answer; once connected, the socket is switched back to blocking I/O with idle timeouts.
enum SocketConnector {
    static let cancellationSlice: Int32 = 100

    static func connect(
        to endpoint: SocketEndpoint,
        timeout: Duration,
        isCancelled: () -> Bool
    ) throws(HTTPTransferError) -> Int32 {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = SocketPlatform.streamType
        hints.ai_protocol = SocketPlatform.tcpProtocol
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let status = getaddrinfo(endpoint.host, String(endpoint.port), &hints, &list)
        guard status == 0, let first = list else {
            let reason = String(cString: gai_strerror(status))
            throw HTTPTransferError(.connection, "the host name \(endpoint.host) could not be resolved (\(reason))")
        }
        defer { freeaddrinfo(first) }

        let deadline = ContinuousClock.now + timeout
        var lastError: Int32 = ECONNREFUSED
        var cursor: UnsafeMutablePointer<addrinfo>? = first
        while let info = cursor?.pointee {
            cursor = info.ai_next
            if isCancelled() { throw HTTPTransferError(.cancelled, "the request was cancelled") }
            let fd = SocketPlatform.openSocket(family: info.ai_family, protocol: info.ai_protocol)
            guard fd >= 0 else {
                lastError = SocketPlatform.errno
                continue
            }
            let result = attempt(fd, address: info.ai_addr, length: info.ai_addrlen, deadline: deadline, isCancelled)
            switch result {
            case .connected:
                SocketPlatform.setNonBlocking(fd, false)
                SocketPlatform.configure(fd)
                return fd
            case .failed(let code):
                SocketPlatform.close(fd)
                lastError = code
            case .timedOut:
                SocketPlatform.close(fd)
                throw HTTPTransferError(
                    .timeout, "could not connect to the server at \(endpoint.authority) within \(timeout)")
            case .cancelled:
                SocketPlatform.close(fd)
                throw HTTPTransferError(.cancelled, "the request was cancelled")
            }
        }
        let cause = POSIXError(POSIXErrorCode(rawValue: lastError) ?? .ECONNREFUSED)
        throw HTTPTransferError(
            .connection, "could not connect to the server at \(endpoint.authority)", underlying: cause)
    }

    private enum Attempt {
        case connected, timedOut, cancelled
        case failed(Int32)
    }

    private static func attempt(
        _ fd: Int32,
        address: UnsafeMutablePointer<sockaddr>?,
        length: socklen_t,
        deadline: ContinuousClock.Instant,
        _ isCancelled: () -> Bool
    ) -> Attempt {
        SocketPlatform.setNonBlocking(fd, true)
        let started = SocketPlatform.connect(fd, address, length)
        if started == 0 { return .connected }
        let code = SocketPlatform.errno
        guard code == EINPROGRESS || code == EINTR else { return .failed(code) }
        while true {
            if isCancelled() { return .cancelled }
            let left = deadline - ContinuousClock.now
            guard left > .zero else { return .timedOut }
            let slice = min(Int32(left.timeInterval * 1000) + 1, cancellationSlice)
            let events = SocketPlatform.poll(fd, events: SocketPlatform.pollOut, milliseconds: slice)
            if events == 0 { continue }
            if events < 0 { return .failed(SocketPlatform.errno) }
            let pending = SocketPlatform.pendingError(fd)
            return pending == 0 ? .connected : .failed(pending)
        }
    }
}
