import Foundation
import SatchelHTTP
public import SatchelJSON

/// A failed Nuxeo call: the server's `exception` entity (status and message), or what went wrong before one could be
/// read.
public struct NuxeoError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure; the constants below are those this client throws.
    public struct Code: RawRepresentable, Sendable, Hashable {
        /// The code's name (`server`, `transport`…).
        public let rawValue: String
        /// A code by name.
        public init(rawValue: String) { self.rawValue = rawValue }
        init(_ rawValue: String) { self.rawValue = rawValue }

        /// The server refused the request (its `exception` entity).
        public static let server = Code("server")
        /// The answer could not be read (not JSON, a login page, an unknown shape).
        public static let invalidResponse = Code("invalidResponse")
        /// The request could not be sent or its answer not received.
        public static let transport = Code("transport")
        /// The caller's request is wrong before it is sent.
        public static let invalidArgument = Code("invalidArgument")
        /// A configuration file cannot be used.
        public static let configuration = Code("configuration")
    }

    /// The kind of failure.
    public var code: Code
    /// The server's message, or what went wrong.
    public var message: String
    /// The HTTP status (the exception entity's own `status`, else the response's).
    public var status: Int?
    /// What the request was for (`GET path/default-domain`).
    public var operation: String?

    /// An error of this kind; `status` and `operation` are optional.
    public init(_ code: Code, _ message: String, status: Int? = nil, operation: String? = nil) {
        self.code = code
        self.message = message
        self.status = status
        self.operation = operation
    }

    /// The server's `exception` entity (`{"entity-type":"exception","status":404,"message":"…"}`); its stack trace,
    /// when the server sends one, is not kept.
    public init(exception value: JSONValue, status: Int? = nil) {
        self.init(
            .server, value["message"]?.stringValue ?? "the server refused the request without a message",
            status: value["status"]?.int64Value.map(Int.init) ?? status)
    }

    /// `Nuxeo code [status]: message (operation)`, without the parts that are nil.
    public var description: String {
        var text = "Nuxeo \(code.rawValue)"
        if let status { text += " [\(status)]" }
        text += ": " + message
        if let operation { text += " (\(operation))" }
        return text
    }
}
