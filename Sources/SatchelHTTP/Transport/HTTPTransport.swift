public import Foundation

/// The seam between the client and the network: one HTTP exchange, nothing more.
///
/// A transport sends exactly the request it is given and returns the first response: it follows no
/// redirects, keeps no cookies, adds no authentication and never retries — ``HTTPClient`` does all of
/// that, identically over every transport. Conforming types throw ``HTTPTransferError`` with the codes
/// `.timeout`, `.cancelled`, `.connection`, `.tls`, `.invalidResponse`, `.responseTooLarge` or `.fileSystem`.
///
/// ```swift
/// struct LoggingTransport: HTTPTransport {
///     let inner: any HTTPTransport
///     func perform(_ request: TransportRequest) async throws -> TransportResponse {
///         print(request.method, request.url)
///         return try await inner.perform(request)
///     }
/// }
/// ```
public protocol HTTPTransport: Sendable {
    /// Sends `request` and returns the response, its body where `request.destination` says. Follows no redirects and
    /// returns any status.
    func perform(_ request: TransportRequest) async throws -> TransportResponse
}

/// Where a transport puts the response body.
public enum ResponseDestination: Sendable, Hashable {
    /// Into memory, failing with `.responseTooLarge` past `limit` bytes.
    case memory(limit: Int)
    /// Into this file, created or truncated.
    case file(URL)
}

/// A request as a transport sees it: absolute URL, final headers, the body and where the answer goes.
public struct TransportRequest: Sendable {
    /// The method.
    public var method: HTTPClient.Method
    /// The absolute URL.
    public var url: URL
    /// Every header to send, cookies and credentials included.
    public var headers: HTTPClient.Headers
    /// The body; nil for none.
    public var body: HTTPClient.Body?
    /// The longest the transport may wait for the server to answer or to send more bytes.
    public var timeout: Duration
    /// Where the response body goes.
    public var destination: ResponseDestination
    /// Receives bytes sent and received as they move.
    public var progress: ProgressReporter?

    /// A request of the given parts.
    public init(
        method: HTTPClient.Method,
        url: URL,
        headers: HTTPClient.Headers,
        body: HTTPClient.Body?,
        timeout: Duration,
        destination: ResponseDestination,
        progress: ProgressReporter? = nil
    ) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
        self.destination = destination
        self.progress = progress
    }
}

/// What a transport got back.
public struct TransportResponse: Sendable {
    /// The HTTP status.
    public var status: Int
    /// The response headers.
    public var headers: HTTPClient.Headers
    /// The body, for `.memory` destinations.
    public var body: Data
    /// How many body bytes were received (written to the file for `.file` destinations).
    public var bodyLength: Int64

    /// A response; `bodyLength` defaults to the length of `body`.
    public init(status: Int, headers: HTTPClient.Headers, body: Data = Data(), bodyLength: Int64? = nil) {
        self.status = status
        self.headers = headers
        self.body = body
        self.bodyLength = bodyLength ?? Int64(body.count)
    }
}
