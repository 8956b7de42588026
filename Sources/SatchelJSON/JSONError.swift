/// An error reading, decoding or writing JSON.
///
/// It carries a comparable ``code``, a message a person can act on, the byte offset where the problem
/// was found (with line and column for whole documents), a short excerpt of the input around it, and
/// the path of keys and indices leading to the value being read.
///
/// ```swift
/// do {
///     _ = try JSONValue(parsing: Array(#"{"a": 1 "b": 2}"#.utf8))
/// } catch let error as JSONError where error.code == .unexpectedCharacter {
///     print(error) // JSON error at byte 8 (line 1, column 9): expected ',' or '}' after object member, found '"' …
/// }
/// ```
public struct JSONError: Error, Sendable, CustomStringConvertible, CustomDebugStringConvertible {
    /// What went wrong, comparable with `==` and usable in `switch`.
    ///
    /// A struct over a private enum (as in SwiftNIO), so new codes can be added without breaking callers.
    public struct Code: Hashable, Sendable, CustomStringConvertible {
        private enum Value: Hashable, Sendable {
            case unexpectedEnd, unexpectedCharacter, invalidNumber, numberOutOfRange, invalidEscape
            case invalidUnicode, invalidUTF8, controlCharacterInString, trailingData
            case depthLimitExceeded, sizeLimitExceeded, stringLengthLimitExceeded, numberLengthLimitExceeded
            case memberCountLimitExceeded, elementCountLimitExceeded
            case typeMismatch, keyNotFound, invalidValue
        }

        private let value: Value
        private init(_ value: Value) { self.value = value }

        /// The input ended inside a value.
        public static let unexpectedEnd = Code(.unexpectedEnd)
        /// A byte that cannot appear at this point of the grammar.
        public static let unexpectedCharacter = Code(.unexpectedCharacter)
        /// A number that does not follow the RFC 8259 grammar (leading zero, missing digits …).
        public static let invalidNumber = Code(.invalidNumber)
        /// A valid number that does not fit the requested type (Int64 overflow, a fraction for an integer …).
        public static let numberOutOfRange = Code(.numberOutOfRange)
        /// An unknown escape such as `\x`, or a malformed `\u` escape.
        public static let invalidEscape = Code(.invalidEscape)
        /// A `\u` escape that is a lone UTF-16 surrogate.
        public static let invalidUnicode = Code(.invalidUnicode)
        /// Bytes that are not well-formed UTF-8.
        public static let invalidUTF8 = Code(.invalidUTF8)
        /// An unescaped control character (U+0000…U+001F) inside a string.
        public static let controlCharacterInString = Code(.controlCharacterInString)
        /// Something other than whitespace after the top-level value.
        public static let trailingData = Code(.trailingData)
        /// Nesting deeper than ``JSONLimits/maxDepth``.
        public static let depthLimitExceeded = Code(.depthLimitExceeded)
        /// A document (or streamed element) larger than ``JSONLimits/maxDocumentSize``.
        public static let sizeLimitExceeded = Code(.sizeLimitExceeded)
        /// A string longer than ``JSONLimits/maxStringLength``.
        public static let stringLengthLimitExceeded = Code(.stringLengthLimitExceeded)
        /// A number longer than ``JSONLimits/maxNumberLength``.
        public static let numberLengthLimitExceeded = Code(.numberLengthLimitExceeded)
        /// An object with more members than ``JSONLimits/maxObjectMembers``.
        public static let memberCountLimitExceeded = Code(.memberCountLimitExceeded)
        /// An array with more elements than ``JSONLimits/maxArrayElements``.
        public static let elementCountLimitExceeded = Code(.elementCountLimitExceeded)
        /// A value of another type than the one asked for (a string where a number was expected …).
        public static let typeMismatch = Code(.typeMismatch)
        /// A required object member is missing.
        public static let keyNotFound = Code(.keyNotFound)
        /// A value that cannot be written as JSON (a NaN or infinite Double).
        public static let invalidValue = Code(.invalidValue)

        /// The code's name, as in the static property: `unexpectedEnd`, `typeMismatch`, …
        public var description: String { "\(value)" }
    }

    /// One step of the path to the value being read: an object key or an array index.
    public enum PathComponent: Hashable, Sendable, CustomStringConvertible {
        /// A member of an object, by key.
        case key(String)
        /// An element of an array, by 0-based index.
        case index(Int)

        /// The key as it is, or the index in brackets (`[3]`).
        public var description: String {
            switch self {
            case .key(let key): return key
            case .index(let index): return "[\(index)]"
            }
        }
    }

    /// What went wrong.
    public var code: Code
    /// A short explanation, e.g. `expected ',' or '}' after object member, found 'x'`.
    public var message: String
    /// Byte offset from the start of the document (or stream) where the problem was found.
    public var offset: Int?
    /// 1-based line of ``offset``, when the whole document was at hand.
    public var line: Int?
    /// 1-based column (in bytes) of ``offset``, when the whole document was at hand.
    public var column: Int?
    /// Up to a few dozen characters of the input around ``offset``.
    public var excerpt: String?
    /// Keys and indices from the document root to the value being read, e.g. `value[3].Price`.
    public var path: [PathComponent]

    /// Creates an error; readers fill in position and excerpt themselves.
    public init(
        code: Code, message: String, offset: Int? = nil, line: Int? = nil, column: Int? = nil,
        excerpt: String? = nil, path: [PathComponent] = []
    ) {
        self.code = code
        self.message = message
        self.offset = offset
        self.line = line
        self.column = column
        self.excerpt = excerpt
        self.path = path
    }

    /// The path rendered as `value[3].Price`; empty at the root.
    public var pathDescription: String {
        var text = ""
        for component in path {
            switch component {
            case .key(let key):
                if !text.isEmpty { text += "." }
                text += key
            case .index(let index):
                text += "[\(index)]"
            }
        }
        return text
    }

    /// `JSON error at byte 8 (line 1, column 9) in value[3].Price: <message> near “<excerpt>”`; the position, path
    /// and excerpt appear only when known.
    public var description: String {
        var text = "JSON error"
        if let offset {
            text += " at byte \(offset)"
            if let line, let column { text += " (line \(line), column \(column))" }
        }
        if !path.isEmpty { text += " in \(pathDescription)" }
        text += ": " + message
        if let excerpt { text += " near \u{201C}\(excerpt)\u{201D}" }
        return text
    }

    /// `description` preceded by `JSONError(<code>): `.
    public var debugDescription: String { "JSONError(\(code)): \(description)" }

    /// This error with `component` put in front of its path, as it propagates out of a container.
    public func prefixingPath(_ component: PathComponent) -> JSONError {
        var copy = self
        copy.path.insert(component, at: 0)
        return copy
    }
}
