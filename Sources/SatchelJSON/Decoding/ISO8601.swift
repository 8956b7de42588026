public import Foundation
public import SatchelText

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
        guard !span.escaped, let date = ISO8601Timestamp.date(utf8: bytes) else { throw invalidDate(at: start) }
        return date
    }

    @usableFromInline @inline(never)
    func invalidDate(at position: Int) -> JSONError {
        makeError(.typeMismatch, "expected an ISO 8601 date such as 2024-05-17T09:30:00Z", at: position)
    }
}
