import Foundation
import SatchelJSON
import SatchelText

/// The text of a `TIMESTAMP '…'` literal: `YYYY-MM-DD[Thh:mm[:ss[.fraction]]][Z|±hh[:mm]|±hhmm]`, UTC when no zone.
enum Timestamp {
    static func parse(_ text: String) -> Date? { ISO8601Timestamp.date(from: text, .partial) }
}
