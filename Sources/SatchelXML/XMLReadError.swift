/// Why an XML document could not be read, and where.
///
/// ```swift
/// do {
///     _ = try XDocument.parse(data: data)
/// } catch let error as XMLReadError where error.code == .malformed {
///     print(error.line, error.column, error.message)
/// }
/// ```
public struct XMLReadError: Error, Sendable, Hashable, CustomStringConvertible {
    /// A comparable error category; a struct over a private enum, so new codes can be added later.
    ///
    /// ```swift
    /// if error.code == .limitExceeded { /* … */ }
    /// ```
    public struct Code: Sendable, Hashable, CustomStringConvertible {
        private enum Value: String, Sendable, Hashable {
            case malformed, unexpectedEnd, limitExceeded, entityRejected, unreadable, empty
        }
        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The document is not well-formed XML.
        public static let malformed = Code(.malformed)
        /// The document stops before its root element is closed (a truncated download).
        public static let unexpectedEnd = Code(.unexpectedEnd)
        /// A ``XMLReadLimits`` bound was exceeded.
        public static let limitExceeded = Code(.limitExceeded)
        /// An entity could not be used: undeclared, recursive, or expanding too far (billion laughs).
        public static let entityRejected = Code(.entityRejected)
        /// The input could not be opened or read.
        public static let unreadable = Code(.unreadable)
        /// The input holds no root element.
        public static let empty = Code(.empty)

        /// The code's name: `malformed`, `unexpectedEnd`, `limitExceeded`, `entityRejected`, `unreadable` or `empty`.
        public var description: String { value.rawValue }
    }

    /// The category.
    public var code: Code
    /// What went wrong, for a person.
    public var message: String
    /// 1-based line of the input where the parser stopped (0 when unknown).
    public var line: Int
    /// 1-based column of the input where the parser stopped (0 when unknown).
    public var column: Int
    /// The underlying parser's own message, if it reported one (Linux's `XMLParser` reports only a code).
    public var parserMessage: String?
    /// The underlying parser's error code, if it reported one: libxml2's `xmlParserErrors` number, which is also
    /// the raw value of `XMLParser.ErrorCode`.
    public var parserCode: Int?

    /// Creates an error.
    ///
    /// ```swift
    /// let error = XMLReadError(code: .empty, message: "no root element")
    /// ```
    public init(
        code: Code, message: String, line: Int = 0, column: Int = 0, parserMessage: String? = nil,
        parserCode: Int? = nil
    ) {
        self.code = code
        self.message = message
        self.line = line
        self.column = column
        self.parserMessage = parserMessage
        self.parserCode = parserCode
    }

    /// `XML <code> at line <line>, column <column>: <message>`, then libxml2's error number and the parser's own
    /// message when there are any.
    public var description: String {
        var text = "XML \(code) at line \(line), column \(column): \(message)"
        if let parserCode { text += " (libxml2 error \(parserCode))" }
        if let parserMessage, !parserMessage.isEmpty { text += ": \(parserMessage)" }
        return text
    }
}
