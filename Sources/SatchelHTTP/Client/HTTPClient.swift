import Logging
public import Foundation

/// Sends HTTP requests: authentication, cookies, redirects, retries, timeouts, streaming and errors with context.
///
/// ```swift
/// let client = HTTPClient(
///     configuration: .init(baseURL: URL(string: "https://gw.example.com/sap/opu/odata/sap/ZNOTES_SRV/")!),
///     auth: [BasicAuth(user: "alice", password: secret), CSRFTokenAuth()]
/// )
/// let notes = try await client.send(HTTPClient.Request(url: URL(string: "Notes?$top=10", relativeTo: nil)!))
/// let file = try await client.download(HTTPClient.Request(url: contentURL), to: localURL) { print($0) }
/// ```
///
/// A client is cheap to share: it is `Sendable`, and every call is independent. Cancelling the calling task
/// cancels the request and throws ``HTTPTransferError`` with code `.cancelled`.
public final class HTTPClient: Sendable {
    /// Base URL, default headers, timeouts, retries, redirects and cookies.
    public let configuration: Configuration
    /// What carries each exchange.
    public let transport: any HTTPTransport
    /// Applied in order; see ``HTTPAuthProvider``.
    public let auth: [any HTTPAuthProvider]

    /// A client of `configuration` over `transport` (the platform's default), with `auth` applied in order.
    public init(
        configuration: Configuration = Configuration(),
        transport: any HTTPTransport = HTTPClient.defaultTransport(),
        auth: [any HTTPAuthProvider] = []
    ) {
        self.configuration = configuration
        self.transport = transport
        self.auth = auth
    }

    /// The transport a client uses when none is given: URLSession on Apple platforms; on Linux,
    /// ``AutomaticTransport`` (``SocketTransport`` for `http`, ``NIOTransport`` for `https`).
    public static func defaultTransport() -> any HTTPTransport { Platform.defaultTransport() }

    var logger: Logger { configuration.logger }

    /// Sends a request and reads the answer into memory.
    ///
    /// Throws ``HTTPTransferError`` for a status outside 2xx (unless `request.validatesStatus` is false), for an HTML
    /// login page where data was expected (`.unauthorized`), and for every transport failure.
    @discardableResult
    public func send(
        _ request: HTTPClient.Request, progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws
        -> HTTPClient.Response
    {
        try await execute(request, destination: .memory, progress: progress.map { ProgressReporter(handler: $0) })
    }

    /// Streams the response body into `file`, in constant memory.
    ///
    /// The file is replaced only when the download succeeds: a failure leaves an existing file as it was. With
    /// `resume`, an existing partial file is continued with a `Range` request (and replaced if the server sends
    /// the whole body instead).
    @discardableResult
    public func download(
        _ request: HTTPClient.Request,
        to file: URL,
        resume: Bool = false,
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> HTTPClient.Response {
        try await execute(
            request,
            destination: .file(file, resume: resume),
            progress: progress.map { ProgressReporter(handler: $0) }
        )
    }

    /// Sends `file` as the request body, streamed from disk.
    @discardableResult
    public func upload(
        _ request: HTTPClient.Request,
        fromFile file: URL,
        contentType: String = "application/octet-stream",
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> HTTPClient.Response {
        var request = request
        request.body = try HTTPClient.Body.file(file, contentType: contentType)
        return try await send(request, progress: progress)
    }
}
