public import Foundation

extension HTTPClient {
    /// An HTTP request: a value that can be built, copied and sent again.
    ///
    /// ```swift
    /// var request = HTTPClient.Request(.get, url: URL(string: "https://example.com/files/a.bin")!)
    /// request.range = .bytes(from: 1024)
    /// request.timeout = .seconds(10)
    /// let response = try await client.send(request)
    /// ```
    public struct Request: Sendable {
        /// The method (`GET` by default).
        public var method: HTTPClient.Method
        /// An absolute URL, or one relative to the client's `baseURL`.
        public var url: URL
        /// The request's own headers; they win over the client's defaults.
        public var headers: HTTPClient.Headers
        /// The body, sent again as it is on a retry or resend; nil for none.
        public var body: HTTPClient.Body?
        /// How long the request may wait for the server to answer or to send more bytes; `nil` uses the client's.
        public var timeout: Duration?
        /// What the request is for, in words ("get children of /Notes"); carried into errors and logs.
        public var operation: String?
        /// An id that makes a non-idempotent request safe to repeat (OData repeatability, SAP offline).
        /// A POST is retried only when it has one; it is sent as `Repeatability-Request-ID`.
        public var repeatabilityID: String?
        /// Whether a response outside 2xx throws an ``HTTPTransferError`` (the default) or is returned.
        public var validatesStatus: Bool = true

        /// A request; the status is validated by default.
        public init(
            _ method: HTTPClient.Method = .get,
            url: URL,
            headers: HTTPClient.Headers = [:],
            body: HTTPClient.Body? = nil,
            operation: String? = nil
        ) {
            self.method = method
            self.url = url
            self.headers = headers
            self.body = body
            self.operation = operation
        }

        /// The `Range` header as a typed value.
        public var range: ByteRange? {
            get { headers["Range"].flatMap(ByteRange.init(headerValue:)) }
            set { headers["Range"] = newValue?.headerValue }
        }

        /// Whether the caller asked for HTML or for anything (then an HTML page is data, not a login page).
        var acceptsHTML: Bool {
            guard let accept = headers["Accept"]?.lowercased() else { return false }
            return accept.contains("html") || accept.contains("*/*")
        }

        /// Whether the request may be sent again after a failure.
        var isRetryable: Bool { method.isIdempotent || repeatabilityID != nil }
    }
}

/// A byte range for `Range` requests (RFC 9110 §14).
public enum ByteRange: Sendable, Hashable {
    /// Bytes `lower...upper`, both inclusive.
    case bytes(ClosedRange<Int64>)
    /// Every byte from `from` to the end.
    case from(Int64)
    /// The last `n` bytes.
    case suffix(Int64)

    /// Every byte from `start` to the end.
    public static func bytes(from start: Int64) -> ByteRange { .from(start) }

    /// The `Range` header value (`bytes=0-99`, `bytes=100-`, `bytes=-100`).
    public var headerValue: String {
        switch self {
        case .bytes(let range): "bytes=\(range.lowerBound)-\(range.upperBound)"
        case .from(let start): "bytes=\(start)-"
        case .suffix(let count): "bytes=-\(count)"
        }
    }

    init?(headerValue: String) {
        guard headerValue.hasPrefix("bytes="), !headerValue.contains(",") else { return nil }
        let spec = headerValue.dropFirst(6)
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        switch (Int64(parts[0]), Int64(parts[1])) {
        case (let lower?, let upper?) where lower <= upper: self = .bytes(lower...upper)
        case (let lower?, nil) where parts[1].isEmpty: self = .from(lower)
        case (nil, let count?) where parts[0].isEmpty: self = .suffix(count)
        default: return nil
        }
    }
}
