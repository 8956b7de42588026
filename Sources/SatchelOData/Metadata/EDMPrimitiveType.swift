/// The primitive types of the Entity Data Model, V2 and V4 together.
///
/// `Edm.DateTime` and `Edm.Time` exist only in V2; `Edm.Date`, `Edm.TimeOfDay`, `Edm.Duration` and the
/// enum/geo extensions mostly in V4. Geography and geometry types keep their sub-kind (`Point`, `Polygon`, …).
///
/// ```swift
/// EDMPrimitiveType(qualifiedName: "Edm.Decimal")          // .decimal
/// EDMPrimitiveType(qualifiedName: "Edm.GeographyPoint")   // .geography("Point")
/// ```
public enum EDMPrimitiveType: Sendable, Hashable, CustomStringConvertible {
    /// `Edm.Binary`: bytes.
    case binary
    /// `Edm.Boolean`.
    case boolean
    /// `Edm.Byte`: an unsigned 8-bit integer.
    case byte
    /// `Edm.SByte`: a signed 8-bit integer.
    case sbyte
    /// `Edm.Int16`.
    case int16
    /// `Edm.Int32`.
    case int32
    /// `Edm.Int64` (sent as a JSON string in V2).
    case int64
    /// `Edm.Single`: a 32-bit floating-point number.
    case single
    /// `Edm.Double`: a 64-bit floating-point number.
    case double
    /// `Edm.Decimal`: an exact decimal number.
    case decimal
    /// `Edm.String`.
    case string
    /// `Edm.Guid`.
    case guid
    /// V4 `Edm.Date` (a calendar date without a time).
    case date
    /// V2 `Edm.DateTime` (a date and time without an offset, sent as `/Date(ms)/`).
    case dateTime
    /// `Edm.DateTimeOffset`: an instant with its offset from UTC.
    case dateTimeOffset
    /// V2 `Edm.Time` (an ISO 8601 duration such as `PT13H20M`, the V2 way of sending a time of day).
    case time
    /// V4 `Edm.TimeOfDay`.
    case timeOfDay
    /// V4 `Edm.Duration` (ISO 8601, such as `P1DT2H`).
    case duration
    /// `Edm.Stream`: media content, read and written through its own URL.
    case stream
    /// V4 `Edm.PrimitiveType` / `Edm.Untyped`: anything.
    case untyped
    /// `Edm.Geography` or `Edm.GeographyPoint` … (`nil` for the abstract base, else `"Point"` …).
    case geography(String?)
    /// `Edm.Geometry` or `Edm.GeometryPoint` …
    case geometry(String?)

    private static let simple: [String: EDMPrimitiveType] = [
        "Binary": .binary, "Boolean": .boolean, "Byte": .byte, "SByte": .sbyte, "Int16": .int16,
        "Int32": .int32, "Int64": .int64, "Single": .single, "Double": .double, "Decimal": .decimal,
        "String": .string, "Guid": .guid, "Date": .date, "DateTime": .dateTime, "DateTimeOffset": .dateTimeOffset,
        "Time": .time, "TimeOfDay": .timeOfDay, "Duration": .duration, "Stream": .stream,
        "PrimitiveType": .untyped, "Untyped": .untyped,
    ]

    /// Reads `Edm.X`; `nil` for anything outside the `Edm` namespace or unknown there.
    public init?(qualifiedName: String) {
        guard qualifiedName.hasPrefix("Edm.") else { return nil }
        let name = String(qualifiedName.dropFirst(4))
        if let type = Self.simple[name] {
            self = type
        } else if name.hasPrefix("Geography") {
            let kind = String(name.dropFirst("Geography".count))
            self = .geography(kind.isEmpty ? nil : kind)
        } else if name.hasPrefix("Geometry") {
            let kind = String(name.dropFirst("Geometry".count))
            self = .geometry(kind.isEmpty ? nil : kind)
        } else {
            return nil
        }
    }

    /// `Edm.Int32`, `Edm.GeographyPoint`, …
    public var qualifiedName: String { "Edm." + localName }

    private var localName: String {
        switch self {
        case .binary: "Binary"
        case .boolean: "Boolean"
        case .byte: "Byte"
        case .sbyte: "SByte"
        case .int16: "Int16"
        case .int32: "Int32"
        case .int64: "Int64"
        case .single: "Single"
        case .double: "Double"
        case .decimal: "Decimal"
        case .string: "String"
        case .guid: "Guid"
        case .date: "Date"
        case .dateTime: "DateTime"
        case .dateTimeOffset: "DateTimeOffset"
        case .time: "Time"
        case .timeOfDay: "TimeOfDay"
        case .duration: "Duration"
        case .stream: "Stream"
        case .untyped: "Untyped"
        case .geography(let kind): "Geography" + (kind ?? "")
        case .geometry(let kind): "Geometry" + (kind ?? "")
        }
    }

    /// Whether V2 verbose JSON sends values of this type as JSON strings (Int64, Decimal and friends).
    public var isStringInV2JSON: Bool {
        switch self {
        case .int64, .decimal, .guid, .binary, .dateTime, .dateTimeOffset, .time, .date, .timeOfDay: return true
        default: return false
        }
    }

    /// The qualified name, as `qualifiedName` gives it.
    public var description: String { qualifiedName }
}
