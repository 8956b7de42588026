import Foundation
import GRDB
import SatchelJSON
import SatchelOData
import SatchelText

/// Values between OData and the store's columns (docs/offline.md, "The store").
enum OfflineValues {
    /// The value of `column` in `properties` (a complex property's part for `Address/City`).
    static func value(of column: OfflineColumn, in properties: ODataProperties) -> ODataValue? {
        // An offset column reads the DateTimeOffset it belongs to.
        if column.kind == .offsetMinutes { return value(at: column.propertyPath, in: properties) }
        guard column.isNested else { return properties[column.path] }
        return value(at: column.path, in: properties)
    }

    /// The value at `path` (`Address/City`) in `properties`.
    static func value(at path: String, in properties: ODataProperties) -> ODataValue? {
        guard let slash = path.firstIndex(of: "/") else { return properties[path] }
        guard case .complex(let inner) = properties[String(path[..<slash])] else { return nil }
        return value(at: String(path[path.index(after: slash)...]), in: inner)
    }

    /// What `value` is stored as in `column`.
    static func databaseValue(_ value: ODataValue?, for column: OfflineColumn) -> DatabaseValue {
        guard let value, !value.isNull else { return .null }
        switch column.kind {
        case .integer: return value.intValue.map { $0.databaseValue } ?? .null
        case .boolean: return value.boolValue.map { ($0 ? 1 : 0).databaseValue } ?? .null
        case .real: return value.doubleValue.map { $0.databaseValue } ?? .null
        case .decimal: return value.decimalValue.map { "\($0)".databaseValue } ?? .null
        case .milliseconds:
            return (value.dateValue ?? value.stringValue.flatMap(ODataDateFormat.parseISO8601))
                .map { milliseconds($0).databaseValue } ?? .null
        case .blob:
            if case .binary(let data) = value { return data.databaseValue }
            return value.stringValue.flatMap { Data(base64Encoded: $0) }?.databaseValue ?? .null
        case .text:
            return value.stringValue?.databaseValue ?? .null
        case .json:
            let json = (try? ODataPayloadWriter(version: .v4).json(for: value)) ?? .null
            return String(decoding: json.serialized(), as: UTF8.self).databaseValue
        case .offsetMinutes:
            if case .dateTimeOffset(_, let offset) = value { return (offset ?? 0).databaseValue }
            return (value.stringValue.flatMap(offsetMinutes(inISO8601:)) ?? 0).databaseValue
        }
    }

    /// The offset of an ISO 8601 date-time (`…+01:00` → 60, `…Z` or none → 0).
    static func offsetMinutes(inISO8601 text: String) -> Int? {
        guard let t = text.firstIndex(where: { $0 == "T" || $0 == "t" }) else { return nil }
        let time = text[t...]
        guard let sign = time.lastIndex(where: { $0 == "+" || $0 == "-" }) else { return 0 }
        let digits = time[time.index(after: sign)...].filter(\.isNumber)
        guard digits.count == 4, let hours = Int(digits.prefix(2)), let minutes = Int(digits.suffix(2)) else {
            return nil
        }
        return (hours * 60 + minutes) * (time[sign] == "-" ? -1 : 1)
    }

    /// The OData value of a stored column value (a DateTimeOffset at the `offset` its offset column holds).
    static func odataValue(
        _ stored: DatabaseValue, for column: OfflineColumn, offset: DatabaseValue? = nil
    )
        -> ODataValue
    {
        if stored.isNull { return .null }
        switch column.kind {
        case .integer: return Int64.fromDatabaseValue(stored).map { .int($0) } ?? .null
        case .boolean: return Int64.fromDatabaseValue(stored).map { .bool($0 != 0) } ?? .null
        case .real: return Double.fromDatabaseValue(stored).map { .double($0) } ?? .null
        case .decimal:
            return String.fromDatabaseValue(stored).flatMap { Decimal(string: $0) }.map { .decimal($0) } ?? .null
        case .milliseconds(let type):
            guard let value = Int64.fromDatabaseValue(stored) else { return .null }
            let date = Date(timeIntervalSince1970: Double(value) / 1000)
            guard type != .dateTime else { return .dateTime(date) }
            return .dateTimeOffset(date, offsetMinutes: offset.flatMap { Int.fromDatabaseValue($0) } ?? 0)
        case .offsetMinutes: return Int64.fromDatabaseValue(stored).map { .int($0) } ?? .null
        case .blob: return Data.fromDatabaseValue(stored).map { .binary($0) } ?? .null
        case .text(let type):
            guard let text = String.fromDatabaseValue(stored) else { return .null }
            if column.enumType != nil { return .enumMember(text) }
            switch type {
            case .guid: return UUID(uuidString: text).map { .guid($0) } ?? .string(text)
            case .date: return .date(text)
            case .timeOfDay, .time: return .timeOfDay(text)
            case .duration: return .duration(text)
            default: return .string(text)
            }
        case .json:
            guard let text = String.fromDatabaseValue(stored), let value = try? JSONValue(parsing: Data(text.utf8))
            else {
                return .null
            }
            return .json(value)
        }
    }

    /// A key literal as `column` stores it, for `column = ?` (a decimal is stored as its text; a filter instead
    /// compares it as a number, through ``databaseValue(_:near:)``).
    static func storedValue(_ literal: ODataLiteral, for column: OfflineColumn) -> DatabaseValue {
        if column.kind == .decimal, case .decimal(let value) = literal { return "\(value)".databaseValue }
        if column.kind == .decimal, case .int(let value) = literal { return "\(value)".databaseValue }
        return databaseValue(literal, near: column)
    }

    /// A literal of a `$filter`, as the column it is compared with stores it.
    static func databaseValue(_ literal: ODataLiteral, near column: OfflineColumn?) -> DatabaseValue {
        switch literal {
        case .null: return .null
        case .bool(let flag): return (flag ? 1 : 0).databaseValue
        case .int(let value): return value.databaseValue
        case .int64(let value): return value.databaseValue
        case .decimal(let value):
            return NSDecimalNumber(decimal: value).doubleValue.databaseValue
        case .double(let value): return value.databaseValue
        case .single(let value): return Double(value).databaseValue
        case .string(let text): return text.databaseValue
        case .guid(let uuid): return uuid.uuidString.lowercased().databaseValue
        case .dateTime(let date), .dateTimeOffset(let date): return milliseconds(date).databaseValue
        case .date(let year, let month, let day):
            if case .milliseconds = column?.kind {
                return (Int64(CivilDate.daysSince1970(year: year, month: month, day: day)) * 86_400_000)
                    .databaseValue
            }
            return literal.text(for: .v4).databaseValue
        case .timeOfDay: return literal.text(for: .v4).databaseValue
        case .duration(let text): return text.databaseValue
        case .binary(let data): return data.databaseValue
        case .enumMember(_, let member): return member.databaseValue
        case .raw(let text): return text.databaseValue
        }
    }

    static func milliseconds(_ date: Date) -> Int64 { Int64((date.timeIntervalSince1970 * 1000).rounded()) }
}
