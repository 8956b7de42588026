public import Foundation

/// A fast pull reader over UTF-8 JSON bytes, for decoding straight into Swift values.
///
/// A reader walks the bytes of one document without copying them: read values with the `read…`
/// methods, objects with ``readObject(_:)``, arrays with ``readArray(_:)``, anything else with
/// ``readValue()`` or ``skipValue()``. It validates as it goes (grammar, UTF-8, escapes, limits) and
/// throws a ``JSONError`` with the byte offset and the path of keys on the first problem.
///
/// The reader borrows the bytes: use it inside `read(_:limits:_:)` (which also checks that nothing
/// but whitespace follows the value), and do not keep it, or a ``JSONKey``, after the closure returns.
///
/// ```swift
/// let names: [String] = try JSONReader.read(bytes) { reader in
///     var names: [String] = []
///     try reader.readObject { key, reader in
///         if key == "value" { try reader.readArray { names.append(try $0.readString()) } }
///     }
///     return names
/// }
/// ```
///
/// The hot methods are `@inlinable` so that code in other modules (generated OData proxies) runs at
/// full speed.
///
/// Not `Sendable`: it points into memory that is only valid inside the closure that lent it, so it must not
/// travel to another task.
public struct JSONReader {
    @usableFromInline let base: UnsafePointer<UInt8>
    @usableFromInline let end: Int
    @usableFromInline var index: Int
    @usableFromInline var depth: Int
    /// Absolute offset of `base[0]`: non-zero when reading one element of a stream.
    @usableFromInline let origin: Int
    /// The limits this reader enforces.
    public let limits: JSONLimits

    /// Creates a reader over memory the caller keeps alive and unchanged while the reader is used.
    ///
    /// Prefer `read(_:limits:_:)`, which manages the memory for you. A leading UTF-8 byte order mark
    /// is skipped (RFC 8259 allows parsers to ignore it).
    public init(unsafeBytes bytes: UnsafeRawBufferPointer, limits: JSONLimits = .default) throws {
        self.init(bytes: bytes, origin: 0, depth: 0, limits: limits)
        if bytes.count > limits.maxDocumentSize {
            throw makeError(
                .sizeLimitExceeded, "the document is \(bytes.count) bytes, over the limit of \(limits.maxDocumentSize)",
                at: 0)
        }
        if end >= 3, base[0] == 0xEF, base[1] == 0xBB, base[2] == 0xBF { index = 3 }
    }

    @usableFromInline
    init(bytes: UnsafeRawBufferPointer, origin: Int, depth: Int, limits: JSONLimits) {
        // An empty buffer may have no address; a dangling, never-dereferenced pointer is fine then.
        let start = bytes.baseAddress ?? UnsafeRawPointer(bitPattern: 1)!
        self.base = start.assumingMemoryBound(to: UInt8.self)
        self.end = bytes.count
        self.index = 0
        self.depth = depth
        self.origin = origin
        self.limits = limits
    }

    /// Reads one document: runs `body` with a reader at its start, then checks that only whitespace
    /// follows what `body` read.
    ///
    /// ```swift
    /// let count = try JSONReader.read(data) { try $0.readInt64() }
    /// ```
    @inlinable
    public static func read<Bytes: ContiguousBytes, Result>(
        _ bytes: Bytes, limits: JSONLimits = .default, _ body: (inout JSONReader) throws -> Result
    ) throws -> Result {
        try bytes.withUnsafeBytes { buffer in
            var reader = try JSONReader(unsafeBytes: buffer, limits: limits)
            let result = try body(&reader)
            try reader.finish()
            return result
        }
    }

    /// Reads one document from the UTF-8 of a string; see ``read(_:limits:_:)``.
    @inlinable
    public static func read<Result>(
        _ string: String, limits: JSONLimits = .default, _ body: (inout JSONReader) throws -> Result
    ) throws -> Result {
        var string = string
        return try string.withUTF8 { try read(UnsafeRawBufferPointer($0), limits: limits, body) }
    }

