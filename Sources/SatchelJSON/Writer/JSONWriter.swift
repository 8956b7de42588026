public import Foundation

/// A small, fast JSON writer for request bodies: compact output, correct string escaping, commas
/// and colons placed for you.
///
/// ```swift
/// var writer = JSONWriter()
/// writer.writeObject { writer in
///     writer.write(key: "Name", "Pen")
///     writer.write(key: "Price", Decimal(string: "1.50")!)
///     writer.write(key: "Tags") { writer in writer.writeArray { $0.write("a"); $0.write("b") } }
/// }
/// let body = writer.bytes  // {"Name":"Pen","Price":1.5,"Tags":["a","b"]}
/// ```
public struct JSONWriter: Sendable {
    /// The UTF-8 JSON written so far.
    public private(set) var bytes: [UInt8] = []
    /// Whether the next value (or key) needs a comma before it.
    private var needsComma = false

    /// An empty writer; reserve capacity if you know the size.
    public init(reservingCapacity capacity: Int = 256) {
        bytes.reserveCapacity(capacity)
    }

    /// The output as a string.
    public var string: String { String(decoding: bytes, as: UTF8.self) }

    private mutating func beforeValue() {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        needsComma = true
    }

    /// Writes `null`.
    public mutating func writeNull() {
        beforeValue()
        bytes.append(contentsOf: "null".utf8)
    }

    /// Writes `true` or `false`.
    public mutating func write(_ value: Bool) {
        beforeValue()
        bytes.append(contentsOf: (value ? "true" : "false").utf8)
    }

    /// Writes an integer.
    public mutating func write<T: BinaryInteger>(_ value: T) {
        beforeValue()
        bytes.append(contentsOf: String(value).utf8)
    }

    /// Writes a `Double` in its shortest round-tripping form.
    ///
    /// - Throws: ``JSONError/Code/invalidValue`` for NaN and infinities, which JSON cannot represent.
    public mutating func write(_ value: Double) throws {
        guard value.isFinite else {
            throw JSONError(code: .invalidValue, message: "\(value) cannot be written as JSON")
        }
        beforeValue()
        bytes.append(contentsOf: value.description.utf8)
    }

    /// Writes a `Decimal` exactly.
    public mutating func write(_ value: Decimal) {
        beforeValue()
        bytes.append(contentsOf: (value.isNaN ? "null" : value.description).utf8)
    }

    /// Writes a number as its exact text.
    public mutating func write(_ value: JSONNumber) {
        beforeValue()
        bytes.append(contentsOf: value.text.utf8)
    }

    /// Writes a string, escaping `"`, `\` and control characters.
    public mutating func write(_ value: String) {
        beforeValue()
        appendQuoted(value)
    }

    /// Writes any ``JSONValue``.
    public mutating func write(_ value: JSONValue) {
        switch value {
        case .null: writeNull()
        case .bool(let bool): write(bool)
        case .number(let number): write(number)
        case .string(let string): write(string)
        case .array(let elements):
            writeArray { writer in
                for element in elements { writer.write(element) }
            }
        case .object(let object):
            writeObject { writer in
                for (key, value) in object { writer.write(key: key, value) }
            }
        }
    }

    /// Writes an object whose members `body` writes with the `key:` methods.
    public mutating func writeObject(_ body: (inout JSONWriter) throws -> Void) rethrows {
        beforeValue()
        bytes.append(UInt8(ascii: "{"))
        needsComma = false
        try body(&self)
        bytes.append(UInt8(ascii: "}"))
        needsComma = true
    }

    /// Writes an array whose elements `body` writes.
    public mutating func writeArray(_ body: (inout JSONWriter) throws -> Void) rethrows {
        beforeValue()
        bytes.append(UInt8(ascii: "["))
        needsComma = false
        try body(&self)
        bytes.append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// Writes a member key; the next write is its value.
    public mutating func writeKey(_ key: String) {
        if needsComma { bytes.append(UInt8(ascii: ",")) }
        appendQuoted(key)
        bytes.append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// Writes a member whose value `body` writes.
    public mutating func write(key: String, _ body: (inout JSONWriter) throws -> Void) rethrows {
        writeKey(key)
        try body(&self)
    }

    /// Writes a string member.
    public mutating func write(key: String, _ value: String) { writeKey(key); write(value) }
    /// Writes a boolean member.
    public mutating func write(key: String, _ value: Bool) { writeKey(key); write(value) }
    /// Writes an integer member.
    public mutating func write<T: BinaryInteger>(key: String, _ value: T) { writeKey(key); write(value) }
    /// Writes a `Double` member; throws for NaN and infinities.
    public mutating func write(key: String, _ value: Double) throws {
        guard value.isFinite else {
            throw JSONError(code: .invalidValue, message: "\(value) cannot be written as JSON", path: [.key(key)])
        }
        writeKey(key)
        try write(value)
    }
    /// Writes a `Decimal` member.
    public mutating func write(key: String, _ value: Decimal) { writeKey(key); write(value) }
    /// Writes a ``JSONValue`` member.
    public mutating func write(key: String, _ value: JSONValue) { writeKey(key); write(value) }
    /// Writes a `null` member.
    public mutating func writeNull(key: String) { writeKey(key); writeNull() }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private mutating func appendQuoted(_ string: String) {
        bytes.append(UInt8(ascii: "\""))
        var string = string
        string.withUTF8 { utf8 in
            var runStart = 0
            for (i, byte) in utf8.enumerated() where byte < 0x20 || byte == 0x22 || byte == 0x5C {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart..<i]))
                runStart = i + 1
                bytes.append(UInt8(ascii: "\\"))
                switch byte {
                case 0x22: bytes.append(0x22)
                case 0x5C: bytes.append(0x5C)
                case 0x0A: bytes.append(UInt8(ascii: "n"))
                case 0x0D: bytes.append(UInt8(ascii: "r"))
                case 0x09: bytes.append(UInt8(ascii: "t"))
                case 0x08: bytes.append(UInt8(ascii: "b"))
                case 0x0C: bytes.append(UInt8(ascii: "f"))
                default:
                    bytes.append(contentsOf: [UInt8(ascii: "u"), 0x30, 0x30])
                    bytes.append(JSONWriter.hexDigits[Int(byte >> 4)])
                    bytes.append(JSONWriter.hexDigits[Int(byte & 0xF)])
                }
            }
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: utf8[runStart...]))
        }
        bytes.append(UInt8(ascii: "\""))
    }
}

extension JSONValue {
    /// The value as compact UTF-8 JSON.
    ///
    /// ```swift
    /// let body: [UInt8] = (["Name": "Pen", "Tags": ["a"]] as JSONValue).serialized()
    /// ```
    public func serialized() -> [UInt8] {
        var writer = JSONWriter()
        writer.write(self)
        return writer.bytes
    }

    /// The value as compact JSON text.
    public func serializedString() -> String { String(decoding: serialized(), as: UTF8.self) }
}
