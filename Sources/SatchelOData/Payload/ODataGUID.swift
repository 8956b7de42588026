public import Foundation

/// Parsing `Edm.Guid` text (`01234567-89ab-cdef-0123-456789abcdef`, either case) without the platform's
/// `UUID(uuidString:)`, which on Linux goes through `sscanf` and was a tenth of the cost of decoding an entity.
@usableFromInline
enum ODataGUID {
    /// The UUID spelled by `text`, or nil when it is not 36 characters of hex digits in 8-4-4-4-12 groups.
    @usableFromInline
    static func parse(_ text: String) -> UUID? {
        var text = text
        return text.withUTF8 { bytes -> UUID? in
            guard bytes.count == 36 else { return nil }
            var value: uuid_t = (0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)
            let parsed = withUnsafeMutableBytes(of: &value) { out -> Bool in
                var index = 0
                for byteIndex in 0..<16 {
                    if index == 8 || index == 13 || index == 18 || index == 23 {
                        guard bytes[index] == UInt8(ascii: "-") else { return false }
                        index += 1
                    }
                    guard let high = hex(bytes[index]), let low = hex(bytes[index + 1]) else { return false }
                    out[byteIndex] = high << 4 | low
                    index += 2
                }
                return true
            }
            return parsed ? UUID(uuid: value) : nil
        }
    }

    private static func hex(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