    /// Byte offset of the next unread byte, from the start of the document (or stream).
    @inlinable
    public var offset: Int { origin + index }

    /// Whether only whitespace is left.
    @inlinable
    public var isAtEnd: Bool {
        mutating get {
            skipWhitespace()
            return index >= end
        }
    }

    /// Checks that only whitespace is left after the value(s) read.
    @inlinable
    public mutating func finish() throws {
        skipWhitespace()
        if index < end { throw trailingDataError() }
    }

    @inlinable @inline(__always)
    mutating func skipWhitespace() {
        while index < end {
            let byte = base[index]
            // Every byte that can start a token is above 0x20, so one compare settles most cases.
            if byte > 0x20 { return }
            guard byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 else { return }
            index += 1
        }
    }

    /// The next non-whitespace byte, or 0 at the end (NUL is never valid outside strings).
    @inlinable @inline(__always)
    mutating func peekByte() -> UInt8 {
        skipWhitespace()
        return index < end ? base[index] : 0
    }

    /// What kind of value comes next.
    ///
    /// ```swift
    /// if try reader.peekKind() == .array { /* … */ }
    /// ```
    @inlinable
    public mutating func peekKind() throws -> JSONKind {
        guard let kind = JSONKind.starting(with: peekByte()) else {
            throw syntaxError(expected: "a value", at: index)
        }
        return kind
    }

    @inlinable @inline(__always)
    func load32(_ position: Int) -> UInt32 {
        UnsafeRawPointer(base + position).loadUnaligned(as: UInt32.self)
    }

    /// Consumes `null` if it comes next and returns `true`; otherwise leaves the reader unchanged.
    ///
    /// ```swift
    /// let note: String? = try reader.readNil() ? nil : reader.readString()
    /// ```
    @inlinable
    public mutating func readNil() throws -> Bool {
        guard peekByte() == UInt8(ascii: "n") else { return false }
        try readNull()
        return true
    }

    /// Reads `null`.
    @inlinable
    public mutating func readNull() throws {
        skipWhitespace()
        if index + 4 <= end, load32(index) == JSONReader.nullWord {
            index += 4
            return
        }
        throw literalError(expected: "null")
    }

    /// Reads `true` or `false`.
    @inlinable
    public mutating func readBool() throws -> Bool {
        skipWhitespace()
        if index + 4 <= end {
            let word = load32(index)
            if word == JSONReader.trueWord {
                index += 4
                return true
            }
            if word == JSONReader.falsWord, index + 5 <= end, base[index + 4] == UInt8(ascii: "e") {
                index += 5
                return false
            }
        }
        throw literalError(expected: "true or false")
    }

    // Literal spellings as words in memory order, so one unaligned load compares four bytes.
    @inlinable static var nullWord: UInt32 { UInt32(littleEndian: 0x6C6C_756E) }  // "null"
    @inlinable static var trueWord: UInt32 { UInt32(littleEndian: 0x6575_7274) }  // "true"
    @inlinable static var falsWord: UInt32 { UInt32(littleEndian: 0x736C_6166) }  // "fals"

    /// Enters an array or object whose opening byte is at `index`.
    @inlinable @inline(__always)
    mutating func enterContainer() throws {
        depth += 1
        if depth > limits.maxDepth { throw depthError() }
        index += 1
    }
}

/// The kind of a JSON value.
public enum JSONKind: Sendable, Hashable, CustomStringConvertible {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool
    /// A number.
    case number
    /// A string.
    case string
    /// An array.
    case array
    /// An object.
    case object

    /// The kind of the value that starts with `byte`, or nil when no value starts with it.
    @inlinable
    static func starting(with byte: UInt8) -> JSONKind? {
        switch byte {
        case UInt8(ascii: "{"): return .object
        case UInt8(ascii: "["): return .array
        case UInt8(ascii: "\""): return .string
        case UInt8(ascii: "t"), UInt8(ascii: "f"): return .bool
        case UInt8(ascii: "n"): return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number
        default: return nil
        }
    }

    /// The kind with its article, for messages: `a string`, `an object`, `null`.
    public var description: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}
