/// Finds where a JSON value ends in bytes that arrive piece by piece, without parsing it.
///
/// It only tracks strings, escapes and bracket depth, resuming where it stopped when more bytes
/// arrive, so each byte is looked at once however the chunks fall. The complete value is then parsed
/// (and fully validated) by ``JSONReader``.
struct BoundaryScanner: Sendable {
    private var started = false
    private var depth = 0
    private var inString = false
    private var escaped = false
    private var scalar = false
    /// Buffer index to resume at.
    private(set) var resume = 0

    mutating func reset() { self = BoundaryScanner() }

    /// The buffer was compacted: indices moved down by `count`.
    mutating func shift(by count: Int) { resume = max(0, resume - count) }

    /// The end index of the value starting at `start`, or `nil` if more bytes are needed.
    mutating func scan(
        _ buffer: UnsafeBufferPointer<UInt8>, from start: Int, baseDepth: Int, limits: JSONLimits
    )
        throws(BoundaryScannerError) -> Int?
    {
        var i = max(resume, start)
        if !started {
            started = true
            i = start + 1
            switch buffer[start] {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                depth = 1
                if baseDepth + 1 > limits.maxDepth { throw .depth(start) }
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ","), UInt8(ascii: ":"): throw .notAValue(start)
            default: scalar = true
            }
        }
        let count = buffer.count
        while i < count {
            let byte = buffer[i]
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                    if depth == 0 { return i + 1 }
                }
            } else if scalar {
                switch byte {
                case 0x20, 0x0A, 0x0D, 0x09, UInt8(ascii: ","), UInt8(ascii: "]"), UInt8(ascii: "}"),
                    UInt8(ascii: "["), UInt8(ascii: "{"), UInt8(ascii: "\""), UInt8(ascii: ":"):
                    return i
                default: break
                }
            } else {
                switch byte {
                case UInt8(ascii: "\""): inString = true
                case UInt8(ascii: "{"), UInt8(ascii: "["):
                    depth += 1
                    if baseDepth + depth > limits.maxDepth { throw .depth(i) }
                case UInt8(ascii: "}"), UInt8(ascii: "]"):
                    depth -= 1
                    if depth == 0 { return i + 1 }
                default: break
                }
            }
            i += 1
        }
        resume = i
        if i - start > limits.maxDocumentSize { throw .size(start) }
        return nil
    }
}

enum BoundaryScannerError: Error {
    case depth(Int), notAValue(Int), size(Int)
}
