import SatchelText

extension JSONReader {
    /// Reads a string.
    ///
    /// Strings without escapes are created straight from the input bytes; escapes (including
    /// surrogate pairs) are decoded in a second pass only when present.
    ///
    /// ```swift
    /// let name = try reader.readString()
    /// ```
    @inlinable
    public mutating func readString() throws -> String {
        guard peekByte() == UInt8(ascii: "\"") else { throw typeMismatch(expected: "a string", at: index) }
        let span = try scanString()
        return makeString(span)
    }

    /// Validates the string whose opening quote is at `index` and moves past its closing quote.
    ///
    /// Returns the range of the text between the quotes and whether it contains escapes.
    @inlinable @inline(__always)
    mutating func scanString() throws -> StringSpan {
        let start = index + 1
        var i = start
        // Eight bytes at a time while none of them needs attention (SWAR, no SIMD types needed).
        while i &+ 8 <= end {
            let word = UInt64(littleEndian: UnsafeRawPointer(base + i).loadUnaligned(as: UInt64.self))
            let special = JSONReader.specialBytes(word)
            if special != 0 {
                i &+= special.trailingZeroBitCount &>> 3
                break
            }
            i &+= 8
        }
        while i < end {
            let byte = base[i]
            if byte == UInt8(ascii: "\"") {
                if i - start > limits.maxStringLength { break }
                index = i + 1
                return StringSpan(start: start, end: i, escaped: false)
            }
            // One unsigned compare catches both control characters and non-ASCII bytes.
            if byte == UInt8(ascii: "\\") || (byte &- 0x20) >= 0x60 { break }
            i += 1
        }
        return try scanStringSlow(start: start, from: i)
    }

    /// High bit set in each byte of `word` that is a quote, a backslash, a control character or non-ASCII
    /// (exact for the lowest such byte, which is all the caller uses).
    @inlinable @inline(__always)
    static func specialBytes(_ word: UInt64) -> UInt64 {
        let ones: UInt64 = 0x0101_0101_0101_0101
        let high: UInt64 = 0x8080_8080_8080_8080
        let quote = word ^ (ones &* 0x22)
        let backslash = word ^ (ones &* 0x5C)
        let quoteHit = (quote &- ones) & ~quote
        let backslashHit = (backslash &- ones) & ~backslash
        let controlHit = word &- (ones &* 0x20)
        return (quoteHit | backslashHit | controlHit | word) & high
    }

    /// The rest of ``scanString()``: escapes, UTF-8 validation, errors.
    @usableFromInline
    mutating func scanStringSlow(start: Int, from: Int) throws -> StringSpan {
        var i = from
        var escaped = false
        while i < end {
            let byte = base[i]
            if byte == UInt8(ascii: "\"") {
                if i - start > limits.maxStringLength {
                    throw makeError(
                        .stringLengthLimitExceeded,
                        "string of \(i - start) bytes is over the limit of \(limits.maxStringLength)", at: start - 1)
                }
                index = i + 1
                return StringSpan(start: start, end: i, escaped: escaped)
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
                i = try scanEscape(at: i)
            } else if byte < 0x20 {
                throw makeError(
                    .controlCharacterInString,
                    "unescaped control character \(describe(at: i)) in string (use \\n, \\t or \\u00XX)", at: i)
            } else if byte < 0x80 {
                i += 1
            } else {
                i += try validateUTF8Sequence(at: i)
            }
        }
        throw makeError(.unexpectedEnd, "unterminated string", at: end)
    }

