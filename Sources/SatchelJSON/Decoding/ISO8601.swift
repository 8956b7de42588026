import Foundation

/// A small, allocation-free parser for the ISO 8601 / RFC 3339 timestamps found in JSON APIs.
///
/// Accepts `YYYY-MM-DDTHH:MM:SS`, optional fractional seconds (any number of digits), and `Z` or a
/// `±HH:MM` / `±HHMM` offset; without an offset the time is taken as UTC (OData `Edm.DateTime`).
/// `t`/space are accepted for `T` as RFC 3339 allows.
@usableFromInline
enum ISO8601 {
    @usableFromInline
    static func parse(_ text: UnsafeBufferPointer<UInt8>) -> Date? {
        var i = 0
        let count = text.count
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
            let day = number(2), i < count,
            text[i] == UInt8(ascii: "T") || text[i] == UInt8(ascii: "t")
                || text[i] == UInt8(ascii: " ")
        else { return nil }
        i += 1
        guard let hour = number(2), expect(UInt8(ascii: ":")), let minute = number(2), expect(UInt8(ascii: ":")),
            let second = number(2)
        else { return nil }
        guard (1...12).contains(month), day >= 1, day <= CivilDate.daysIn(month: month, year: year), hour <= 23,
            minute <= 59,
            second <= 60
        else { return nil }
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
                guard let offsetHours = number(2) else { return nil }
                _ = expect(UInt8(ascii: ":"))
                guard let offsetMinutes = number(2), offsetHours <= 23, offsetMinutes <= 59 else { return nil }
                offset = (offsetHours * 60 + offsetMinutes) * 60 * (sign == UInt8(ascii: "-") ? -1 : 1)
            }
        }
        guard i == count else { return nil }
        let days = CivilDate.daysSince1970(year: year, month: month, day: day)
        let seconds = days * 86_400 + hour * 3_600 + minute * 60 + second - offset
        return Date(timeIntervalSince1970: Double(seconds) + fraction)
    }

}

/// ISO 8601 / RFC 3339 timestamps read without Foundation's formatters, for text that is not in a JSON document
/// (an AtomPub `xs:dateTime`, a header).
///
/// ```swift
/// ISO8601Timestamp.date(from: "2024-05-17T09:30:00.25+02:00")   // 2024-05-17 07:30:00.25 UTC
/// ISO8601Timestamp.date(from: "17 May 2024")                    // nil
/// ```
public enum ISO8601Timestamp {
    /// The date of `YYYY-MM-DDTHH:MM:SS`, with optional fractional seconds and `Z` or a `±HH:MM` offset (without
    /// one, UTC); nil for anything else.
    public static func date(from text: String) -> Date? {
        var text = text
        return text.withUTF8 { ISO8601.parse($0) }
    }
}

extension JSONReader {
    /// Reads an ISO 8601 / RFC 3339 timestamp string such as `2024-05-17T09:30:00Z` as a `Date`.
    ///
    /// ```swift
    /// let created = try reader.readISO8601Date()
    /// ```
    @inlinable
    public mutating func readISO8601Date() throws -> Date {
        guard peekByte() == UInt8(ascii: "\"") else { throw typeMismatch(expected: "a date string", at: index) }
        let start = index
        let span = try scanString()
        let bytes = UnsafeBufferPointer(start: base + span.start, count: span.end - span.start)
        guard !span.escaped, let date = ISO8601.parse(bytes) else { throw invalidDate(at: start) }
        return date
    }

    @usableFromInline @inline(never)
    func invalidDate(at position: Int) -> JSONError {
        makeError(.typeMismatch, "expected an ISO 8601 date such as 2024-05-17T09:30:00Z", at: position)
    }
}
