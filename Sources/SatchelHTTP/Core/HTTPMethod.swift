/// An HTTP request method.
///
/// ```swift
/// let request = HTTPRequest(.put, url: url, body: .file(localURL))
/// ```
public struct HTTPMethod: RawRepresentable, Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    public let rawValue: String

    public init(rawValue: String) { self.rawValue = rawValue.uppercased() }
    public init(stringLiteral value: String) { self.init(rawValue: value) }

    public static let get: HTTPMethod = "GET"
    public static let head: HTTPMethod = "HEAD"
    public static let post: HTTPMethod = "POST"
    public static let put: HTTPMethod = "PUT"
    public static let patch: HTTPMethod = "PATCH"
    public static let delete: HTTPMethod = "DELETE"
    public static let options: HTTPMethod = "OPTIONS"
    /// OData V2's MERGE, used by SAP Gateway for partial updates.
    public static let merge: HTTPMethod = "MERGE"

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
