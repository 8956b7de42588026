/// Percent-encoding of text for URLs, byte by byte over its UTF-8.
///
/// ```swift
/// PercentEncoding.encode("a b/é")   // "a%20b%2F%C3%A9" (RFC 3986: only A-Z a-z 0-9 - . _ ~ stay)
/// ```
public enum PercentEncoding {
    /// Every byte but RFC 3986's unreserved `A-Z a-z 0-9 - . _ ~` as `%XX`, as a URI template's `{value}` asks.
    public static func encode(_ text: String) -> String {
        encode(text, keeping: UInt8(ascii: "~"), spaceAsPlus: false)
    }

    /// Every byte but `A-Z a-z 0-9 - . _` and `kept` as `%XX`; with `spaceAsPlus`, a space becomes `+` (forms).
    public static func encode(_ text: String, keeping kept: UInt8, spaceAsPlus: Bool) -> String {
        func isKept(_ byte: UInt8) -> Bool {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"):
                return true
            default:
                return byte == kept
            }
        }
        let utf8 = text.utf8
        if utf8.allSatisfy(isKept) { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(utf8.count * 3)
        for byte in utf8 {
            if isKept(byte) {
                bytes.append(byte)
            } else if spaceAsPlus, byte == UInt8(ascii: " ") {
                bytes.append(UInt8(ascii: "+"))
            } else {
                bytes.append(UInt8(ascii: "%"))
                bytes.append(hexDigit(byte >> 4))
                bytes.append(hexDigit(byte & 0xF))
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    private static func hexDigit(_ value: UInt8) -> UInt8 {
        value < 10 ? value + 48 : value + 55
    }
}
