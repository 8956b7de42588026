public import Foundation

/// A response whose head has arrived and whose body arrives as you read it.
///
/// ```swift
/// let response = try await client.stream(HTTPClient.Request(url: url), maximumBytes: 1 << 30)
/// print(response.status, response.headers["Content-Type"] ?? "")
/// for try await chunk in response.body {
///     try parser.append(chunk)
/// }
/// ```
///
/// The transport reads ahead at most a small buffer (backpressure): a slow consumer slows the download rather
/// than growing memory. Stopping early — leaving the loop, cancelling the task, calling ``cancel()`` or dropping
/// the response — closes the connection. A connection cut before the body is complete makes the loop throw
/// ``HTTPTransferError`` with code `.connection` (`.timeout` when the server went silent), and going past the size
/// limit throws `.responseTooLarge`.
public struct HTTPStreamingResponse: Sendable {
    /// Status, headers and the URL that answered (after redirects); its `body` is empty.
    public let head: HTTPClient.Response
    /// The body's chunks, in order, as they arrive. Iterate it once.
    public let body: HTTPResponseBody

    init(head: HTTPClient.Response, body: HTTPResponseBody) {
        self.head = head
        self.body = body
    }

    /// The HTTP status.
    public var status: Int { head.status }
    /// The response headers.
    public var headers: HTTPClient.Headers { head.headers }
    /// The URL that answered, after redirects.
    public var url: URL { head.url }

    /// Stops the body and closes the connection.
    public func cancel() { body.cancel() }

    /// Reads the rest of the body into memory (for small answers) and returns the response with it.
    public func collect() async throws -> HTTPClient.Response {
        var response = head
        for try await chunk in body { response.body.append(chunk) }
        return response
    }
}

/// The body of an ``HTTPStreamingResponse``: an `AsyncSequence` of non-empty `Data` chunks.
public struct HTTPResponseBody: AsyncSequence, Sendable {
    /// A chunk of the body, never empty.
    public typealias Element = Data
    /// An `HTTPTransferError` when the body is cut short, too large or cancelled.
    public typealias Failure = any Error

    private let handle: Handle

    /// A body read from `channel`, which a transport fills.
    public init(channel: ResponseBodyChannel) { handle = Handle(channel: channel) }

    /// A body that is already in memory, as one chunk.
    public init(data: Data) {
        let channel = ResponseBodyChannel(highWater: Swift.max(1, data.count + 1))
        if !data.isEmpty { _ = try? channel.offer(data) }
        channel.finish()
        handle = Handle(channel: channel)
    }

    /// Stops the body and closes the connection.
    public func cancel() { handle.channel.cancel() }

    /// Runs `inspect` on each chunk as the transport hands it over, before (and whether or not) it is read, then
    /// `complete` once the body has arrived whole; see ``ResponseBodyChannel/setInspector(_:complete:)``. Call it
    /// before reading the body.
    ///
    /// ```swift
    /// response.body.inspect { chunk in lookahead.scan(chunk) }  // on the transport's thread: keep it quick
    /// ```
    public func inspect(_ inspect: @escaping @Sendable (Data) -> Void, complete: (@Sendable () -> Void)? = nil) {
        handle.channel.setInspector(inspect, complete: complete)
    }

    /// An iterator over the chunks; iterate a body once.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(handle: handle) }

    /// Reads the chunks as they arrive.
    public struct AsyncIterator: AsyncIteratorProtocol {
        let handle: Handle

        /// The next chunk, waiting for it; nil at the end of the body.
        public mutating func next() async throws -> Data? { try await handle.channel.next() }
    }

    /// Cancels the channel when the last body or iterator referring to it goes away, so that a body nobody reads
    /// to the end does not keep its connection (and a producer thread) waiting.
    final class Handle: Sendable {
        let channel: ResponseBodyChannel
        init(channel: ResponseBodyChannel) { self.channel = channel }
        deinit { channel.cancel() }
    }
}

/// A transport that can hand over a response as soon as its head has arrived, the body following through a
/// ``ResponseBodyChannel``. ``SocketTransport``, ``URLSessionTransport`` and ``AutomaticTransport`` conform;
/// for other transports ``HTTPClient/stream(_:maximumBytes:)`` reads the body into memory first.
public protocol HTTPStreamingTransport: HTTPTransport {
    /// Sends the request and returns the final head (its `body` empty) once it has arrived; then pushes the body
    /// into `channel` and finishes it, with an ``HTTPTransferError`` if the body is cut short. Cancelling `channel`
    /// must close the connection.
    func performStreaming(
        _ request: TransportRequest, into channel: ResponseBodyChannel
    ) async throws
        -> TransportResponse
}
