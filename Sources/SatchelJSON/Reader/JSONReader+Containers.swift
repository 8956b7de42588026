extension JSONReader {
    /// Reads an object, calling `body` once per member with its key and the reader at its value.
    ///
    /// `body` reads the value (or calls ``skipValue()``); a member whose value `body` leaves unread is
    /// skipped for it, so unknown members need no code. Keys are compared as bytes, without creating a
    /// `String`. Errors thrown inside `body` get the member's key added to their ``JSONError/path``.
    ///
    /// ```swift
    /// var id: Int64?, name: String?
    /// try reader.readObject { key, reader in
    ///     switch key {
    ///     case "ID": id = try reader.readInt64()
    ///     case "Name": name = try reader.readString()
    ///     default: break  // skipped
    ///     }
    /// }
    /// ```
    @inlinable
    public mutating func readObject(_ body: (JSONKey, inout JSONReader) throws -> Void) throws {
        guard peekByte() == UInt8(ascii: "{") else { throw typeMismatch(expected: "an object", at: index) }
        try enterContainer()
        if peekByte() == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return
        }
        var count = 0
        while true {
            guard index < end, base[index] == UInt8(ascii: "\"") else {
                throw syntaxError(expected: count == 0 ? "a string key or '}'" : "a string key", at: index)
            }
            let span = try scanString()
            let key = JSONKey(base: base, span: span)
            guard peekByte() == UInt8(ascii: ":") else {
                throw syntaxError(expected: "':' after object key", at: index)
            }
            index += 1
            count += 1
            if count > limits.maxObjectMembers { throw memberLimitError() }
            skipWhitespace()
            let valueStart = index
            do {
                try body(key, &self)
                if index == valueStart { try skipValue() }
            } catch let error as JSONError {
                throw error.prefixingPath(.key(key.stringValue))
            }
            let byte = peekByte()
            index += 1
            if byte == UInt8(ascii: ",") {
                skipWhitespace()
                continue
            }
            if byte == UInt8(ascii: "}") { break }
            index -= 1
            throw syntaxError(expected: "',' or '}' after object member", at: index)
        }
        depth -= 1
    }

    /// Reads an array, calling `body` once per element with the reader at the element.
    ///
    /// An element `body` leaves unread is skipped. Errors get the element's index added to their path.
    ///
    /// ```swift
    /// var ids: [Int64] = []
    /// try reader.readArray { ids.append(try $0.readInt64()) }
    /// ```
    @inlinable
    public mutating func readArray(_ body: (inout JSONReader) throws -> Void) throws {
        guard peekByte() == UInt8(ascii: "[") else { throw typeMismatch(expected: "an array", at: index) }
        try enterContainer()
        if peekByte() == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return
        }
        var count = 0
        while true {
            if count >= limits.maxArrayElements { throw elementLimitError() }
            let valueStart = index
            do {
                try body(&self)
                if index == valueStart { try skipValue() }
            } catch let error as JSONError {
                throw error.prefixingPath(.index(count))
            }
            count += 1
            let byte = peekByte()
            index += 1
            if byte == UInt8(ascii: ",") {
                skipWhitespace()
                continue
            }
            if byte == UInt8(ascii: "]") { break }
            index -= 1
            throw syntaxError(expected: "',' or ']' after array element", at: index)
        }
        depth -= 1
    }

    /// Reads an array whose elements are all `T`.
    ///
    /// ```swift
    /// let products = try reader.readArray(of: Product.self)
    /// ```
    @inlinable
    public mutating func readArray<T: JSONDecodable>(of type: T.Type) throws -> [T] {
        var result: [T] = []
        try readArray { result.append(try T(from: &$0)) }
        return result
    }

    /// Reads any value `T` can be read from.
    @inlinable
    public mutating func decode<T: JSONDecodable>(_ type: T.Type = T.self) throws -> T {
        try T(from: &self)
    }

    /// Reads `T`, or `nil` for `null`.
    ///
    /// ```swift
    /// let note = try reader.decodeIfPresent(String.self)
    /// ```
    @inlinable
    public mutating func decodeIfPresent<T: JSONDecodable>(_ type: T.Type = T.self) throws -> T? {
        try readNil() ? nil : T(from: &self)
    }

    /// Returns `value`, or throws a `keyNotFound` error naming `key` when it is `nil`.
    ///
    /// For the end of a hand-written or generated ``JSONDecodable`` initializer:
    ///
    /// ```swift
    /// self.id = try reader.required(id, "ID")
    /// ```
    @inlinable
    public func required<T>(_ value: T?, _ key: @autoclosure () -> String) throws -> T {
        if let value { return value }
        throw missingKey(key())
    }

    @usableFromInline @inline(never)
    func missingKey(_ key: String) -> JSONError {
        // `index` is just past the object, which is where the member was found missing.
        makeError(.keyNotFound, "required member '\(key)' is missing", at: max(0, index - 1))
    }

    /// Skips the next value, validating it as thoroughly as reading it would.
    public mutating func skipValue() throws {
        switch peekByte() {
        case UInt8(ascii: "\""):
            _ = try scanString()
        case UInt8(ascii: "{"):
            try readObject { _, reader in try reader.skipValue() }
        case UInt8(ascii: "["):
            try readArray { try $0.skipValue() }
        case UInt8(ascii: "t"), UInt8(ascii: "f"):
            _ = try readBool()
        case UInt8(ascii: "n"):
            try readNull()
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            _ = try scanNumber()
        default:
            throw syntaxError(expected: "a value", at: index)
        }
    }
}

