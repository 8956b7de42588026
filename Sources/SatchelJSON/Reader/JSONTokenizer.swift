/// A token of a JSON document, as produced by ``JSONTokenizer``.
///
/// Strings, keys and numbers are spans of the input; turn them into values with the tokenizer's
/// ``JSONTokenizer/string(_:)`` and ``JSONTokenizer/number(_:)``.
public enum JSONToken: Sendable, Hashable {
    /// `{`.
    case beginObject
    /// `}`.
    case endObject
    /// `[`.
    case beginArray
    /// `]`.
    case endArray
    /// An object member's key (the `:` after it is consumed with it).
    case key(JSONSpan)
    /// A string value.
    case string(JSONSpan)
    /// A number value, its exact text in the span.
    case number(JSONSpan)
    /// `true` or `false`.
    case bool(Bool)
    /// `null`.
    case null
}

/// Where a string, key or number token lies in the input.
public struct JSONSpan: Sendable, Hashable {
    /// Offset of the first byte of the content (after the opening quote for strings).
    public var offset: Int
    /// Length of the content in bytes (without the quotes).
    public var length: Int
    /// Whether the string content contains escapes.
    public var hasEscapes: Bool

    /// A span of `length` bytes at `offset`; `hasEscapes` says whether the text has backslash escapes to decode.
    @inlinable
    public init(offset: Int, length: Int, hasEscapes: Bool) {
        self.offset = offset
        self.length = length
        self.hasEscapes = hasEscapes
    }
}

/// A pull tokenizer: returns the tokens of one document in order, checking the grammar, UTF-8,
/// escapes and limits as it goes.
///
/// ```swift
/// try bytes.withUnsafeBytes { buffer in
///     var tokenizer = try JSONTokenizer(unsafeBytes: buffer)
///     while let token = try tokenizer.next() {
///         if case .key(let span) = token { print(tokenizer.string(span)) }
///     }
/// }
/// ```
///
/// Not `Sendable`: like ``JSONReader`` it points into memory lent for the duration of a closure.
public struct JSONTokenizer {
    @usableFromInline var reader: JSONReader
    /// One entry per open container: element count × 2, plus 1 for an object.
    @usableFromInline var stack: [Int] = []
    @usableFromInline var state: State = .root

    @usableFromInline
    enum State: Sendable {
        case root, objectFirst, objectKey, value, arrayFirst, afterValue, end
    }

    /// A tokenizer over memory the caller keeps alive and unchanged while it is used.
    public init(unsafeBytes bytes: UnsafeRawBufferPointer, limits: JSONLimits = .default) throws {
        reader = try JSONReader(unsafeBytes: bytes, limits: limits)
        stack.reserveCapacity(16)
    }

    /// Byte offset of the next unread byte.
    @inlinable public var offset: Int { reader.offset }

    /// The next token, or `nil` after the document ended (having checked nothing but whitespace follows).
    @inlinable
    public mutating func next() throws -> JSONToken? {
        while true {
            switch state {
            case .root, .value:
                return try valueToken()
            case .objectFirst:
                if reader.peekByte() == UInt8(ascii: "}") {
                    reader.index += 1
                    return close()
                }
                return try keyToken(first: true)
            case .objectKey:
                return try keyToken(first: false)
            case .arrayFirst:
                if reader.peekByte() == UInt8(ascii: "]") {
                    reader.index += 1
                    return close()
                }
                try countElement()
                return try valueToken()
            case .afterValue:
                guard let top = stack.last else {
                    state = .end
                    continue
                }
                let byte = reader.peekByte()
                let isObject = top & 1 == 1
                if byte == UInt8(ascii: ",") {
                    reader.index += 1
                    if isObject {
                        state = .objectKey
                    } else {
                        try countElement()
                        state = .value
                    }
                    continue
                }
                if byte == (isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")) {
                    reader.index += 1
                    return close()
                }
                throw reader.syntaxError(
                    expected: isObject ? "',' or '}' after object member" : "',' or ']' after array element",
                    at: reader.index)
            case .end:
                try reader.finish()
                return nil
            }
        }
    }

    @inlinable
    mutating func countElement() throws {
        stack[stack.count - 1] += 2
        if stack[stack.count - 1] >> 1 > reader.limits.maxArrayElements { throw reader.elementLimitError() }
    }

    @inlinable
    mutating func close() -> JSONToken {
        let isObject = stack.removeLast() & 1 == 1
        reader.depth -= 1
        state = .afterValue
        return isObject ? .endObject : .endArray
    }

    @inlinable
    mutating func keyToken(first: Bool) throws -> JSONToken {
        guard reader.peekByte() == UInt8(ascii: "\"") else {
            throw reader.syntaxError(expected: first ? "a string key or '}'" : "a string key", at: reader.index)
        }
        let span = try reader.scanString()
        guard reader.peekByte() == UInt8(ascii: ":") else {
            throw reader.syntaxError(expected: "':' after object key", at: reader.index)
        }
        reader.index += 1
        stack[stack.count - 1] += 2
        if stack[stack.count - 1] >> 1 > reader.limits.maxObjectMembers { throw reader.memberLimitError() }
        state = .value
        return .key(
            JSONSpan(offset: reader.origin + span.start, length: span.end - span.start, hasEscapes: span.escaped))
    }

    @inlinable
    mutating func valueToken() throws -> JSONToken {
        state = .afterValue
        switch reader.peekByte() {
        case UInt8(ascii: "\""):
            let span = try reader.scanString()
            return .string(
                JSONSpan(offset: reader.origin + span.start, length: span.end - span.start, hasEscapes: span.escaped))
        case UInt8(ascii: "{"):
            try reader.enterContainer()
            stack.append(1)
            state = .objectFirst
            return .beginObject
        case UInt8(ascii: "["):
            try reader.enterContainer()
            stack.append(0)
            state = .arrayFirst
            return .beginArray
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            return .bool(try reader.readBool())
        case UInt8(ascii: "n"):
            try reader.readNull()
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            let span = try reader.scanNumber()
            return .number(
                JSONSpan(offset: reader.origin + span.start, length: span.end - span.start, hasEscapes: false))
        default:
            throw reader.syntaxError(expected: "a value", at: reader.index)
        }
    }

    /// The text of a string or key token.
    public func string(_ span: JSONSpan) -> String {
        reader.makeString(
            StringSpan(
                start: span.offset - reader.origin, end: span.offset - reader.origin + span.length,
                escaped: span.hasEscapes))
    }

    /// The number of a number token, with its exact text.
    public func number(_ span: JSONSpan) -> JSONNumber {
        let bytes = UnsafeBufferPointer(start: reader.base + span.offset - reader.origin, count: span.length)
        return JSONNumber(uncheckedText: String(decoding: bytes, as: UTF8.self))
    }
}
