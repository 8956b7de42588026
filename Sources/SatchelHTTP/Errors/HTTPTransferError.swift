public import Foundation

/// The one error SatchelHTTP throws: a comparable ``Code`` plus everything a person needs to act on it.
///
/// ```swift
/// do {
///     _ = try await client.send(request)
/// } catch let error as HTTPTransferError where error.code == .unauthorized {
///     print("log in again:", error.serverMessage ?? error.message)
/// }
/// ```
///
/// Descriptions never contain credentials: URLs lose their user info and secret query items, and the
/// response excerpt is bounded.
public struct HTTPTransferError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What went wrong, comparable with `==`; new codes can be added without breaking `switch`es over known ones.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name (`not found`).
        public var description: String { name }

        /// The server was silent longer than the request's timeout.
        public static let timeout = Code("timeout")
        /// The calling task was cancelled (or the transport shut down).
        public static let cancelled = Code("cancelled")
        /// The connection could not be made or broke (refused, reset, unknown host).
        public static let connection = Code("connection")
        /// The secure connection failed (an untrusted certificate, a handshake failure, unreadable TLS files).
        public static let tls = Code("TLS")
        /// Status 400.
        public static let badRequest = Code("bad request")
        /// Status 401, or credentials the server refused another way (an HTML login page, a failed login).
        public static let unauthorized = Code("unauthorized")
        /// Status 403.
        public static let forbidden = Code("forbidden")
        /// Status 404.
        public static let notFound = Code("not found")
        /// Status 405.
        public static let methodNotAllowed = Code("method not allowed")
        /// Status 406.
        public static let notAcceptable = Code("not acceptable")
        /// Status 409.
        public static let conflict = Code("conflict")
        /// Status 410.
        public static let gone = Code("gone")
        /// Status 412 (an `If-Match` that no longer matches).
        public static let preconditionFailed = Code("precondition failed")
        /// Status 413.
        public static let payloadTooLarge = Code("payload too large")
        /// Status 415.
        public static let unsupportedMediaType = Code("unsupported media type")
        /// Status 416.
        public static let rangeNotSatisfiable = Code("range not satisfiable")
        /// Status 429.
        public static let tooManyRequests = Code("too many requests")
        /// Any other 4xx status.
        public static let clientError = Code("client error")
        /// Status 503.
        public static let serviceUnavailable = Code("service unavailable")
        /// Any other 5xx status.
        public static let server = Code("server error")
        /// The server's answer could not be read: bad status line, malformed headers, wrong body, cut short.
        public static let invalidResponse = Code("invalid response")
        /// The answer was larger than the limit set for reading it into memory.
        public static let responseTooLarge = Code("response too large")
        /// More redirects than the client's `maximumRedirects` (any redirect, when it is 0).
        public static let tooManyRedirects = Code("too many redirects")
        /// The request could not be built (bad URL, unreadable body file, …).
        public static let invalidRequest = Code("invalid request")
        /// A local file could not be read or written.
        public static let fileSystem = Code("file system")
    }

    /// What went wrong, to compare and switch on.
    public var code: Code
    /// What went wrong, in words.
    public var message: String
    /// What the request was for (``HTTPClient/Request/operation``).
    public var operation: String?
    /// The request's method, when there was a request.
    public var method: HTTPClient.Method?
    /// The request URL with credentials removed.
    public var url: URL? {
        didSet { url = url.map(Redaction.url) }
    }
    /// The response status, when there was a response.
    public var status: Int?
    /// The response headers, when there was a response (an `ETag` on a 412, `Retry-After` on a 429, …).
    public var responseHeaders: HTTPClient.Headers?
    /// The start of the response body, at most ``ResponseExcerpt/limit`` bytes.
    public var responseExcerpt: String?
    /// The error message the server itself sent in its body, when one could be found.
    public var serverMessage: String?
    /// The error behind this one (a system, transport or decoding error).
    public var underlying: (any Error)?

    /// An error of `code` and `message`; `url` loses its credentials and secret query items.
    public init(
        _ code: Code,
        _ message: String,
        operation: String? = nil,
        method: HTTPClient.Method? = nil,
        url: URL? = nil,
        status: Int? = nil,
        responseHeaders: HTTPClient.Headers? = nil,
        responseExcerpt: String? = nil,
        serverMessage: String? = nil,
        underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.operation = operation
        self.method = method
        self.url = url.map(Redaction.url)
        self.status = status
        self.responseHeaders = responseHeaders
        self.responseExcerpt = responseExcerpt
        self.serverMessage = serverMessage
        self.underlying = underlying
    }

    /// Whether the error says the credentials or the session are no longer good.
    public var isAuthenticationFailure: Bool { code == .unauthorized }

    /// `operation: message (METHOD url → status): server message [underlying]`, each part when known, secrets redacted.
    public var description: String {
        var text = ""
        if let operation { text += "\(operation): " }
        text += message
        if let method, let url {
            text += " (\(method) \(url.absoluteString)" + (status.map { " → \($0)" } ?? "") + ")"
        } else if let status {
            text += " (status \(status))"
        }
        if let serverMessage, !serverMessage.isEmpty { text += ": \(serverMessage)" }
        if let underlying { text += " [\(Redaction.text(String(describing: underlying)))]" }
        return text
    }

    /// The code and `description`, then the response excerpt.
    public var debugDescription: String {
        var text = "HTTPTransferError(\(code)): \(description)"
        if let responseExcerpt, !responseExcerpt.isEmpty {
            text += "\n--- response body (excerpt) ---\n\(responseExcerpt)"
        }
        return text
    }
}

/// Bounded excerpts of response bodies for error context.
public enum ResponseExcerpt {
    /// The largest excerpt kept, in bytes.
    public static let limit = 2048

    static func make(_ data: Data) -> String? {
        guard !data.isEmpty else { return nil }
        let prefix = data.prefix(limit)
        var text = String(decoding: prefix, as: UTF8.self)
        if data.count > limit { text += "… (\(data.count) bytes in all)" }
        return Redaction.text(text)
    }
}
