import Foundation
/// `application/x-www-form-urlencoded` encoding and decoding (WHATWG URL standard).
public enum FormURLEncoding {
    /// `[("a", "1"), ("b", "x y")]` as `a=1&b=x+y`.
    public static func encode(_ fields: [(String, String)]) -> String {
        var result = ""
        result.reserveCapacity(fields.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 2 })
        for (index, field) in fields.enumerated() {
            if index > 0 { result.append("&") }
            result.append(escape(field.0))
            result.append("=")
            result.append(escape(field.1))
        }
        return result
    }

    /// Percent-encodes everything but `A-Z a-z 0-9 * - . _`; a space becomes `+`.
    public static func escape(_ string: String) -> String {
        PercentEncoding.encode(string, keeping: UInt8(ascii: "*"), spaceAsPlus: true)
    }

    /// Decodes `a=1&b=x+y%21`; `+` is a space. A name or value with a malformed escape keeps all its escapes as
    /// written (see `unescape(_:)`).
    public static func decode(_ string: String) -> [(String, String)] {
        string.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = unescape(String(parts[0]))
            let value = parts.count > 1 ? unescape(String(parts[1])) : ""
            return (name, value)
        }
    }

    /// One decoded name or value: `+` is a space and `%XX` escapes are decoded; when the escapes do not decode
    /// (a malformed escape, or bytes that are not UTF-8), the text is returned with only `+` replaced.
    public static func unescape(_ string: String) -> String {
        let plus = string.replacingOccurrences(of: "+", with: " ")
        return plus.removingPercentEncoding ?? plus
    }
}
