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

    /// Whether a value's scan has begun (and not been reset since).
    var isStarted: Bool { started }

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
            if inString && !escaped {
                i = Self.nextQuoteOrBackslash(buffer, from: i)
                if i == count { break }
            }
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

extension BoundaryScanner {
    /// The index of the next `"` or `\\` at or after `start`, or `buffer.count`: string contents are skipped eight
    /// bytes at a time, since only those two bytes can end a string or change what follows.
    @inline(__always)
    static func nextQuoteOrBackslash(_ buffer: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        guard let base = buffer.baseAddress else { return start }
        var i = start
        while i + 8 <= buffer.count {
            // Little-endian order puts the byte at the lowest address in the lowest bits.
            let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
            let found = matches(word, UInt8(ascii: "\"")) | matches(word, UInt8(ascii: "\\"))
            if found != 0 { return i + found.trailingZeroBitCount / 8 }
            i += 8
        }
        while i < buffer.count, buffer[i] != UInt8(ascii: "\""), buffer[i] != UInt8(ascii: "\\") { i += 1 }
        return i
    }

    /// The high bit of each byte of `word` equal to `byte` (exact for the lowest such byte, which is all that is
    /// used: a borrow may set bits above it).
    @inline(__always)
    private static func matches(_ word: UInt64, _ byte: UInt8) -> UInt64 {
        let x = word ^ (0x0101_0101_0101_0101 &* UInt64(byte))
        return (x &- 0x0101_0101_0101_0101) & ~x & 0x8080_8080_8080_8080
    }
}

enum BoundaryScannerError: Error {
    case depth(Int), notAValue(Int), size(Int)
}
