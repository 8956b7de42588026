/// Percent-encoding for OData URLs: spaces become `%20` (never `+`), and the characters that delimit query
/// options (`&`, `=`, `+`, `#`, `%`) are escaped in values; OData's own punctuation (`'`, `(`, `)`, `,`, `:`,
/// `/`, `$`, `@`, `*`) stays readable.
public enum ODataURLEncoding {
    private static let queryAllowed: Set<UInt8> = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$'()*,/:;@".utf8)
    private static let pathAllowed: Set<UInt8> = Set(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~!$'()*,:;=@&+".utf8)

    /// Encodes a query option name or value.
    public static func query(_ text: String) -> String { encode(text, allowed: queryAllowed) }

    /// Encodes one path segment (an entity set with its key predicate: `Products('a/b')` keeps the parentheses
    /// and escapes the slash).
    public static func pathSegment(_ text: String) -> String { encode(text, allowed: pathAllowed) }

    private static func encode(_ text: String, allowed: Set<UInt8>) -> String {
        var result = [UInt8]()
        result.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            if allowed.contains(byte) {
                result.append(byte)
            } else {
                result.append(UInt8(ascii: "%"))
                result.append(hex[Int(byte >> 4)])
                result.append(hex[Int(byte & 0x0F)])
            }
        }
        return String(decoding: result, as: UTF8.self)
    }
}
