public import Foundation

/// A `Decoder` for `Decodable` types that is several times faster than Foundation's `JSONDecoder`.
///
/// It validates and flattens the document into a compact tape first, then decodes from the tape:
/// members are found by comparing key bytes in document order (no dictionary per object), numbers
/// are converted straight from their text (Int64 and Decimal exactly).
///
/// ```swift
/// struct Page: Decodable { var value: [Product]; var nextLink: String? }
/// var decoder = SatchelJSONDecoder()
/// decoder.dateDecodingStrategy = .iso8601
/// let page = try decoder.decode(Page.self, from: data)
/// ```
///
/// Errors are `DecodingError`s with the coding path; their debug description names the byte offset
/// (and line and column) of the offending value. Syntax errors are `DecodingError.dataCorrupted` with
/// the ``JSONError`` as underlying error.
public struct SatchelJSONDecoder: Sendable {
    /// How `Date` values are decoded.
    public enum DateDecodingStrategy: Sendable {
        /// `Date`'s own `Decodable` conformance: seconds since 2001-01-01 as a number.
        case deferredToDate
        /// ISO 8601 / RFC 3339 strings such as `2024-05-17T09:30:00Z`, with optional fractional seconds.
        case iso8601
        /// Seconds since 1970 as a number.
        case secondsSince1970
        /// Milliseconds since 1970 as a number.
        case millisecondsSince1970
        /// Your closure, given a decoder at the value.
        case custom(@Sendable (any Decoder) throws -> Date)
    }

    /// How object keys are matched with `CodingKey`s.
    public enum KeyDecodingStrategy: Sendable {
        /// Keys are used as they are.
        case useDefaultKeys
        /// `snake_case` keys become `camelCase` (same rules as Foundation's `JSONDecoder`).
        case convertFromSnakeCase
    }

    /// How `Data` values are decoded.
    public enum DataDecodingStrategy: Sendable {
        /// Base64 strings (Foundation's default).
        case base64
        /// `Data`'s own `Decodable` conformance: an array of bytes.
        case deferredToData
    }

    /// How `Date` values are decoded; `.deferredToDate` by default, like Foundation.
    public var dateDecodingStrategy: DateDecodingStrategy = .deferredToDate
    /// How keys are matched; `.useDefaultKeys` by default.
    public var keyDecodingStrategy: KeyDecodingStrategy = .useDefaultKeys
    /// How `Data` values are decoded; `.base64` by default, like Foundation.
    public var dataDecodingStrategy: DataDecodingStrategy = .base64
    /// Limits applied while reading the document.
    public var limits: JSONLimits = .default
    /// Values handed to `Decodable` initializers through `Decoder.userInfo`.
    public var userInfo: [CodingUserInfoKey: any Sendable] = [:]

    /// A decoder with default options.
    public init() {}

    /// Decodes a value of type `T` from a whole document.
    public func decode<T: Decodable, Bytes: ContiguousBytes>(_ type: T.Type, from bytes: Bytes) throws -> T {
        try bytes.withUnsafeBytes { buffer in
            var reader: JSONReader
            do {
                reader = try JSONReader(unsafeBytes: buffer, limits: limits)
            } catch let error as JSONError {
                throw SatchelJSONDecoder.corrupted(error)
            }
            let value = try decode(type, from: &reader)
            do {
                try reader.finish()
            } catch let error as JSONError {
                throw SatchelJSONDecoder.corrupted(error)
            }
            return value
        }
    }

    /// Decodes a value of type `T` from a document given as a string.
    public func decode<T: Decodable>(_ type: T.Type, from string: String) throws -> T {
        try decode(type, from: Array(string.utf8))
    }

    /// Decodes the next value of `reader` as `T` — for mixing pull decoding with `Decodable` types,
    /// and for decoding elements of a ``JSONArrayStreamParser``.
    ///
    /// ```swift
    /// try reader.readArray { reader in products.append(try decoder.decode(Product.self, from: &reader)) }
    /// ```
    public func decode<T: Decodable>(_ type: T.Type, from reader: inout JSONReader) throws -> T {
        let tape: JSONTape
        do {
            tape = try JSONTape(reader: &reader)
        } catch let error as JSONError {
            throw SatchelJSONDecoder.corrupted(error)
        }
        let decoder = TapeDecoder(tape: tape, options: self, index: 0, path: [])
        return try decoder.unbox(type, at: 0, key: nil, extra: [], depth: 0)
    }

    static func corrupted(_ error: JSONError) -> DecodingError {
        let path: [any CodingKey] = error.path.map { component in
            switch component {
            case .key(let key): return IndexOrKey(stringValue: key)
            case .index(let index): return IndexOrKey(intValue: index)
            }
        }
        return DecodingError.dataCorrupted(
            DecodingError.Context(codingPath: path, debugDescription: error.description, underlyingError: error))
    }
}

/// A coding key for array indices and keys without a `CodingKey` type of their own.
struct IndexOrKey: CodingKey {
    var stringValue: String
    var intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        self.intValue = nil
    }

    init(intValue: Int) {
        self.stringValue = "Index \(intValue)"
        self.intValue = intValue
    }
}
