public import Foundation

/// ISO 8601 / RFC 3339 timestamps, read and written without Foundation's formatters (which cost microseconds a
/// date and disagree across platforms): JSON and AtomPub dates, `xsd:dateTime`, CMIS QL `TIMESTAMP` literals,
/// Nuxeo's and OData's dates, what the CLI prints.
///
/// ```swift
/// ISO8601Timestamp.date(from: "2024-05-17T09:30:00.25+02:00")   // 2024-05-17 07:30:00.25 UTC
/// ISO8601Timestamp.date(from: "2024-05-17", .partial)            // midnight UTC
/// ISO8601Timestamp.date(from: "17 May 2024")                     // nil
/// ISO8601Timestamp.string(from: date)                            // "2024-05-17T07:30:00.250Z"
/// ```
public enum ISO8601Timestamp {
    /// What a timestamp may leave out.
    public enum Grammar: Sendable {
        /// `YYYY-MM-DDTHH:MM:SS`, an optional fraction of any length, and `Z`, `±HH:MM` or `±HHMM` (none: UTC).
        case complete
        /// Also a date alone, a time without seconds, and an offset without minutes (`±HH`), as CMIS QL's
        /// `TIMESTAMP` literals have them.
        case partial
    }

    /// The date `text` names, or nil when it is not a timestamp of `grammar`. `T`, `t` or a space separate date and
    /// time; `.` or `,` start a fraction; a leap second (`:60`) is the next second.
    public static func date(from text: String, _ grammar: Grammar = .complete) -> Date? {
        var text = text
        return text.withUTF8 { date(utf8: $0, grammar) }
    }

    /// ``date(from:_:)`` over UTF-8 bytes (a span of a JSON document).
    public static func date(utf8 text: UnsafeBufferPointer<UInt8>, _ grammar: Grammar = .complete) -> Date? {
        var i = 0
        let count = text.count
        let partial = grammar == .partial
        func number(_ digits: Int) -> Int? {
            guard i + digits <= count else { return nil }
            var value = 0
            for _ in 0..<digits {
                let digit = text[i] &- UInt8(ascii: "0")
                guard digit <= 9 else { return nil }
                value = value * 10 + Int(digit)
                i += 1
            }
            return value
        }
        func expect(_ byte: UInt8) -> Bool {
            guard i < count, text[i] == byte else { return false }
            i += 1
            return true
        }
        guard let year = number(4), expect(UInt8(ascii: "-")), let month = number(2), expect(UInt8(ascii: "-")),
            let day = number(2), (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(month: month, year: year)
        else { return nil }
        let days = CivilDate.daysSince1970(year: year, month: month, day: day)
        if i == count { return partial ? Date(timeIntervalSince1970: Double(days) * 86_400) : nil }
        guard text[i] == UInt8(ascii: "T") || text[i] == UInt8(ascii: "t") || text[i] == UInt8(ascii: " ") else {
            return nil
        }
        i += 1
        guard let hour = number(2), expect(UInt8(ascii: ":")), let minute = number(2), hour <= 23, minute <= 59 else {
            return nil
        }
        var second = 0
        if expect(UInt8(ascii: ":")) {
            guard let whole = number(2), whole <= 60 else { return nil }
            second = whole
        } else if !partial {
            return nil
        }
        var fraction = 0.0
        if i < count, text[i] == UInt8(ascii: ".") || text[i] == UInt8(ascii: ",") {
            i += 1
            var scale = 0.1
            let start = i
            while i < count, text[i] &- UInt8(ascii: "0") <= 9 {
                fraction += Double(text[i] - UInt8(ascii: "0")) * scale
                scale /= 10
                i += 1
            }
            guard i > start else { return nil }
        }
        var offset = 0
        if i < count {
            let sign = text[i]
            if sign == UInt8(ascii: "Z") || sign == UInt8(ascii: "z") {
                i += 1
            } else if sign == UInt8(ascii: "+") || sign == UInt8(ascii: "-") {
                i += 1
                guard let offsetHours = number(2), offsetHours <= 23 else { return nil }
                var offsetMinutes = 0
                if partial && i == count {
                    offsetMinutes = 0
                } else {
                    _ = expect(UInt8(ascii: ":"))
                    guard let minutes = number(2), minutes <= 59 else { return nil }
                    offsetMinutes = minutes
                }
                offset = (offsetHours * 60 + offsetMinutes) * 60 * (sign == UInt8(ascii: "-") ? -1 : 1)
            }
        }
        guard i == count else { return nil }
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

    /// `date` in UTC with milliseconds, rounded to the millisecond as the CMIS Browser binding's epoch milliseconds
    /// are: `2026-11-21T22:29:28.796Z` (`xsd:dateTime`, RFC 3339); without them, `2026-11-21T22:29:28Z`.
    public static func string(from date: Date, milliseconds withMilliseconds: Bool = true) -> String {
        let total = Int64((date.timeIntervalSince1970 * 1000).rounded())
        let milliseconds = Int((total % 1000 + 1000) % 1000)
        let seconds = (total - Int64(milliseconds)) / 1000
        let (civil, secondOfDay) = CivilDate.split(secondsSince1970: seconds)
        func pad(_ value: Int, _ width: Int) -> String {
            let digits = String(value)
            return digits.count >= width ? digits : String(repeating: "0", count: width - digits.count) + digits
        }
        return pad(Int(civil.year), 4) + "-" + pad(civil.month, 2) + "-" + pad(civil.day, 2) + "T"
            + pad(secondOfDay / 3600, 2) + ":" + pad(secondOfDay / 60 % 60, 2) + ":" + pad(secondOfDay % 60, 2)
            + (withMilliseconds ? "." + pad(milliseconds, 3) : "") + "Z"
    }
}
