public import Foundation
import SatchelText

/// A typed value written into a URL: in a `$filter`, a key predicate or a function parameter.
///
/// Each case knows its form per version: V2 suffixes and prefixes (`12L`, `1.5M`, `datetime'…'`,
/// `guid'…'`, `X'…'`) and V4 plain forms (`12`, `1.5`, `2026-01-31`, a bare GUID, `duration'…'`,
/// `Ns.Color'Red'`). Strings are quoted with single quotes doubled.
///
/// ```swift
/// ODataLiteral.string("O'Neil").text(for: .v2)    // 'O''Neil'
/// ODataLiteral.int64(7).text(for: .v2)            // 7L
/// ODataLiteral.int64(7).text(for: .v4)            // 7
/// ```
public enum ODataLiteral: Sendable, Hashable {
    /// `null`.
    case null
    /// `true` or `false`.
    case bool(Bool)
    /// Edm.Int32 (and Byte, SByte, Int16).
    case int(Int)
    /// Edm.Int64: `7L` in V2, `7` in V4.
    case int64(Int64)
    /// Edm.Decimal: `1.5M` in V2; in V4 `1.5`, a whole number written with `.0`.
    case decimal(Decimal)
    /// Edm.Double: `2.5d` in V2, `2.5` in V4; `INF`, `-INF` and `NaN` as OData spells them.
    case double(Double)
    /// Edm.Single: `2.5f` in V2, `2.5` in V4.
    case single(Float)
    /// Edm.String: in single quotes, single quotes inside doubled.
    case string(String)
    /// Edm.Guid, lowercased: `guid'…'` in V2, bare in V4.
    case guid(UUID)
    /// A V2 `Edm.DateTime` (no offset); in V4 written as a DateTimeOffset in UTC.
    case dateTime(Date)
    /// Edm.DateTimeOffset in UTC: `datetimeoffset'…'` in V2, bare ISO 8601 in V4.
    case dateTimeOffset(Date)
    /// A calendar date (V4 `Edm.Date`; V2 `datetime'…T00:00:00'`).
    case date(year: Int, month: Int, day: Int)
    /// A time of day (V4 `Edm.TimeOfDay`; V2 `time'PT…'`).
    case timeOfDay(hour: Int, minute: Int, second: Int)
    /// An ISO 8601 duration such as `PT1H30M` (V4 `duration'…'`; V2 `time'…'`).
    case duration(String)
    /// Edm.Binary: `X'0A1B'` (hex) in V2, `binary'…'` (base64url) in V4.
    case binary(Data)
    /// A V4 enum member: type's qualified name and member name(s, comma separated for flags).
    case enumMember(type: String, member: String)
    /// Written as given.
    case raw(String)

    /// The literal as it appears in a URL (before percent-encoding).
    public func text(for version: ODataVersion) -> String {
        let v2 = version == .v2
        switch self {
        case .null: return "null"
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .int64(let value): return v2 ? "\(value)L" : String(value)
        case .decimal(let value):
            // V4 tells a decimal from an integer by its point alone, so a whole decimal keeps one.
            let text = "\(value)"
            return v2 ? text + "M" : text.contains(".") ? text : text + ".0"
        case .double(let value): return Self.floating(value) + (v2 && value.isFinite ? "d" : "")
        case .single(let value): return Self.floating(Double(value)) + (v2 && value.isFinite ? "f" : "")
        case .string(let value): return Self.quoted(value)
        case .guid(let value):
            let text = value.uuidString.lowercased()
            return v2 ? "guid'\(text)'" : text
        case .dateTime(let date):
            return v2 ? "datetime'\(ODataDateFormat.iso8601(date, zone: false))'" : ODataDateFormat.iso8601(date)
        case .dateTimeOffset(let date):
            return v2 ? "datetimeoffset'\(ODataDateFormat.iso8601(date))'" : ODataDateFormat.iso8601(date)
        case .date(let year, let month, let day):
            let text = String(format: "%04d-%02d-%02d", year, month, day)
            return v2 ? "datetime'\(text)T00:00:00'" : text
        case .timeOfDay(let hour, let minute, let second):
            return v2
                ? String(format: "time'PT%02dH%02dM%02dS'", hour, minute, second)
                : String(format: "%02d:%02d:%02d", hour, minute, second)
        case .duration(let text):
            return (v2 ? "time" : "duration") + Self.quoted(text)
        case .binary(let data):
            if v2 { return "X'" + data.map { String(format: "%02X", $0) }.joined() + "'" }
            return "binary'\(ODataBinary.encodeURL(data))'"
        case .enumMember(let type, let member):
            // V2 has no enums: services that emulate them compare strings.
            return (v2 ? "" : type) + Self.quoted(member)
        case .raw(let text): return text
        }
    }

    /// `'text'`, its quotes doubled.
    private static func quoted(_ text: String) -> String { text.singleQuoted(.doubled) }

    /// Shortest round-tripping text; `INF`, `-INF`, `NaN` as OData spells them.
    private static func floating(_ value: Double) -> String {
        if value.isNaN { return "NaN" }
        if value.isInfinite { return value < 0 ? "-INF" : "INF" }
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) + ".0" }
        return "\(value)".replacingOccurrences(of: "e", with: "E")
    }
}

extension ODataLiteral: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral, ExpressibleByNilLiteral
{
    /// A string literal is `.string`.
    public init(stringLiteral value: String) { self = .string(value) }
    /// An integer literal is `.int`.
    public init(integerLiteral value: Int) { self = .int(value) }
    /// A boolean literal is `.bool`.
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    /// A floating-point literal is `.double`.
    public init(floatLiteral value: Double) { self = .double(value) }
    /// `nil` is `.null`.
    public init(nilLiteral: ()) { self = .null }
}

extension ODataLiteral {
    /// The literal that writes `value` in a URL: a key predicate, a function's parameter.
    public init(_ value: ODataValue) {
        self =
            switch value {
            case .null: .null
            case .bool(let value): .bool(value)
            case .int(let value): Int(exactly: value).map { .int($0) } ?? .int64(value)
            case .decimal(let value): .decimal(value)
            case .double(let value): .double(value)
            case .string(let text): .string(text)
            case .guid(let uuid): .guid(uuid)
            case .date(let text): .raw(text)
            case .dateTime(let date): .dateTime(date)
            case .dateTimeOffset(let date, _): .dateTimeOffset(date)
            case .timeOfDay(let text): .raw(text)
            case .duration(let text): .duration(text)
            case .binary(let data): .binary(data)
            case .enumMember(let text): .string(text)
            default: .raw(String(describing: value))
            }
    }
}
