public import Foundation

/// A type that reads itself from a ``JSONReader``: the fast path for decoding, and the target of
/// generated OData proxy code.
///
/// ```swift
/// struct Product: JSONDecodable {
///     var id: Int64, name: String, price: Decimal?
///     init(from reader: inout JSONReader) throws {
///         var id: Int64?, name: String?, price: Decimal?
///         try reader.readObject { key, reader in
///             switch key {
///             case "ID": id = try reader.readInt64()
///             case "Name": name = try reader.readString()
///             case "Price": price = try reader.decodeIfPresent(Decimal.self)
///             default: break  // unknown members are skipped
///             }
///         }
///         self.id = try reader.required(id, "ID")
///         self.name = try reader.required(name, "Name")
///         self.price = price
///     }
/// }
/// let products = try JSONReader.read(data) { try $0.readArray(of: Product.self) }
/// ```
public protocol JSONDecodable {
    /// Reads one value of this type; the reader is positioned before it and must end after it.
    init(from reader: inout JSONReader) throws
}

extension JSONDecodable {
    /// Decodes a whole document as this type.
    ///
    /// ```swift
    /// let product = try Product(json: data)
    /// ```
    @inlinable
    public init<Bytes: ContiguousBytes>(json bytes: Bytes, limits: JSONLimits = .default) throws {
        self = try JSONReader.read(bytes, limits: limits) { try Self(from: &$0) }
    }

    /// Decodes a whole document, given as a string, as this type.
    @inlinable
    public init(json string: String, limits: JSONLimits = .default) throws {
        self = try JSONReader.read(string, limits: limits) { try Self(from: &$0) }
    }
}

extension String: JSONDecodable {
    /// Reads a JSON string, escapes decoded; another kind of value is a `typeMismatch` error.
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readString() }
}

extension Bool: JSONDecodable {
    /// Reads `true` or `false`; anything else is an error.
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readBool() }
}

extension Int: JSONDecodable {
    /// Reads an integer exactly (`1.0` and `1e3` are accepted); a fraction or overflow is an error.
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readInt() }
}

extension Int64: JSONDecodable {
    /// Reads an integer exactly (`1.0` and `1e3` are accepted); a fraction or overflow is an error.
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readInt64() }
}

extension Int32: JSONDecodable {
    /// Reads an integer exactly; a fraction, or a value outside `Int32`'s range, is a `numberOutOfRange` error.
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readInteger() }
}

extension Int16: JSONDecodable {
    /// Reads an integer exactly; a fraction, or a value outside `Int16`'s range, is a `numberOutOfRange` error.
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readInteger() }
}

extension Int8: JSONDecodable {
    /// Reads an integer exactly; a fraction, or a value outside `Int8`'s range, is a `numberOutOfRange` error.
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readInteger() }
}

extension UInt: JSONDecodable {
    /// Reads an integer exactly; a fraction, or a value outside `UInt`'s range, is a `numberOutOfRange` error.
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readInteger() }
}

extension UInt64: JSONDecodable {
    /// Reads an integer exactly; a fraction, or a value outside `UInt64`'s range, is a `numberOutOfRange` error.
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readInteger() }
}

extension UInt32: JSONDecodable {
    /// Reads an integer exactly; a fraction, or a value outside `UInt32`'s range, is a `numberOutOfRange` error.
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readInteger() }
}

extension UInt16: JSONDecodable {
    /// Reads an integer exactly; a fraction, or a value outside `UInt16`'s range, is a `numberOutOfRange` error.
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readInteger() }
}

extension UInt8: JSONDecodable {
    /// Reads an integer exactly; a fraction, or a value outside `UInt8`'s range, is a `numberOutOfRange` error.
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readInteger() }
}

extension Double: JSONDecodable {
    /// Reads a number, correctly rounded; a number too large for a `Double` is an error.
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readDouble() }
}

extension Float: JSONDecodable {
    /// Reads a number as a `Double`, then rounds it to the nearest `Float` (too large a value becomes infinity).
    @inlinable public init(from reader: inout JSONReader) throws { self = Float(try reader.readDouble()) }
}

extension Decimal: JSONDecodable {
    /// Reads a number exactly; more than 38 significant digits or an exponent out of range is an error.
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readDecimal() }
}

extension JSONNumber: JSONDecodable {
    /// Reads a number, keeping its exact text.
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readNumber() }
}

extension JSONValue: JSONDecodable {
    /// Reads any value (`JSONReader.readValue()`), numbers with their exact text.
    public init(from reader: inout JSONReader) throws { self = try reader.readValue() }
}

extension Optional: JSONDecodable where Wrapped: JSONDecodable {
    /// `nil` for `null`, otherwise the wrapped value.
    @inlinable public init(from reader: inout JSONReader) throws {
        self = try reader.readNil() ? nil : Wrapped(from: &reader)
    }
}

extension Array: JSONDecodable where Element: JSONDecodable {
    /// Reads an array whose elements are all `Element`.
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readArray(of: Element.self) }
}

extension Dictionary: JSONDecodable where Key == String, Value: JSONDecodable {
    /// The members of an object (the last of duplicate keys wins).
    @inlinable public init(from reader: inout JSONReader) throws {
        var result: [String: Value] = [:]
        try reader.readObject { key, reader in result[key.stringValue] = try Value(from: &reader) }
        self = result
    }
}
