import Foundation

/// An error from a CMIS repository or from reading its responses.
///
/// `code` says what went wrong in CMIS terms (the exceptions of CMIS 1.1 part I, 2.2.1.4, plus transport-level
/// `unauthorized`/`connection` and `invalidResponse` for replies this client cannot read). The server's own
/// message, the HTTP status and the underlying cause (`underlying`, e.g. the transport's error) travel with it.
///
/// ```swift
/// do {
///     _ = try BrowserParser.object(data)
/// } catch let error as CMISError where error.code == .objectNotFound {
///     print("gone:", error.message)
/// }
/// ```
public struct CMISError: Error, Sendable, CustomStringConvertible {
    /// What kind of failure this is. New codes may be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        /// The code's name; for server exceptions, the Browser binding's exception name.
        public let name: String
        private init(_ name: String) { self.name = name }

        /// The code's name, as in `name`.
        public var description: String { name }

        /// One or more input values are invalid (HTTP 400).
        public static let invalidArgument = Code("invalidArgument")
        /// The object or repository does not exist (HTTP 404).
        public static let objectNotFound = Code("objectNotFound")
        /// The caller may not do this (HTTP 403).
        public static let permissionDenied = Code("permissionDenied")
        /// The repository does not support the operation (HTTP 405).
        public static let notSupported = Code("notSupported")
        /// The operation violates a repository or type constraint (HTTP 409).
        public static let constraint = Code("constraint")
        /// The document already has content and overwriting was not asked for (HTTP 409).
        public static let contentAlreadyExists = Code("contentAlreadyExists")
        /// The property filter is invalid (HTTP 400).
        public static let filterNotValid = Code("filterNotValid")
        /// The name is invalid or already taken in the folder (HTTP 409).
        public static let nameConstraintViolation = Code("nameConstraintViolation")
        /// The repository could not store or retrieve content (HTTP 500).
        public static let storage = Code("storage")
        /// The object's type does not allow a content stream (HTTP 403).
        public static let streamNotSupported = Code("streamNotSupported")
        /// The object changed since it was read (change token mismatch) (HTTP 409).
        public static let updateConflict = Code("updateConflict")
        /// The operation conflicts with the object's versioning state (HTTP 409).
        public static let versioning = Code("versioning")
        /// Any other server failure (HTTP 500).
        public static let runtime = Code("runtime")
        /// The credentials were refused (HTTP 401).
        public static let unauthorized = Code("unauthorized")
        /// The repository could not be reached.
        public static let connection = Code("connection")
        /// The response could not be read as CMIS (malformed JSON/XML, wrong shape, missing data).
        public static let invalidResponse = Code("invalidResponse")

        /// The server exception codes, by their Browser binding names.
        package static let serverExceptions: [String: Code] = Dictionary(
            uniqueKeysWithValues: [
                invalidArgument, objectNotFound, permissionDenied, notSupported, constraint, contentAlreadyExists,
                filterNotValid, nameConstraintViolation, storage, streamNotSupported, updateConflict, versioning,
                runtime,
            ].map { ($0.name, $0) }
        )
    }

    /// What kind of failure this is.
    public var code: Code
    /// A message a person can act on: the server's message for server exceptions.
    public var message: String
    /// The exception name the server sent (`"objectNotFound"` …), if it sent one.
    public var serverException: String?
    /// The HTTP status of the response, if there was one.
    public var status: Int?
    /// For unreadable responses: the byte offset in the body where reading failed.
    public var offset: Int?
    /// For unreadable responses: where in the document the problem is (`A1.capabilities`, `objects[2].object`).
    public var path: String?
    /// The underlying cause: the transport's error (SatchelCMIS's `httpError` reads it), a `JSONError`…
    public var underlying: (any Error)?

    /// An error with this code and message and optional context.
    public init(
        _ code: Code, _ message: String, serverException: String? = nil, status: Int? = nil, offset: Int? = nil,
        path: String? = nil, underlying: (any Error)? = nil
    ) {
        self.code = code
        self.message = message
        self.serverException = serverException
        self.status = status
        self.offset = offset
        self.path = path
        self.underlying = underlying
    }

    /// `CMIS <code>: <message>`, followed by ` (HTTP <status>)`, ` at <path>` and ` at byte <offset>` when those
    /// are set.
    public var description: String {
        var text = "CMIS \(code): \(message)"
        if let status { text += " (HTTP \(status))" }
        if let path, !path.isEmpty { text += " at \(path)" }
        if let offset { text += " at byte \(offset)" }
        return text
    }
}
