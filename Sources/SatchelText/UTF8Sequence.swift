/// Well-formed UTF-8 (RFC 3629), one sequence at a time: what the JSON reader and the XML preflight both refuse.
///
/// ```swift
/// if let shape = UTF8Sequence.shape(lead: byte) {
///     // shape.length bytes in all; the second in shape.low...shape.high, the others in 0x80...0xBF
/// }
/// ```
public enum UTF8Sequence {
    /// The length of a sequence that starts with `lead`, and the bounds of its second byte (narrower than
    /// `0x80...0xBF` where that rules out overlong forms, UTF-16 surrogates and anything above U+10FFFF); nil when
    /// `lead` cannot start a sequence of two or more bytes.
    @inlinable @inline(__always)
    public static func shape(lead: UInt8) -> (length: Int, low: UInt8, high: UInt8)? {
        switch lead {
        case 0xC2...0xDF: (2, 0x80, 0xBF)
        case 0xE0: (3, 0xA0, 0xBF)  // no overlong forms
        case 0xE1...0xEC, 0xEE...0xEF: (3, 0x80, 0xBF)
        case 0xED: (3, 0x80, 0x9F)  // no UTF-16 surrogates
        case 0xF0: (4, 0x90, 0xBF)  // no overlong forms
        case 0xF1...0xF3: (4, 0x80, 0xBF)
        case 0xF4: (4, 0x80, 0x8F)  // nothing above U+10FFFF
        default: nil
        }
    }
}
