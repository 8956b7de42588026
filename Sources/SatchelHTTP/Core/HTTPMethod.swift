extension HTTPClient {
    /// An HTTP request method.
    ///
    /// ```swift
    /// let request = try HTTPClient.Request(.put, url: url, body: .file(localURL))
    /// ```
    public struct Method: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
        /// The method's name, upper-case.
        public let rawValue: String

        /// The method named `rawValue`, upper-cased.
        public init(rawValue: String) { self.rawValue = rawValue.uppercased() }
        /// The method named by a literal, upper-cased.
        public init(stringLiteral value: String) { self.init(rawValue: value) }

        /// `GET`.
        public static let get: HTTPClient.Method = "GET"
        /// `HEAD`.
        public static let head: HTTPClient.Method = "HEAD"
        /// `POST`.
        public static let post: HTTPClient.Method = "POST"
        /// `PUT`.
        public static let put: HTTPClient.Method = "PUT"
        /// `PATCH`.
        public static let patch: HTTPClient.Method = "PATCH"
        /// `DELETE`.
        public static let delete: HTTPClient.Method = "DELETE"
        /// `OPTIONS`.
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

        /// The method's name.
        public var description: String { rawValue }
    }
}
