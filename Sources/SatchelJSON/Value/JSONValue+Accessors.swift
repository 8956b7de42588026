public import Foundation

extension JSONValue {
    /// The member named `key` of an object; `nil` for a missing key or a value that is not an object.
    ///
    /// ```swift
    /// let results = value["d"]?["results"]
    /// ```
    public subscript(key: String) -> JSONValue? {
        guard case .object(let object) = self else { return nil }
        return object[key]
    }

    /// The element at `index` of an array; `nil` out of bounds or for a value that is not an array.
    public subscript(index: Int) -> JSONValue? {
        guard case .array(let elements) = self, elements.indices.contains(index) else { return nil }
        return elements[index]
    }

    /// Whether this is `null`.
    public var isNull: Bool { self == .null }

    /// The boolean, if this is one.
    public var boolValue: Bool? {
        guard case .bool(let value) = self else { return nil }
        return value
    }

    /// The string, if this is one.
    public var stringValue: String? {
        guard case .string(let value) = self else { return nil }
        return value
    }

    /// The number, if this is one.
    public var numberValue: JSONNumber? {
        guard case .number(let value) = self else { return nil }
        return value
    }

    /// The number as an exact `Int64`, if this is an integer in range.
    public var int64Value: Int64? { numberValue?.int64Value }
    /// The number as an exact `Int`, if this is an integer in range.
    public var intValue: Int? { numberValue?.intValue }
    /// The number as a `Double`, if this is a number.
    public var doubleValue: Double? { numberValue?.doubleValue }
    /// The number as an exact `Decimal`, if this is a number with at most 38 significant digits.
    public var decimalValue: Decimal? { numberValue?.decimalValue }

    /// The elements, if this is an array.
    public var arrayValue: [JSONValue]? {
        guard case .array(let value) = self else { return nil }
        return value
    }

    /// The members, if this is an object.
    public var objectValue: JSONObject? {
        guard case .object(let value) = self else { return nil }
        return value
    }
}

extension JSONValue: ExpressibleByNilLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByStringLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// `nil` is `.null`.
    public init(nilLiteral: ()) { self = .null }
    /// `true` or `false` as `.bool`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// An integer literal as `.number`.
    public init(integerLiteral value: Int64) { self = .number(JSONNumber(value)) }
    /// A floating-point literal as `.number`; a literal too large for a `Double` traps.
    public init(floatLiteral value: Double) { self = .number(JSONNumber(floatLiteral: value)) }
    /// A string literal as `.string`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An array literal as `.array`.
    public init(arrayLiteral elements: JSONValue...) { self = .array(elements) }
    /// A dictionary literal as `.object`, its members in the order written.
    public init(dictionaryLiteral elements: (String, JSONValue)...) {
        self = .object(JSONObject(keys: elements.map(\.0), values: elements.map(\.1)))
    }
}

extension JSONValue: CustomStringConvertible {
    /// The value as compact JSON text.
    public var description: String { String(decoding: serialized(), as: UTF8.self) }
}
