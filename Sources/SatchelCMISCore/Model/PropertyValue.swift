public import Foundation

/// One typed value of a CMIS property.
///
/// ```swift
/// let value = PropertyValue.integer(33652)
/// value.int64Value      // 33652
/// value.type            // .integer
/// ```
public enum PropertyValue: Sendable, Hashable {
    /// A `string` value.
    case string(String)
    /// A `boolean` value.
    case boolean(Bool)
    /// An `integer` value.
    case integer(Int64)
    /// A `decimal` value.
    case decimal(Decimal)
    /// A `datetime` value.
    case datetime(Date)
    /// An `id` value: an object or type id.
    case id(String)
    /// A `uri` value, as text.
    case uri(String)
    /// An `html` value, as text.
    case html(String)

    /// The property type this value belongs to.
    public var type: PropertyType {
        switch self {
        case .string: return .string
        case .boolean: return .boolean
        case .integer: return .integer
        case .decimal: return .decimal
        case .datetime: return .datetime
        case .id: return .id
        case .uri: return .uri
        case .html: return .html
        }
    }

    /// The text of a string, id, URI or HTML value.
    public var stringValue: String? {
        switch self {
        case .string(let text), .id(let text), .uri(let text), .html(let text): return text
        default: return nil
        }
    }

    /// The boolean, if this is one.
    public var boolValue: Bool? {
        if case .boolean(let value) = self { return value }
        return nil
    }

    /// The integer, if this is one.
    public var int64Value: Int64? {
        if case .integer(let value) = self { return value }
        return nil
    }

    /// The number as a `Decimal`, for decimal and integer values.
    public var decimalValue: Decimal? {
        switch self {
        case .decimal(let value): return value
        case .integer(let value): return Decimal(value)
        default: return nil
        }
    }

    /// The date, if this is a datetime.
    public var dateValue: Date? {
        if case .datetime(let value) = self { return value }
        return nil
    }
}
