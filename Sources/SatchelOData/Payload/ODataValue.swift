public import Foundation
public import SatchelJSON

/// A property value read from or written to an OData payload, typed by the property's EDM type when the
/// metadata is known.
///
/// ```swift
/// if case .decimal(let gpa) = student["Gpa"] { print(gpa) }
/// student["BirthDate"]?.dateValue   // V2 /Date(…)/ or V4 ISO 8601, as a Date
/// ```
public indirect enum ODataValue: Sendable, Hashable {
    /// A null value.
    case null
    /// Edm.Boolean.
    case bool(Bool)
    /// Byte, SByte, Int16, Int32, Int64.
    case int(Int64)
    /// Edm.Decimal, exact.
    case decimal(Decimal)
    /// Edm.Double and Edm.Single.
    case double(Double)
    /// Edm.String.
    case string(String)
    /// Edm.Guid.
    case guid(UUID)
    /// V4 Edm.Date, as written (`2026-01-31`).
    case date(String)
    /// V2 Edm.DateTime (an instant read as UTC).
    case dateTime(Date)
    /// Edm.DateTimeOffset: the instant and, when sent, the offset in minutes.
    case dateTimeOffset(Date, offsetMinutes: Int?)
    /// V4 Edm.TimeOfDay (`13:20:00`) or V2 Edm.Time (`PT13H20M`), as written.
    case timeOfDay(String)
    /// Edm.Duration, ISO 8601 as written.
    case duration(String)
    /// Edm.Binary: the decoded bytes.
    case binary(Data)
    /// A V4 enum value (member name or names).
    case enumMember(String)
    /// A geography or geometry value as GeoJSON.
    case geo(JSONValue)
    /// A complex value: its properties in payload order.
    case complex(ODataProperties)
    /// A collection of primitive, enum or complex values.
    case collection([ODataValue])
    /// An expanded to-one navigation property (or a created entity to send in a deep insert).
    case entity(ODataEntity)
    /// An expanded to-many navigation property.
    case entities([ODataEntity])
    /// A value read without type information (no metadata, an open or untyped property).
    case json(JSONValue)

    /// Whether this is `.null` or JSON `null`.
    public var isNull: Bool { self == .null || self == .json(.null) }

    /// The text of a string, date, time of day, duration or enum value (also of a JSON string); a GUID in lowercase.
    /// `nil` for other values.
    public var stringValue: String? {
        switch self {
        case .string(let text), .date(let text), .timeOfDay(let text), .duration(let text), .enumMember(let text):
            text
        case .json(let value): value.stringValue
        case .guid(let uuid): uuid.uuidString.lowercased()
        default: nil
        }
    }

    /// An integer, a decimal with a whole value, or a JSON number or numeric string; `nil` otherwise.
    public var intValue: Int64? {
        switch self {
        case .int(let value): value
        case .decimal(let value): Int64(exactly: NSDecimalNumber(decimal: value).doubleValue)
        case .json(let value): value.int64Value ?? value.stringValue.flatMap { Int64($0) }
        default: nil
        }
    }

    /// A decimal, integer or double as a `Decimal` (also a JSON number or numeric string); `nil` otherwise.
    public var decimalValue: Decimal? {
        switch self {
        case .decimal(let value): value
        case .int(let value): Decimal(value)
        case .double(let value): Decimal(value)
        case .json(let value): value.decimalValue ?? value.stringValue.flatMap { Decimal(string: $0) }
        default: nil
        }
    }

    /// A double, integer or decimal as a `Double` (also a JSON number); `nil` otherwise.
    public var doubleValue: Double? {
        switch self {
        case .double(let value): value
        case .int(let value): Double(value)
        case .decimal(let value): NSDecimalNumber(decimal: value).doubleValue
        case .json(let value): value.doubleValue
        default: nil
        }
    }

    /// A boolean (also a JSON boolean); `nil` otherwise.
    public var boolValue: Bool? {
        switch self {
        case .bool(let value): value
        case .json(let value): value.boolValue
        default: nil
        }
    }

    /// The instant of a DateTime, DateTimeOffset or Date value.
    public var dateValue: Date? {
        switch self {
        case .dateTime(let date), .dateTimeOffset(let date, _): date
        case .date(let text): ODataDateFormat.parseISO8601(text)
        case .json(let value):
            value.stringValue.flatMap {
                ODataDateFormat.parseV2JSONDate($0)?.date ?? ODataDateFormat.parseISO8601($0)
            }
        default: nil
        }
    }

    /// The entity of an expanded to-one navigation property; `nil` otherwise.
    public var entityValue: ODataEntity? {
        if case .entity(let entity) = self { return entity }
        return nil
    }

    /// The entities of an expanded to-many navigation property; `nil` otherwise.
    public var entitiesValue: [ODataEntity]? {
        if case .entities(let entities) = self { return entities }
        return nil
    }
}

extension ODataValue: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByNilLiteral
{
    /// A string literal is `.string`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal is `.int`.
    public init(integerLiteral value: Int64) { self = .int(value) }
    /// A boolean literal is `.bool`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// A floating-point literal is `.double`.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// `nil` is `.null`.
    public init(nilLiteral: ()) { self = .null }
}

/// Named values in payload order: an entity's or a complex value's properties.
public struct ODataProperties: Sendable, Hashable, RandomAccessCollection, ExpressibleByDictionaryLiteral {
    /// The property names in order.
    public private(set) var names: [String] = []
    /// The values, in the order of `names`.
    public private(set) var values: [ODataValue] = []

    /// No properties.
    public init() {}
    /// Properties in the order written; a repeated name keeps its first place and takes the last value.
    public init(dictionaryLiteral elements: (String, ODataValue)...) {
        for (name, value) in elements { self[name] = value }
    }

    /// The value of a property; `nil` when absent. Setting a new name appends it, setting `nil` removes it.
    public subscript(name: String) -> ODataValue? {
        get { names.firstIndex(of: name).map { values[$0] } }
        set {
            if let index = names.firstIndex(of: name) {
                if let newValue {
                    values[index] = newValue
                } else {
                    names.remove(at: index)
                    values.remove(at: index)
                }
            } else if let newValue {
                names.append(name)
                values.append(newValue)
            }
        }
    }

    /// The position of the first property: 0.
    public var startIndex: Int { 0 }
    /// The position after the last property: the number of properties.
    public var endIndex: Int { names.count }
    /// The property at `position`, with its name.
    public subscript(position: Int) -> (name: String, value: ODataValue) { (names[position], values[position]) }
}

extension ODataValue: CustomStringConvertible {
    /// The value as V4 JSON text: `15.7` for a decimal, `"Ada"` for a string, `null`, `[1,2]`, an object for a
    /// complex value, so that `print(entity["Price"]!)` shows the value, not the enum case.
    public var description: String {
        guard let json = try? ODataPayloadWriter(version: .v4).json(for: self) else {
            return "<\(Mirror(reflecting: self).children.first?.label ?? "value") not writable as JSON>"
        }
        return json.description
    }
}
