public import SatchelCMISCore
import SatchelText

/// The media types content may be stored with (RFC 9110 §8.3.1): `type "/" subtype` as tokens, then parameters, all
/// printable ASCII, at most 255 bytes.
///
/// A media type is written back in `Content-Type` headers (of downloads, and of the parts a gateway sends its
/// back-end), so a control character in one would split a header in two.
public enum MediaTypeSyntax {
    /// The longest media type accepted.
    public static let maximumLength = 255

    /// `value` trimmed, or `application/octet-stream` when it is empty; throws `invalidArgument` with the position of
    /// the first fault.
    ///
    /// ```swift
    /// try MediaTypeSyntax.checked(" text/plain; charset=utf-8 ")  // "text/plain; charset=utf-8"
    /// try MediaTypeSyntax.checked("text/plain\r\nX: y")            // throws
    /// ```
    public static func checked(_ value: String) throws(CMISError) -> String {
        let bytes = Array(value.utf8)
        var start = 0
        var end = bytes.count
        while start < end, bytes[start] == 0x20 || bytes[start] == 0x09 { start += 1 }
        while end > start, bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09 { end -= 1 }
        guard start < end else { return "application/octet-stream" }
        guard end - start <= maximumLength else {
            throw CMISError(.invalidArgument, "the content's media type is longer than \(maximumLength) bytes")
        }
        func refuse(_ index: Int, _ reason: String) -> CMISError {
            CMISError(.invalidArgument, "the content's media type is not valid: \(reason) at byte \(index - start)")
        }
        if let bad = bytes[start..<end].firstIndex(where: { $0 < 0x20 && $0 != 0x09 || $0 >= 0x7F }) {
            throw refuse(bad, "a control or non-ASCII character")
        }
        var index = start
        while index < end, HTTPTokenSyntax.isTokenByte(bytes[index]) { index += 1 }
        guard index > start, index < end, bytes[index] == UInt8(ascii: "/") else {
            throw refuse(index, "expected a type and '/'")
        }
        index += 1
        let subtype = index
        while index < end, HTTPTokenSyntax.isTokenByte(bytes[index]) { index += 1 }
        guard index > subtype else { throw refuse(index, "expected a subtype") }
        while index < end, bytes[index] == 0x20 || bytes[index] == 0x09 { index += 1 }
        guard index == end || bytes[index] == UInt8(ascii: ";") else {
            throw refuse(index, "expected ';' before parameters")
        }
        return String(decoding: bytes[start..<end], as: UTF8.self)
    }
}
