/// `application/x-www-form-urlencoded` encoding and decoding (WHATWG URL standard).
public enum FormURLEncoding {
    /// Characters left as they are; everything else is percent-encoded and a space becomes `+`.
    private static let unreserved: Set<UInt8> = Set(
        Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789*-._".utf8)
    )

    public static func encode(_ fields: [(String, String)]) -> String {
        fields.map { "\(escape($0.0))=\(escape($0.1))" }.joined(separator: "&")
    }

    public static func escape(_ string: String) -> String {
        var result = ""
        result.reserveCapacity(string.utf8.count)
        for byte in string.utf8 {
            if unreserved.contains(byte) {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            } else if byte == UInt8(ascii: " ") {
                result.append("+")
            } else {
                result.append("%")
                result.append(hexDigit(byte >> 4))
                result.append(hexDigit(byte & 0xF))
            }
        }
        return result
    }

    /// Decodes `a=1&b=x+y%21`; `+` is a space, malformed escapes are kept literally.
    public static func decode(_ string: String) -> [(String, String)] {
        string.split(separator: "&", omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = unescape(String(parts[0]))
            let value = parts.count > 1 ? unescape(String(parts[1])) : ""
            return (name, value)
        }
    }

    static func unescape(_ string: String) -> String {
        let plus = string.replacingOccurrences(of: "+", with: " ")
        return plus.removingPercentEncoding ?? plus
    }

    private static func hexDigit(_ value: UInt8) -> Character {
        Character(Unicode.Scalar(value < 10 ? value + 48 : value + 55))
    }
}
