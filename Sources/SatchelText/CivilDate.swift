/// A day of the proleptic Gregorian calendar and its distance from 1970-01-01, both ways (H. Hinnant's algorithms):
/// what dates are read and written with, without Foundation's formatters and calendars (JSON and CMIS timestamps,
/// HTTP dates, `xsd:dateTime`, OData dates).
public struct CivilDate: Sendable, Hashable {
    /// The year; 0 is 1 BC, negative years count further back.
    public let year: Int64
    /// 1…12.
    public let month: Int
    /// 1…31.
    public let day: Int
    /// 0 (Sunday) … 6 (Saturday).
    public let weekday: Int

    /// The day `days` days after 1970-01-01 (before it when negative).
    public init(daysSince1970 days: Int64) {
        let shifted = days + 719_468
        let era = (shifted >= 0 ? shifted : shifted - 146_096) / 146_097
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36_524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        day = Int(dayOfYear - (153 * monthIndex + 2) / 5 + 1)
        month = Int(monthIndex < 10 ? monthIndex + 3 : monthIndex - 9)
        year = yearOfEra + era * 400 + (month <= 2 ? 1 : 0)
        // 1970-01-01 was a Thursday.
        weekday = Int(((days % 7) + 11) % 7)
    }

    /// Days from 1970-01-01 to `year`-`month`-`day` (a day past the month's end rolls over).
    public static func daysSince1970(year: Int, month: Int, day: Int) -> Int {
        let shiftedYear = month <= 2 ? year - 1 : year
        let era = (shiftedYear >= 0 ? shiftedYear : shiftedYear - 399) / 400
        let yearOfEra = shiftedYear - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    /// How many days `month` (1…12) of `year` has.
    public static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: return year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: return 30
        default: return 31
        }
    }

    /// The day and the second within it of a time in seconds since 1970 (negative times count back).
    public static func split(secondsSince1970 seconds: Int64) -> (date: CivilDate, secondOfDay: Int) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        return (CivilDate(daysSince1970: days), Int(seconds - days * 86_400))
    }
}
