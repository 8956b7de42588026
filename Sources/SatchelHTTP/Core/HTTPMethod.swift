extension HTTPClient {
    /// An HTTP request method.
    ///
    /// ```swift
    /// let request = HTTPClient.Request(.put, url: url, body: .file(localURL))
    /// ```
    public struct Method: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
        public let rawValue: String

        public init(rawValue: String) { self.rawValue = rawValue.uppercased() }
        public init(stringLiteral value: String) { self.init(rawValue: value) }

        public static let get: HTTPClient.Method = "GET"
        public static let head: HTTPClient.Method = "HEAD"
        public static let post: HTTPClient.Method = "POST"
        public static let put: HTTPClient.Method = "PUT"
        public static let patch: HTTPClient.Method = "PATCH"
        public static let delete: HTTPClient.Method = "DELETE"
        public static let options: HTTPClient.Method = "OPTIONS"
        /// OData V2's MERGE, used by SAP Gateway for partial updates.
        public static let merge: HTTPClient.Method = "MERGE"

        /// Idempotent methods (RFC 9110 §9.2.2) may be retried after a connection failure.
        public var isIdempotent: Bool {
            switch rawValue {
            case "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE": true
            default: false
            }
        }

        /// Methods that change state on the server; these carry CSRF/XSRF tokens.
        public var isModifying: Bool {
            switch rawValue {
            case "GET", "HEAD", "OPTIONS", "TRACE": false
            default: true
            }
        }

        public var description: String { rawValue }
    }
}