/// The key of an object member being read by ``JSONReader/readObject(_:)``.
///
/// A key refers to the reader's input: use it inside the `readObject` closure only. Compare it with
/// string literals in a `switch` (bytes are compared, nothing is allocated) or with `==`; ask for
/// ``stringValue`` when you need a `String`.
///
/// ```swift
/// switch key {
/// case "Name": name = try reader.readString()
/// default: break
/// }
/// ```
///
/// Not `Sendable`, like the reader: a key points into the reader's input, valid only during the `readObject` call.
public struct JSONKey: CustomStringConvertible {
    @usableFromInline let base: UnsafePointer<UInt8>
    @usableFromInline let count: Int
    /// The decoded key, when it contains escapes (rare), so comparisons see the real characters.
    @usableFromInline let unescaped: String?

    @inlinable
    init(base: UnsafePointer<UInt8>, span: StringSpan) {
        self.base = base + span.start
        self.count = span.end - span.start
        self.unescaped = span.escaped ? JSONKey.decode(base, span) : nil
    }

    @usableFromInline
    static func decode(_ base: UnsafePointer<UInt8>, _ span: StringSpan) -> String {
        JSONReader.unescape(UnsafeBufferPointer(start: base + span.start, count: span.end - span.start))
    }

    /// The key as a `String`.
    @inlinable
    public var stringValue: String {
        unescaped ?? String(decoding: UnsafeBufferPointer(start: base, count: count), as: UTF8.self)
    }

    /// The key as a `String` (`stringValue`).
    public var description: String { stringValue }

    /// Whether the key's UTF-8 equals `bytes`.
    @inlinable @inline(__always)
    func equals(_ other: UnsafePointer<UInt8>, _ otherCount: Int) -> Bool {
        guard otherCount == count else { return false }
        var i = 0
        let lhs = UnsafeRawPointer(base)
        let rhs = UnsafeRawPointer(other)
        while i + 8 <= count {
            if lhs.loadUnaligned(fromByteOffset: i, as: UInt64.self)
                != rhs.loadUnaligned(fromByteOffset: i, as: UInt64.self)
            {
                return false
            }
            i += 8
        }
        while i < count {
            if base[i] != other[i] { return false }
            i += 1
        }
        return true
    }

    /// Matches a key against a string literal in a `switch`.
    @inlinable @inline(__always)
    public static func ~= (pattern: StaticString, key: JSONKey) -> Bool {
        // The length compare first: a switch over member names mostly rejects on length alone.
        guard pattern.utf8CodeUnitCount == key.count || key.unescaped != nil else { return false }
        if key.unescaped == nil, pattern.hasPointerRepresentation {
            return key.equals(pattern.utf8Start, pattern.utf8CodeUnitCount)
        }
        return key.stringValue == pattern.description
    }

    /// Whether the key equals `string`.
    @inlinable
    public static func == (key: JSONKey, string: String) -> Bool {
        if let unescaped = key.unescaped { return unescaped == string }
        var string = string
        return string.withUTF8 { key.equals($0.baseAddress ?? key.base, $0.count) }
    }
}
