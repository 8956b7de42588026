/// A day of the proleptic Gregorian calendar, from the days since 1970-01-01 (H. Hinnant's days-to-civil
/// algorithm): what HTTP dates and `xsd:dateTime` strings are written from, without a formatter.
public struct CivilDate: Sendable, Hashable {
    public let year: Int64
    /// 1…12.
    public let month: Int
    /// 1…31.
    public let day: Int
    /// 0 (Sunday) … 6 (Saturday).
    public let weekday: Int

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

    /// The day and the second within it of a time in seconds since 1970 (negative times count back).
    public static func split(secondsSince1970 seconds: Int64) -> (date: CivilDate, secondOfDay: Int) {
        let days = seconds >= 0 ? seconds / 86_400 : (seconds - 86_399) / 86_400
        return (CivilDate(daysSince1970: days), Int(seconds - days * 86_400))
    }
}
