public import Foundation
import SatchelJSON
import SatchelText

/// Date and time text forms used by OData: ISO 8601 for V4 and V2 literals, `/Date(ms±offset)/` for V2 JSON.
public enum ODataDateFormat {
    private static let calendar: Calendar = {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC") ?? TimeZone(secondsFromGMT: 0) ?? calendar.timeZone
        return calendar
    }()

    /// `2026-01-31T13:20:05Z` (`.123` fraction only when there is one); `zone: false` leaves out the `Z`.
    public static func iso8601(_ date: Date, zone: Bool = true) -> String {
        let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
        let seconds = date.timeIntervalSince1970
        let millis = Int((seconds - seconds.rounded(.down)) * 1000 + 0.5) % 1000
        var text = String(
            format: "%04d-%02d-%02dT%02d:%02d:%02d", parts.year ?? 1970, parts.month ?? 1, parts.day ?? 1,
            parts.hour ?? 0, parts.minute ?? 0, parts.second ?? 0)
        if millis != 0 { text += String(format: ".%03d", millis) }
        return zone ? text + "Z" : text
    }

    /// `2026-01-31T14:20:05+01:00`: the instant as wall-clock time at `offsetMinutes` from UTC (`Z` for 0).
    public static func iso8601(_ date: Date, offsetMinutes: Int) -> String {
        guard offsetMinutes != 0 else { return iso8601(date) }
        let local = iso8601(date.addingTimeInterval(Double(offsetMinutes) * 60), zone: false)
        let magnitude = abs(offsetMinutes)
        return local + (offsetMinutes < 0 ? "-" : "+") + String(format: "%02d:%02d", magnitude / 60, magnitude % 60)
    }

    /// `/Date(1767225600000)/` or `/Date(1767225600000+0060)/` (V2 JSON; the offset is in minutes).
    /// Returns the instant and the offset in minutes, if one was given.
    public static func parseV2JSONDate(_ text: String) -> (date: Date, offsetMinutes: Int?)? {
        guard text.hasPrefix("/Date("), text.hasSuffix(")/") else { return nil }
        let inner = text.dropFirst(6).dropLast(2)
        var digits = inner
        var offset: Int?
        if let sign = inner.dropFirst().firstIndex(where: { $0 == "+" || $0 == "-" }) {
            digits = inner[..<sign]
            guard let minutes = Int(inner[inner.index(after: sign)...]) else { return nil }
            offset = inner[sign] == "-" ? -minutes : minutes
        }
        guard let millis = Int64(digits) else { return nil }
        return (Date(timeIntervalSince1970: Double(millis) / 1000), offset)
    }

    /// `/Date(ms)/` for a V2 JSON payload; with an offset, `/Date(ms+0060)/` (minutes; the number is the instant).
    public static func v2JSONDate(_ date: Date, offsetMinutes: Int? = nil) -> String {
        let millis = Int64((date.timeIntervalSince1970 * 1000).rounded())
        guard let offsetMinutes, offsetMinutes != 0 else { return "/Date(\(millis))/" }
        return "/Date(\(millis)\(offsetMinutes < 0 ? "-" : "+")\(String(format: "%04d", abs(offsetMinutes))))/"
    }

    /// `2026-01-31` for a date at midnight UTC.
    public static func dateOnly(_ date: Date) -> String { String(iso8601(date).prefix(10)) }

    /// Reads ISO 8601 date-times with or without fraction and offset (`2026-01-31T13:20:05.5+01:00`,
    /// `2026-01-31T13:20`, `2026-01-31`); a missing offset means UTC.
    public static func parseISO8601(_ text: String) -> Date? {
        let bytes = Array(text.utf8)
        func number(_ from: Int, _ count: Int) -> Int? {
            guard from + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[from..<from + count] {
                guard byte >= 48 && byte <= 57 else { return nil }
                value = value * 10 + Int(byte - 48)
            }
            return value
        }
        guard bytes.count >= 10, let year = number(0, 4), bytes[4] == 45, let month = number(5, 2), bytes[7] == 45,
            let day = number(8, 2), (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        var components = DateComponents(year: year, month: month, day: day, hour: 0, minute: 0, second: 0)
        var index = 10
        var fraction = 0.0
        var offset = 0
        if index < bytes.count, bytes[index] == 84 || bytes[index] == 116 {
            guard let hour = number(11, 2), bytes.count > 13, bytes[13] == 58, let minute = number(14, 2) else {
                return nil
            }
            components.hour = hour
            components.minute = minute
            index = 16
            if index < bytes.count, bytes[index] == 58 {
                guard let second = number(17, 2) else { return nil }
                components.second = second
                index = 19
                if index < bytes.count, bytes[index] == 46 {
                    index += 1
                    var scale = 0.1
                    let start = index
                    while index < bytes.count, bytes[index] >= 48 && bytes[index] <= 57 {
                        fraction += Double(bytes[index] - 48) * scale
                        scale /= 10
                        index += 1
                    }
                    if index == start { return nil }
                }
            }
            if index < bytes.count {
                switch bytes[index] {
                case 90, 122: index += 1
                case 43, 45:
                    let sign = bytes[index] == 45 ? -1 : 1
                    guard let hours = number(index + 1, 2) else { return nil }
                    var minutes = 0
                    index += 3
                    if index < bytes.count {
                        if bytes[index] == 58 { index += 1 }
                        guard let value = number(index, 2) else { return nil }
                        minutes = value
                        index += 2
                    }
                    offset = sign * (hours * 60 + minutes) * 60
                default: return nil
                }
            }
        }
        guard index == bytes.count else { return nil }
        if year > 1582 {
            // Arithmetic for the proleptic Gregorian calendar: the same instant as `calendar.date(from:)` (which
            // is lenient the same way), without its cost — it dominated decoding entities with dates.
            let seconds =
                CivilDate.daysSince1970(year: year, month: month, day: day) * 86_400 + (components.hour ?? 0) * 3600
                + (components.minute ?? 0) * 60 + (components.second ?? 0)
            return Date(timeIntervalSince1970: Double(seconds) + fraction - Double(offset))
        }
        // Before the Gregorian reform Foundation's calendar is Julian: keep its answer there.
        guard let base = calendar.date(from: components) else { return nil }
        return base.addingTimeInterval(fraction - Double(offset))
    }
}
