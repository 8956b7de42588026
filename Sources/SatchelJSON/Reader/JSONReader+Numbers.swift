public import Foundation

extension JSONReader {
    /// Reads a number as an `Int64`, exactly: a fraction or overflow is an error, never rounded or wrapped.
    ///
    /// Lexemes such as `1.0` or `1e3` are accepted when they denote an integer in range.
    ///
    /// ```swift
    /// let id = try reader.readInt64()
    /// ```
    @inlinable
    public mutating func readInt64() throws -> Int64 {
        skipWhitespace()
        var i = index
        let negative = i < end && base[i] == UInt8(ascii: "-")
        if negative { i += 1 }
        let digitsStart = i
        var value: UInt64 = 0
        while i < end {
            let digit = base[i] &- UInt8(ascii: "0")
            if digit > 9 { break }
            value = value &* 10 &+ UInt64(digit)
            i += 1
        }
        let count = i - digitsStart
        // Up to 18 digits cannot overflow; anything unusual takes the careful path.
        if count == 0 || count > 18 || (count > 1 && base[digitsStart] == UInt8(ascii: "0"))
            || (i < end && (base[i] == UInt8(ascii: ".") || base[i] | 0x20 == UInt8(ascii: "e")))
            || i - index > limits.maxNumberLength
        {
            return try readInt64Slow()
        }
        index = i
        return negative ? -Int64(bitPattern: value) : Int64(bitPattern: value)
    }

    @usableFromInline
    mutating func readInt64Slow() throws -> Int64 {
        let span = try scanNumberToken(expected: "an integer")
        guard let value = NumberParsing.int64(span.bytes(base)) else { throw outOfRange(span, "Int64") }
        return value
    }

    /// Reads a number as an `Int`; see ``readInt64()``.
    @inlinable
    public mutating func readInt() throws -> Int {
        let start = index
        let value = try readInt64()
        guard let result = Int(exactly: value) else {
            throw makeError(.numberOutOfRange, "\(value) does not fit in Int", at: start)
        }
        return result
    }

    /// Reads a number as any fixed-width integer type, exactly.
    @inlinable
    public mutating func readInteger<T: FixedWidthInteger>(_ type: T.Type = T.self) throws -> T {
        skipWhitespace()
        let start = index
        if T.self == Int64.self { return try readInt64() as! T }
        if T.isSigned || T.bitWidth < 64 {
            let value = try readInt64()
            guard let result = T(exactly: value) else {
                throw makeError(.numberOutOfRange, "\(value) does not fit in \(T.self)", at: start)
            }
            return result
        }
        let span = try scanNumberToken(expected: "an integer")
        guard let value = NumberParsing.uint64(span.bytes(base)), let result = T(exactly: value) else {
            throw outOfRange(span, "\(T.self)")
        }
        return result
    }

    /// Reads a number as a `Double`, correctly rounded. Numbers too large for a `Double` are an error.
    @inlinable
    public mutating func readDouble() throws -> Double {
        let span = try scanNumberToken(expected: "a number")
        guard let value = NumberParsing.double(span.bytes(base)) else { throw outOfRange(span, "Double") }
        return value
    }

    /// Reads a number as a `Decimal`, exactly: `0.1` gives `Decimal` 0.1, not the nearest binary fraction.
    ///
    /// More than 38 significant digits, or an exponent outside Decimal's range, is an error.
    @inlinable
    public mutating func readDecimal() throws -> Decimal {
        let span = try scanNumberToken(expected: "a number")
        guard let value = NumberParsing.decimal(span.bytes(base)) else { throw outOfRange(span, "Decimal") }
        return value
    }

    /// Reads a number, keeping its exact text for later conversion.
    @inlinable
    public mutating func readNumber() throws -> JSONNumber {
        let span = try scanNumberToken(expected: "a number")
        return JSONNumber(uncheckedText: String(decoding: span.bytes(base), as: UTF8.self))
    }

    /// Checks that a number starts after whitespace and scans it.
    @inlinable @inline(__always)
    mutating func scanNumberToken(expected: StaticString) throws -> NumberSpan {
        let byte = peekByte()
        guard byte == UInt8(ascii: "-") || byte &- UInt8(ascii: "0") <= 9 else {
            throw typeMismatch(expected: expected, at: index)
        }
        return try scanNumber()
    }

    /// Validates the RFC 8259 number at `index` (which starts with '-' or a digit) and moves past it.
    @inlinable @inline(__always)
    mutating func scanNumber() throws -> NumberSpan {
        let start = index
        var i = index
        if base[i] == UInt8(ascii: "-") { i += 1 }
        guard i < end, base[i] &- UInt8(ascii: "0") <= 9 else { throw numberError(start, i, "expected a digit") }
        if base[i] == UInt8(ascii: "0") {
            i += 1
            if i < end, base[i] &- UInt8(ascii: "0") <= 9 {
                throw numberError(start, i, "leading zeros are not allowed")
            }
        } else {
            i += 1
            while i < end, base[i] &- UInt8(ascii: "0") <= 9 { i += 1 }
        }
        var isInteger = true
        if i < end, base[i] == UInt8(ascii: ".") {
            isInteger = false
            i += 1
            guard i < end, base[i] &- UInt8(ascii: "0") <= 9 else {
                throw numberError(start, i, "expected a digit after '.'")
            }
            while i < end, base[i] &- UInt8(ascii: "0") <= 9 { i += 1 }
        }
        if i < end, base[i] | 0x20 == UInt8(ascii: "e") {
            isInteger = false
            i += 1
            if i < end, base[i] == UInt8(ascii: "+") || base[i] == UInt8(ascii: "-") { i += 1 }
            guard i < end, base[i] &- UInt8(ascii: "0") <= 9 else {
                throw numberError(start, i, "expected a digit in the exponent")
            }
            while i < end, base[i] &- UInt8(ascii: "0") <= 9 { i += 1 }
        }
        if i - start > limits.maxNumberLength { throw numberLengthError(start, i) }
        index = i
        return NumberSpan(start: start, end: i, isInteger: isInteger)
    }

    @usableFromInline @inline(never)
    func numberError(_ start: Int, _ position: Int, _ message: String) -> JSONError {
        if position >= end { return makeError(.unexpectedEnd, "unexpected end of input in number", at: position) }
        return makeError(.invalidNumber, "invalid number: \(message), found \(describe(at: position))", at: position)
    }

    @usableFromInline @inline(never)
    func numberLengthError(_ start: Int, _ stop: Int) -> JSONError {
        makeError(
            .numberLengthLimitExceeded,
            "number of \(stop - start) characters is over the limit of "
                + "\(limits.maxNumberLength)", at: start)
    }

    @usableFromInline @inline(never)
    func outOfRange(_ span: NumberSpan, _ type: String) -> JSONError {
        let text = String(decoding: span.bytes(base), as: UTF8.self)
        return makeError(.numberOutOfRange, "number \(text) is not representable as \(type)", at: span.start)
    }
}

/// Where a number lexeme lies in the input.
@usableFromInline
struct NumberSpan {
    @usableFromInline var start: Int
    @usableFromInline var end: Int
    @usableFromInline var isInteger: Bool

    @inlinable
    init(start: Int, end: Int, isInteger: Bool) {
        self.start = start
        self.end = end
        self.isInteger = isInteger
    }

    @inlinable
    func bytes(_ base: UnsafePointer<UInt8>) -> UnsafeBufferPointer<UInt8> {
        UnsafeBufferPointer(start: base + start, count: end - start)
    }
}
