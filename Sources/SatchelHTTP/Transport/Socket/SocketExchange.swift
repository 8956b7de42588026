import Synchronization

/// One request/response exchange of ``SocketTransport``, run with blocking I/O on its own thread.
///
/// Cancellation comes from another thread: ``cancel()`` marks the exchange and shuts the socket down, which wakes a
/// blocked `recv`, `send` or `sendfile` at once; the exchange thread then reports `.cancelled`. The socket is only
/// shut down while the exchange owns it (under the same lock), so a descriptor number reused elsewhere is never hit.
final class SocketExchange: Sendable {
    let request: TransportRequest
    let endpoint: SocketEndpoint
    let configuration: SocketTransport.Configuration
    let pool: SocketConnectionPool
    /// For streamed responses: where the body goes, and who gets the head as soon as it is read.
    let channel: ResponseBodyChannel?
    let onHead: (@Sendable (TransportResponse) -> Void)?

    private struct State {
        var cancelled = false
        var fd: Int32?
    }

    private let state = Mutex(State())

    /// A reused keep-alive connection that the server had closed before anything of the response arrived.
    struct StaleConnection: Error {
        var error: HTTPTransferError
    }

    // Out of line: Swift 6.3.1's optimizer crashed (CopyPropagation, an ownership check on `state`'s lock) when
    // this throwing initializer was inlined into SocketTransport.perform.
    @inline(never)
    init(
        request: TransportRequest, configuration: SocketTransport.Configuration, pool: SocketConnectionPool,
        channel: ResponseBodyChannel? = nil, onHead: (@Sendable (TransportResponse) -> Void)? = nil
    )
        throws(HTTPTransferError)
    {
        self.request = request
        self.channel = channel
        self.onHead = onHead
        self.configuration = configuration
        self.pool = pool
        endpoint = try SocketEndpoint(url: request.url)
    }

    static var cancelledError: HTTPTransferError { HTTPTransferError(.cancelled, "the request was cancelled") }

    var isCancelled: Bool { state.withLock { $0.cancelled } }

    func cancel() {
        state.withLock { state in
            state.cancelled = true
            if let fd = state.fd { SocketPlatform.shutdownBoth(fd) }
        }
    }

    /// Makes `fd` the socket that ``cancel()`` shuts down; false when the exchange is already cancelled.
    private func attach(_ fd: Int32) -> Bool {
        state.withLock { state in
            guard !state.cancelled else { return false }
            state.fd = fd
            return true
        }
    }

    private func detach() { state.withLock { $0.fd = nil } }

    /// Runs the exchange to the end; blocks the calling thread.
    func run() -> Result<TransportResponse, HTTPTransferError> {
        SocketPlatform.blockBrokenPipeSignalOnThisThread()
        var mayReuse = true
        while true {
            var fd: Int32 = -1
            do {
                if isCancelled { throw Self.cancelledError }
                var reused = false
                if mayReuse, let pooled = pool.take(endpoint.poolKey) {
                    fd = pooled
                    reused = true
                } else {
                    fd = try SocketConnector.connect(to: endpoint, timeout: request.timeout) { self.isCancelled }
                }
                guard attach(fd) else { throw Self.cancelledError }
                let outcome = try exchange(on: fd, reused: reused)
                detach()
                if outcome.reusable { pool.put(fd, for: endpoint.poolKey) } else { SocketPlatform.close(fd) }
                return .success(outcome.response)
            } catch {
                if fd >= 0 {
                    detach()
                    SocketPlatform.close(fd)
                }
                if isCancelled { return .failure(Self.cancelledError) }
                if let stale = error as? StaleConnection {
                    // Retry once, on a new connection, only when sending again can't do anything twice.
                    guard mayReuse, request.method.isIdempotent else { return .failure(stale.error) }
                    mayReuse = false
                    continue
                }
                if let error = error as? HTTPTransferError { return .failure(error) }
                return .failure(HTTPTransferError(.connection, "the exchange failed", underlying: error))
            }
        }
    }

    struct Outcome {
        var response: TransportResponse
        /// Whether the connection may carry the next request.
        var reusable: Bool
    }

    /// How much the response reader holds: always a whole head (up to its limit) and one byte more.
    var readerCapacity: Int {
        let headLimit = configuration.maximumResponseHeaderBytes
        if let channel {
            // A streamed body may read ahead as much as its channel holds: reading that much at once means fewer
            // chunks, and fewer hand-overs to the consumer.
            return max(min(channel.highWater, configuration.bufferSize), 64 * 1024, headLimit + 1)
        } else if case .file = request.destination {
            return max(configuration.bufferSize, headLimit + 1)
        } else {
            return max(64 * 1024, headLimit + 1)
        }
    }

    /// Sends the request and reads the response on `fd`.
    private func exchange(on fd: Int32, reused: Bool) throws -> Outcome {
        SocketPlatform.setIdleTimeout(fd, request.timeout)
        let reader = SocketReader(fd: fd, capacity: readerCapacity)
        var sent: Int64 = 0
        var sendFailure: SocketFailure?
        do {
            try sendRequest(on: fd, sent: &sent)
        } catch let failure as SocketFailure {
            guard failure.kind == .closed else { throw requestError(failure, sent: sent) }
            // The server may have answered early (a 413, a 401) and closed: read that answer if it is there.
            sendFailure = failure
        }
        let head: HTTP1ResponseHead
        do {
            head = try readFinalHead(reader)
        } catch let failure as SocketFailure {
            throw headError(failure, reader: reader, reused: reused, sendFailure: sendFailure, sent: sent)
        }
        var outcome = try readBody(of: head, from: reader)
        outcome.reusable = outcome.reusable && sendFailure == nil
        return outcome
    }

    private func requestError(_ failure: SocketFailure, sent: Int64) -> HTTPTransferError {
        let total = request.body?.length ?? 0
        switch failure.kind {
        case .timedOut:
            return HTTPTransferError(
                .timeout,
                "the server did not accept the request for \(request.timeout) (\(sent) of \(total) body bytes sent)"
            )
        case .closed:
            return HTTPTransferError(.connection, "the connection closed while the request was being sent")
        case .system:
            return HTTPTransferError(
                .connection,
                "sending the request failed: \(failure.systemDescription)",
                underlying: failure.underlying
            )
        }
    }

    private func headError(
        _ failure: SocketFailure?,
        reader: SocketReader,
        reused: Bool,
        sendFailure: SocketFailure?,
        sent: Int64
    ) -> any Error {
        if failure?.kind == .timedOut {
            return HTTPTransferError(.timeout, "the server did not answer within \(request.timeout)")
        }
        if let failure, case .system = failure.kind {
            return HTTPTransferError(
                .connection,
                "reading the response failed: \(failure.systemDescription)",
                underlying: failure.underlying
            )
        }
        guard reader.received == 0 else {
            return HTTPTransferError(
                .connection, "the connection closed before the whole response arrived (in the headers)")
        }
        let error =
            if sendFailure != nil {
                HTTPTransferError(
                    .connection,
                    "the connection closed while the request was being sent"
                        + " (\(sent) of \(request.body?.length ?? 0) body bytes)"
                )
            } else {
                HTTPTransferError(.connection, "the server closed the connection without answering")
            }
        return reused ? StaleConnection(error: error) : error
    }
}
