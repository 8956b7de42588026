/// A transport for plain `http://` over POSIX sockets: HTTP/1.1 with keep-alive, streaming in constant memory.
///
/// It exists because URLSession on Linux moves a 1 GiB loopback download at 0.15–0.2× the speed of `curl`; this
/// transport reads into one reused buffer and writes it straight to the destination file, sends upload files with
/// `sendfile(2)`, and keeps the memory of a transfer to that one buffer (1 MiB by default) whatever its size.
/// See `docs/transfer-benchmark.md` for the numbers.
///
/// Each exchange runs its blocking I/O on a thread of its own (reused between exchanges), never on Swift's
/// cooperative pool, and cancelling the calling task shuts the socket down at once (`HTTPTransferError` code
/// `.cancelled`). `request.timeout` is an idle timeout: the longest the server may stay silent, not a limit
/// on the whole transfer.
/// Idempotent requests that meet a kept-alive connection the server had already closed are sent again once, on a
/// new connection, when nothing of the response had arrived.
///
/// It does not speak TLS, HTTP/2 or proxies, and does not ask for compressed responses: use
/// ``URLSessionTransport`` for those, or ``AutomaticTransport`` to pick per URL.
///
/// ```swift
/// let client = HTTPClient(transport: SocketTransport())
/// try await client.download(HTTPClient.Request(url: URL(string: "http://127.0.0.1:8080/big.iso")!), to: file)
/// ```
public final class SocketTransport: HTTPTransport {
    /// Limits and sizes; the defaults suit both small API calls and multi-gigabyte transfers.
    ///
    /// ```swift
    /// var configuration = SocketTransport.Configuration()
    /// configuration.maximumIdleConnectionsPerHost = 2
    /// let transport = SocketTransport(configuration: configuration)
    /// ```
    public struct Configuration: Sendable, Hashable {
        /// Keep-alive connections kept open per host and port between requests.
        public var maximumIdleConnectionsPerHost: Int
        /// An idle connection older than this is closed rather than reused (servers drop them on their side).
        public var maximumIdleTime: Duration
        /// The buffer between socket and file for downloads (and for uploads where `sendfile` is not available).
        public var bufferSize: Int
        /// Response heads larger than this fail with `.invalidResponse`.
        public var maximumResponseHeaderBytes: Int
        /// Response heads with more fields than this fail with `.invalidResponse`.
        public var maximumResponseHeaderFields: Int
        /// Whether upload files go to the socket with `sendfile(2)` (Linux) rather than through ``bufferSize`` reads.
        public var usesSendFile: Bool

        /// A configuration whose defaults are: 8 idle connections per host kept for 30 seconds, a 1 MiB buffer, heads
        /// of 64 KiB and 200 fields, `sendfile`. The buffer is at least 4 KiB, the head limits at least 1 KiB and 1
        /// field.
        public init(
            maximumIdleConnectionsPerHost: Int = 8,
            maximumIdleTime: Duration = .seconds(30),
            bufferSize: Int = 1024 * 1024,
            maximumResponseHeaderBytes: Int = 64 * 1024,
            maximumResponseHeaderFields: Int = 200,
            usesSendFile: Bool = true
        ) {
            self.maximumIdleConnectionsPerHost = maximumIdleConnectionsPerHost
            self.maximumIdleTime = maximumIdleTime
            self.bufferSize = max(4096, bufferSize)
            self.maximumResponseHeaderBytes = max(1024, maximumResponseHeaderBytes)
            self.maximumResponseHeaderFields = max(1, maximumResponseHeaderFields)
            self.usesSendFile = usesSendFile
        }
    }

    /// What the transport was made with.
    public let configuration: Configuration
    let pool: SocketConnectionPool

    /// A transport with its own pool of keep-alive connections.
    public init(configuration: Configuration = Configuration()) {
        self.configuration = configuration
        pool = SocketConnectionPool(
            maximumPerHost: configuration.maximumIdleConnectionsPerHost,
            maximumIdleTime: configuration.maximumIdleTime
        )
    }

    /// Runs the exchange on a worker thread, the body into memory or straight to the file; cancelling the task shuts
    /// the socket down.
    public func perform(_ request: TransportRequest) async throws -> TransportResponse {
        if Task.isCancelled { throw SocketExchange.cancelledError }
        let exchange = try SocketExchange(request: request, configuration: configuration, pool: pool)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                // A thread per exchange: blocking I/O must never hold one of the cooperative pool's few threads.
                SocketWorkers.shared.run { continuation.resume(with: exchange.run()) }
            }
        } onCancel: {
            exchange.cancel()
        }
    }
}

extension SocketTransport: HTTPStreamingTransport {
    /// Returns once the head has arrived; the exchange's thread then pushes the body into `channel`, waiting while
    /// the consumer is behind, and the connection goes back to the pool only when the body was read to its end.
    public func performStreaming(
        _ request: TransportRequest, into channel: ResponseBodyChannel
    ) async throws -> TransportResponse {
        if Task.isCancelled { throw SocketExchange.cancelledError }
        let delivery = HeadDelivery()
        let exchange = try SocketExchange(
            request: request, configuration: configuration, pool: pool, channel: channel,
            onHead: { delivery.resume(.success($0)) }
        )
        channel.setOnCancel { exchange.cancel() }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                delivery.attach(continuation)
                SocketWorkers.shared.run {
                    switch exchange.run() {
                    case .success(let response):
                        delivery.resume(.success(response))
                        channel.finish()
                    case .failure(let error):
                        delivery.resume(.failure(error))
                        channel.finish(throwing: error)
                    }
                }
            }
        } onCancel: {
            exchange.cancel()
        }
    }
}
