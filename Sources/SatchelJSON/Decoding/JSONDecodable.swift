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
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readString() }
}

extension Bool: JSONDecodable {
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readBool() }
}

extension Int: JSONDecodable {
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readInt() }
}

extension Int64: JSONDecodable {
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readInt64() }
}

extension Int32: JSONDecodable {
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readInteger() }
}

extension Int16: JSONDecodable {
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readInteger() }
}

extension Int8: JSONDecodable {
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readInteger() }
}

extension UInt: JSONDecodable {
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readInteger() }
}

extension UInt64: JSONDecodable {
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readInteger() }
}

extension UInt32: JSONDecodable {
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readInteger() }
}

extension UInt16: JSONDecodable {
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readInteger() }
}

extension UInt8: JSONDecodable {
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readInteger() }
}

extension Double: JSONDecodable {
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readDouble() }
}

extension Float: JSONDecodable {
    @inlinable public init(from reader: inout JSONReader) throws { self = Float(try reader.readDouble()) }
}

extension Decimal: JSONDecodable {
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readDecimal() }
}

extension JSONNumber: JSONDecodable {
    @inlinable public init(from reader: inout JSONReader) throws { self = try reader.readNumber() }
}

extension JSONValue: JSONDecodable {
    public init(from reader: inout JSONReader) throws { self = try reader.readValue() }
}

extension Optional: JSONDecodable where Wrapped: JSONDecodable {
    /// `nil` for `null`, otherwise the wrapped value.
    @inlinable public init(from reader: inout JSONReader) throws {
        self = try reader.readNil() ? nil : Wrapped(from: &reader)
    }
}

extension Array: JSONDecodable where Element: JSONDecodable {
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
