import Foundation
import SatchelText
import Testing

/// The one ISO 8601 reader and writer every wire format uses.
@Suite("ISO 8601 timestamps")
struct ISO8601TimestampTests {
    static let noon = Date(timeIntervalSince1970: 1_715_940_000)  // 2024-05-17T10:00:00Z

    @Test(
        "complete timestamps: fractions of any length, Z, offsets with and without a colon, no zone as UTC",
        arguments: [
            ("2024-05-17T10:00:00Z", 0.0), ("2024-05-17t10:00:00z", 0), ("2024-05-17 10:00:00Z", 0),
            ("2024-05-17T10:00:00.25Z", 0.25), ("2024-05-17T10:00:00,5Z", 0.5),
            ("2024-05-17T10:00:00.123456789Z", 0.123456789), ("2024-05-17T12:00:00+02:00", 0),
            ("2024-05-17T05:30:00-0430", 0), ("2024-05-17T10:00:00", 0),
        ])
    func complete(text: String, fraction: Double) throws {
        let date = try #require(ISO8601Timestamp.date(from: text))
        #expect(abs(date.timeIntervalSince1970 - (Self.noon.timeIntervalSince1970 + fraction)) < 1e-6)
    }

    @Test(
        "what is not a timestamp is nil, never a trap",
        arguments: [
            "", "2024", "2024-05-17", "2024-13-01T00:00:00Z", "2024-02-30T00:00:00Z", "2023-02-29T00:00:00Z",
            "2024-05-17T24:00:00Z", "2024-05-17T10:60:00Z", "2024-05-17T10:00", "2024-05-17T10:00:00.Z",
            "2024-05-17T10:00:00+2", "2024-05-17T10:00:00+24:00", "2024-05-17T10:00:00Zjunk", "17 May 2024",
            "２０２４-05-17T10:00:00Z", "2024-05-17T10:00:00+02:60",
        ])
    func refused(text: String) {
        #expect(ISO8601Timestamp.date(from: text) == nil)
    }

    @Test("partial timestamps (CMIS QL literals): a date alone, no seconds, an offset in hours")
    func partial() throws {
        #expect(ISO8601Timestamp.date(from: "2024-05-17", .partial) == Date(timeIntervalSince1970: 1_715_904_000))
        #expect(ISO8601Timestamp.date(from: "2024-05-17T10:00", .partial) == Self.noon)
        #expect(ISO8601Timestamp.date(from: "2024-05-17T12:00+02", .partial) == Self.noon)
        #expect(ISO8601Timestamp.date(from: "2024-05-17T10:00:00.5", .partial)?.timeIntervalSince(Self.noon) == 0.5)
        #expect(ISO8601Timestamp.date(from: "2024-05-17T10", .partial) == nil)
        #expect(ISO8601Timestamp.date(from: "2024-05-17T12:00+02", .complete) == nil)
    }

    @Test("written in UTC with milliseconds (rounded), or without; what is written reads back")
    func written() throws {
        #expect(ISO8601Timestamp.string(from: Self.noon) == "2024-05-17T10:00:00.000Z")
        #expect(ISO8601Timestamp.string(from: Self.noon, milliseconds: false) == "2024-05-17T10:00:00Z")
        #expect(ISO8601Timestamp.string(from: Self.noon.addingTimeInterval(0.9996)) == "2024-05-17T10:00:01.000Z")
        #expect(ISO8601Timestamp.string(from: Date(timeIntervalSince1970: -0.001)) == "1969-12-31T23:59:59.999Z")
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            let milliseconds = Int64.random(in: -62_135_596_800_000...253_402_300_799_999, using: &generator)
            let date = Date(timeIntervalSince1970: Double(milliseconds) / 1000)
            let text = ISO8601Timestamp.string(from: date)
            let read = try #require(ISO8601Timestamp.date(from: text), "\(text)")
            #expect(abs(read.timeIntervalSince(date)) < 0.0005, "\(text)")
        }
    }

    @Test("percent and form encoding")
    func encoding() {
        #expect(PercentEncoding.encode("a b/é~") == "a%20b%2F%C3%A9~")
        #expect(FormURLEncoding.encode([("q", "a b&c"), ("x", "*~")]) == "q=a+b%26c&x=*%7E")
        #expect(FormURLEncoding.decode("q=a+b%26c&x=%2A").map { "\($0.0)=\($0.1)" } == ["q=a b&c", "x=*"])
    }
}
