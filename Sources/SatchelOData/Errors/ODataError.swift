public import Foundation
public import SatchelHTTP
public import SatchelJSON

/// An error from an OData service or from reading its documents.
///
/// `code` says what kind of failure it is; the server's own error (`code`, `message`, `target`, `details`,
/// `innererror`, SAP's `errordetails`) travels with it, and so do the HTTP status, method, URL and the
/// underlying `HTTPTransferError`. A `412 Precondition Failed` carries the entity's current ETag when the server sent
/// one.
///
/// ```swift
/// do {
///     try await service.update("Products", key: 1, with: changes, ifMatch: etag)
/// } catch let error as ODataError where error.code == .preconditionFailed {
///     print("changed meanwhile; now", error.currentETag ?? "?")
/// }
/// ```
public struct ODataError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name (`notFound`, `preconditionFailed`), as its static property is called.
        public let name: String
        private init(_ name: String) { self.name = name }
        /// The code's name.
        public var description: String { name }

        /// `$metadata` could not be read (not EDMX, malformed or truncated XML).
        public static let invalidMetadata = Code("invalidMetadata")
        /// A response body could not be read as OData (wrong JSON shape, bad value for its type).
        public static let invalidPayload = Code("invalidPayload")
        /// The caller asked for something that cannot be expressed (unknown entity set, a key of the wrong shape,
        /// a value that cannot be written for the version).
        public static let invalidArgument = Code("invalidArgument")
        /// The server refused the request as malformed (400).
        public static let badRequest = Code("badRequest")
        /// The credentials were refused or the session expired (401).
        public static let unauthorized = Code("unauthorized")
        /// The caller may not do this (403).
        public static let forbidden = Code("forbidden")
        /// The entity or resource does not exist (404).
        public static let notFound = Code("notFound")
        /// The operation is not supported by the service (405, 501).
        public static let notSupported = Code("notSupported")
        /// The change conflicts with the server's state (409).
        public static let conflict = Code("conflict")
        /// The ETag sent in `If-Match` is no longer current (412).
        public static let preconditionFailed = Code("preconditionFailed")
        /// The server required an `If-Match` header (428).
        public static let preconditionRequired = Code("preconditionRequired")
        /// Any other 4xx status.
        public static let clientError = Code("clientError")
        /// A server failure (5xx).
        public static let server = Code("server")
        /// The service could not be reached, or the exchange failed (timeout, connection, cancelled).
        public static let connection = Code("connection")
        /// A request of a `$batch` the service did not answer (it stopped after an earlier failure).
        public static let notExecuted = Code("notExecuted")

        static func forStatus(_ status: Int) -> Code {
            switch status {
            case 400: .badRequest
            case 401: .unauthorized
            case 403: .forbidden
            case 404: .notFound
            case 405, 501: .notSupported
            case 409: .conflict
            case 412: .preconditionFailed
            case 428: .preconditionRequired
            case 400...499: .clientError
            default: .server
            }
        }
    }

    /// One entry of V4 `error.details` or SAP's `innererror.errordetails`.
    public struct Detail: Sendable, Hashable {
        /// The detail's code, as the service sent it.
        public var code: String?
        /// The detail's message.
        public var message: String
        /// What the detail is about (a property, a field).
        public var target: String?
        /// SAP: `error`, `warning`, `info`.
        public var severity: String?
        /// A detail with the given parts.
        public init(code: String? = nil, message: String, target: String? = nil, severity: String? = nil) {
            self.code = code
            self.message = message
            self.target = target
            self.severity = severity
        }
    }

    /// What kind of failure this is.
    public var code: Code
    /// A message a person can act on: the server's message when it sent one.
    public var message: String
    /// The service's own error code (`error.code`, e.g. SAP's `SY/530`).
    public var serviceCode: String?
    /// What the error is about (`error.target`, V4).
    public var target: String?
    /// V4 `error.details`.
    public var details: [Detail]
    /// SAP Gateway's `innererror.errordetails`.
    public var sapErrorDetails: [Detail]
    /// The whole `innererror` object as sent (SAP: `transactionid`, `timestamp`, `Error_Resolution`, …).
    public var innerError: JSONValue?
    /// The HTTP status of the response, when there was one.
    public var status: Int?
    /// The request's HTTP method, when a request was sent.
    public var method: HTTPClient.Method?
    /// The request URL, credentials removed.
    public var url: URL?
    /// What the request was for (`read Products`, `update Products(1)`).
    public var operation: String?
    /// On `412`: the entity's ETag as the server reported it (`ETag` header), if it did.
    public var currentETag: String?
    /// Where in a document reading failed (`$metadata` line, a JSON path).
    public var location: String?
    /// The `HTTPTransferError`, `JSONError` or `XMLReadError` underneath.
    public var underlying: (any Error)?

    /// An error with the given parts; everything but the code and the message is optional.
    public init(
        _ code: Code, _ message: String, serviceCode: String? = nil, target: String? = nil, details: [Detail] = [],
        sapErrorDetails: [Detail] = [], innerError: JSONValue? = nil, status: Int? = nil,
        method: HTTPClient.Method? = nil,
        url: URL? = nil, operation: String? = nil, currentETag: String? = nil, location: String? = nil,
        underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.serviceCode = serviceCode
        self.target = target
        self.details = details
        self.sapErrorDetails = sapErrorDetails
        self.innerError = innerError
        self.status = status
        self.method = method
        self.url = url
        self.operation = operation
        self.currentETag = currentETag
        self.location = location
        self.underlying = underlying
    }

    /// The `HTTPTransferError` underneath, when the failure came from an exchange.
    public var httpError: HTTPTransferError? { underlying as? HTTPTransferError }

    /// One line for logs: operation, code, service code, message, target, method and URL with the status, location,
    /// the other detail messages and the current ETag, each when present.
    public var description: String {
        var text = ""
        if let operation { text += "\(operation): " }
        text += "OData \(code)"
        if let serviceCode { text += " [\(serviceCode)]" }
        text += ": \(message)"
        if let target { text += " (target \(target))" }
        if let url {
            text +=
                " (" + (method.map { "\($0) " } ?? "") + url.absoluteString + (status.map { " → \($0)" } ?? "") + ")"
        } else if let status {
            text += " (status \(status))"
        }
        if let location { text += " at \(location)" }
        let extra = (details + sapErrorDetails).map(\.message).filter { $0 != message }
        if !extra.isEmpty { text += "; " + extra.joined(separator: "; ") }
        if let currentETag { text += " (current ETag \(currentETag))" }
        return text
    }
}
