import Foundation
import SatchelText

enum SatchelTextExamples {
    /// GettingStarted.md: read and write an ISO 8601 timestamp.
    static func timestamps() -> String? {
        guard let date = ISO8601Timestamp.date(from: "2024-05-17T09:30:00.25+02:00") else { return nil }
        let written = ISO8601Timestamp.string(from: date)  // "2024-05-17T07:30:00.250Z"
        let seconds = ISO8601Timestamp.string(from: date, milliseconds: false)  // "2024-05-17T07:30:00Z"
        let day = ISO8601Timestamp.date(from: "2024-05-17", .partial)  // midnight UTC
        return day == nil ? nil : written + " " + seconds
    }

    /// GettingStarted.md: percent and form encoding.
    static func encoding() -> [(String, String)] {
        let segment = PercentEncoding.encode("a b/é")  // "a%20b%2F%C3%A9"
        let body = FormURLEncoding.encode([("name", segment), ("q", "x y")])  // "name=a%2520b…&q=x+y"
        return FormURLEncoding.decode(body)  // [("name", "a%20b%2F%C3%A9"), ("q", "x y")]
    }

    /// GettingStarted.md: calendar days without Foundation's calendars.
    static func civilDates() -> Int {
        let days = CivilDate.daysSince1970(year: 2024, month: 2, day: 29)  // 19782
        let date = CivilDate(daysSince1970: Int64(days))  // 2024-02-29, a Thursday (weekday 4)
        let (day, secondOfDay) = CivilDate.split(secondsSince1970: 1_716_000_000)
        return date.weekday + day.day + secondOfDay + CivilDate.daysIn(month: 2, year: 2024)
    }
}