    /// Validates the escape starting at the backslash at `position`; returns the index after it.
    @usableFromInline
    func scanEscape(at position: Int) throws -> Int {
        guard position + 1 < end else { throw makeError(.unexpectedEnd, "unterminated escape", at: end) }
        switch base[position + 1] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            return position + 2
        case UInt8(ascii: "u"):
            let unit = try hex4(at: position + 2)
            if unit >= 0xDC00, unit <= 0xDFFF {
                throw makeError(
                    .invalidUnicode, "lone low surrogate \\u\(String(unit, radix: 16, uppercase: true))",
                    at: position)
            }
            guard unit >= 0xD800, unit <= 0xDBFF else { return position + 6 }
            // A high surrogate must be followed by an escaped low surrogate.
            let next = position + 6
            guard next + 1 < end, base[next] == UInt8(ascii: "\\"), base[next + 1] == UInt8(ascii: "u") else {
                if next + 1 >= end, next >= end || base[next] == UInt8(ascii: "\\") {
                    throw makeError(.unexpectedEnd, "unterminated surrogate pair", at: end)
                }
                throw makeError(
                    .invalidUnicode, "lone high surrogate \\u\(String(unit, radix: 16, uppercase: true))",
                    at: position)
            }
            let low = try hex4(at: next + 2)
            guard low >= 0xDC00, low <= 0xDFFF else {
                throw makeError(
                    .invalidUnicode,
                    "high surrogate \\u\(String(unit, radix: 16, uppercase: true)) not followed "
                        + "by a low surrogate", at: position)
            }
            return next + 6
        default:
            throw makeError(
                .invalidEscape, "invalid escape '\\\(describe(at: position + 1).dropFirst().dropLast())'",
                at: position)
        }
    }

    /// The four hex digits at `position` as a UTF-16 code unit.
    @usableFromInline
    func hex4(at position: Int) throws -> UInt16 {
        var value: UInt16 = 0
        for i in position..<position + 4 {
            guard i < end else { throw makeError(.unexpectedEnd, "unterminated \\u escape", at: end) }
            let byte = base[i]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default:
                throw makeError(.invalidEscape, "expected 4 hex digits after \\u, found \(describe(at: i))", at: i)
            }
            value = value << 4 | UInt16(digit)
        }
        return value
    }

    /// Length of the well-formed UTF-8 sequence (RFC 3629) starting at `position`, or an error.
    @usableFromInline
    func validateUTF8Sequence(at position: Int) throws -> Int {
        guard let (length, low, high) = UTF8Sequence.shape(lead: base[position]) else {
            throw makeError(.invalidUTF8, "invalid UTF-8 lead byte \(describe(at: position))", at: position)
        }
        for k in 1..<length {
            guard position + k < end else {
                throw makeError(.invalidUTF8, "truncated UTF-8 sequence", at: position)
            }
            let byte = base[position + k]
            let (min, max) = k == 1 ? (low, high) : (UInt8(0x80), UInt8(0xBF))
            guard byte >= min, byte <= max else {
                throw makeError(
                    .invalidUTF8, "invalid UTF-8 continuation byte \(describe(at: position + k))",
                    at: position + k)
            }
        }
        return length
    }

    /// The string for a span found by ``scanString()``.
    @inlinable @inline(__always)
    func makeString(_ span: StringSpan) -> String {
        let bytes = UnsafeBufferPointer(start: base + span.start, count: span.end - span.start)
        if !span.escaped { return String(decoding: bytes, as: UTF8.self) }
        return JSONReader.unescape(bytes)
    }

    /// Decodes the escapes of already-validated string content. Output is never longer than input.
    @usableFromInline
    static func unescape(_ input: UnsafeBufferPointer<UInt8>) -> String {
        String(unsafeUninitializedCapacity: input.count) { output in
            var i = 0
            var o = 0
            func hex(_ at: Int) -> UInt32 {
                var value: UInt32 = 0
                for k in at..<at + 4 {
                    let byte = input[k]
                    let digit = byte <= 0x39 ? byte &- 0x30 : (byte | 0x20) &- 0x57
                    value = value << 4 | UInt32(digit)
                }
                return value
            }
            while i < input.count {
                let byte = input[i]
                guard byte == UInt8(ascii: "\\") else {
                    output[o] = byte
                    o += 1
                    i += 1
                    continue
                }
                let kind = input[i + 1]
                i += 2
                var scalar: UInt32
                switch kind {
                case UInt8(ascii: "b"): scalar = 0x08
                case UInt8(ascii: "f"): scalar = 0x0C
                case UInt8(ascii: "n"): scalar = 0x0A
                case UInt8(ascii: "r"): scalar = 0x0D
                case UInt8(ascii: "t"): scalar = 0x09
                case UInt8(ascii: "u"):
                    scalar = hex(i)
                    i += 4
                    if scalar >= 0xD800, scalar <= 0xDBFF {
                        let low = hex(i + 2)
                        i += 6
                        scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
                    }
                default: scalar = UInt32(kind)  // " \ /
                }
                for unit in UTF8.encode(Unicode.Scalar(scalar)!)! {
                    output[o] = unit
                    o += 1
                }
            }
            return o
        }
    }
}

/// Where a string's content lies in the input.
@usableFromInline
struct StringSpan {
    @usableFromInline var start: Int
    @usableFromInline var end: Int
    @usableFromInline var escaped: Bool

    @inlinable
    init(start: Int, end: Int, escaped: Bool) {
        self.start = start
        self.end = end
        self.escaped = escaped
    }
}
