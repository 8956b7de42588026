import Foundation
import SatchelJSON

/// The text of a `TIMESTAMP '…'` literal: `YYYY-MM-DD[Thh:mm[:ss[.fraction]]][Z|±hh:mm|±hhmm]`, UTC when no zone.
enum Timestamp {
    static func parse(_ text: String) -> Date? {
        var scanner = DigitScanner(characters: Array(text))
        guard let year = scanner.number(digits: 4), scanner.skip("-"),
            let month = scanner.number(digits: 2), scanner.skip("-"),
            let day = scanner.number(digits: 2),
            (1...12).contains(month), (1...CivilDate.daysIn(month: month, year: year)).contains(day)
        else { return nil }
        var seconds = Double(CivilDate.daysSince1970(year: year, month: month, day: day)) * 86_400
        if scanner.skip("T") || scanner.skip("t") || scanner.skip(" ") {
            guard let hour = scanner.number(digits: 2), scanner.skip(":"), let minute = scanner.number(digits: 2),
                hour < 24, minute < 60
            else { return nil }
            var second = 0.0
            if scanner.skip(":") {
                guard let whole = scanner.number(digits: 2), whole < 61 else { return nil }
                second = Double(whole)
                if scanner.skip(".") {
                    let fraction = scanner.digits()
                    guard !fraction.isEmpty, fraction.count <= 9, let value = Double("0." + fraction) else {
                        return nil
                    }
                    second += value
                }
            }
            seconds += Double(hour * 3600 + minute * 60) + second
            if scanner.skip("Z") || scanner.skip("z") {
            } else if let sign = scanner.sign() {
                guard let zoneHour = scanner.number(digits: 2), zoneHour < 24 else { return nil }
                _ = scanner.skip(":")
                let zoneMinute = scanner.atEnd ? 0 : scanner.number(digits: 2)
                guard let zoneMinute, zoneMinute < 60 else { return nil }
                seconds -= Double(sign * (zoneHour * 3600 + zoneMinute * 60))
            }
        }
        guard scanner.atEnd else { return nil }
        return Date(timeIntervalSince1970: seconds)
    }

    private struct DigitScanner {
        let characters: [Character]
        var index = 0

        var atEnd: Bool { index == characters.count }

        mutating func skip(_ character: Character) -> Bool {
            guard index < characters.count, characters[index] == character else { return false }
            index += 1
            return true
        }

        mutating func sign() -> Int? {
            if skip("+") { return 1 }
            if skip("-") { return -1 }
            return nil
        }

        mutating func digits() -> String {
            var text = ""
            while index < characters.count, characters[index].isASCII, characters[index].isNumber {
                text.append(characters[index])
                index += 1
            }
            return text
        }

        mutating func number(digits count: Int) -> Int? {
            guard index + count <= characters.count else { return nil }
            var value = 0
            for character in characters[index..<index + count] {
                guard character.isASCII, let digit = character.wholeNumberValue else { return nil }
                value = value * 10 + digit
            }
            index += count
            return value
        }
    }
}
