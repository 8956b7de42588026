public import Foundation

/// Conversions of validated RFC 8259 number lexemes to Swift numbers, exactly or not at all.
@usableFromInline
enum NumberParsing {
    /// A lexeme as sign × significand × 10^exponent, with at most 38 significant digits kept.
    @usableFromInline
    struct Parts {
        var negative = false
        var significand: UInt128 = 0
        var exponent = 0
        /// Significant digits kept in `significand`.
        var digits = 0
        /// Non-zero digits were dropped because there were more than 38.
        var inexact = false
    }

    static func parts(_ text: UnsafeBufferPointer<UInt8>) -> Parts {
        var parts = Parts()
        var i = 0
        let count = text.count
        if text[0] == UInt8(ascii: "-") {
            parts.negative = true
            i = 1
        }
        func add(_ digit: UInt8, fraction: Bool) {
            if parts.digits == 0 && digit == 0 {
                if fraction { parts.exponent -= 1 }
                return
            }
            if parts.digits < 38 {
                parts.significand = parts.significand * 10 + UInt128(digit)
                parts.digits += 1
                if fraction { parts.exponent -= 1 }
            } else {
                if digit != 0 { parts.inexact = true }
                if !fraction { parts.exponent += 1 }
            }
        }
        while i < count, text[i] &- 0x30 <= 9 {
            add(text[i] - 0x30, fraction: false)
            i += 1
        }
        if i < count, text[i] == UInt8(ascii: ".") {
            i += 1
            while i < count, text[i] &- 0x30 <= 9 {
                add(text[i] - 0x30, fraction: true)
                i += 1
            }
        }
        if i < count { parts.exponent += Self.exponent(text, from: i) }
        if parts.significand == 0 { parts.exponent = 0 }
        return parts
    }

    /// The exponent of a number already checked by the tokenizer, whose `e` or `E` is at `start`: its sign and
    /// digits, clamped at a million (past that every type is out of range anyway).
    @inline(__always)
    static func exponent(_ text: UnsafeBufferPointer<UInt8>, from start: Int) -> Int {
        var i = start + 1
        var negative = false
        if i < text.count, text[i] == UInt8(ascii: "-") || text[i] == UInt8(ascii: "+") {
            negative = text[i] == UInt8(ascii: "-")
            i += 1
        }
        var value = 0
        while i < text.count {
            if value < 1_000_000 { value = value * 10 + Int(text[i] &- 0x30) }
            i += 1
        }
        return negative ? -value : value
    }

    /// The common case: at most 19 significant digits, so the significand fits a UInt64.
    /// Returns `nil` for longer numbers, which take ``parts(_:)``.
    @inline(__always)
    static func smallParts(_ text: UnsafeBufferPointer<UInt8>) -> (negative: Bool, significand: UInt64, exponent: Int)?
    {
        var i = 0
        let count = text.count
        let negative = text[0] == UInt8(ascii: "-")
        if negative { i = 1 }
        var significand: UInt64 = 0
        var digits = 0
        var exponent = 0
        while i < count {
            let digit = text[i] &- 0x30
            if digit > 9 { break }
            significand = significand &* 10 &+ UInt64(digit)
            if significand != 0 { digits += 1 }
            i += 1
        }
        if i < count, text[i] == UInt8(ascii: ".") {
            i += 1
            while i < count {
                let digit = text[i] &- 0x30
                if digit > 9 { break }
                significand = significand &* 10 &+ UInt64(digit)
                if significand != 0 { digits += 1 }
                exponent -= 1
                i += 1
            }
        }
        if digits > 19 { return nil }
        if i < count { exponent += Self.exponent(text, from: i) }
        return (negative, significand, significand == 0 ? 0 : exponent)
    }

    @usableFromInline
    static func int64(_ text: UnsafeBufferPointer<UInt8>) -> Int64? {
        guard let (negative, magnitude) = integer(text) else { return nil }
        if negative {
            if magnitude == UInt64(Int64.max) + 1 { return .min }
            guard magnitude <= UInt64(Int64.max) else { return nil }
            return -Int64(magnitude)
        }
        return Int64(exactly: magnitude)
    }

    @usableFromInline
    static func uint64(_ text: UnsafeBufferPointer<UInt8>) -> UInt64? {
        guard let (negative, magnitude) = integer(text) else { return nil }
        if negative && magnitude != 0 { return nil }
        return magnitude
    }

    /// The lexeme as sign and magnitude, if it denotes an integer whose magnitude fits in 64 bits.
    static func integer(_ text: UnsafeBufferPointer<UInt8>) -> (Bool, UInt64)? {
        var parts = parts(text)
        if parts.inexact { return nil }
        while parts.exponent < 0, parts.significand % 10 == 0 {
            parts.significand /= 10
            parts.exponent += 1
        }
        guard parts.exponent >= 0 else { return nil }
        var value = parts.significand
        for _ in 0..<parts.exponent {
            guard value <= UInt128(UInt64.max) else { return nil }
            value *= 10
        }
        guard let magnitude = UInt64(exactly: value) else { return nil }
        return (parts.negative, magnitude)
    }

    /// Exact powers of ten for the fast path.
    static let powersOfTen: [Double] = (0...22).map { exponent in
        var value = 1.0
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    @usableFromInline
    static func double(_ text: UnsafeBufferPointer<UInt8>) -> Double? {
        if let small = smallParts(text) {
            var value: Double?
            if small.significand <= 1 << 53, small.exponent >= -22, small.exponent <= 22 {
                // Clinger's fast path: significand and power of ten are exact doubles, so one correctly
                // rounded operation gives the correctly rounded result.
                value = Double(small.significand)
                if small.exponent < 0 {
                    value! /= powersOfTen[-small.exponent]
                } else {
                    value! *= powersOfTen[small.exponent]
                }
            } else if small.exponent >= -19, small.exponent <= 19 {
                value = scaled(small.significand, small.exponent)
            }
            if let value { return small.negative ? -value : value }
        }
        let parts = parts(text)
        // Clinger's fast path: both the significand and the power of ten are exact doubles, so one
        // correctly rounded multiplication or division gives the correctly rounded result.
        if !parts.inexact, parts.significand <= 1 << 53, parts.exponent >= -22, parts.exponent <= 22 {
            var value = Double(UInt64(parts.significand))
            if parts.exponent < 0 {
                value /= powersOfTen[-parts.exponent]
            } else {
                value *= powersOfTen[parts.exponent]
            }
            return parts.negative ? -value : value
        }
        guard let value = Double(String(decoding: text, as: UTF8.self)), value.isFinite else { return nil }
        return value
    }

    /// Exact integer powers of ten up to 10^19.
    static let integerPowersOfTen: [UInt64] = (0...19).map { exponent in
        var value: UInt64 = 1
        for _ in 0..<exponent { value *= 10 }
        return value
    }

    /// `significand × 10^exponent` correctly rounded, for 17–19 digit significands (typical printed
    /// doubles) that miss Clinger's path: exact 128-bit integer arithmetic, then round-half-even to 53
    /// bits. `nil` when 128 bits don't give enough precision.
    static func scaled(_ significand: UInt64, _ exponent: Int) -> Double? {
        let power = UInt128(integerPowersOfTen[abs(exponent)])
        let quotient: UInt128
        let sticky: Bool
        if exponent >= 0 {
            quotient = UInt128(significand) * power
            sticky = false
        } else {
            let (q, r) = (UInt128(significand) << 64).quotientAndRemainder(dividingBy: power)
            quotient = q
            sticky = r != 0
        }
        let bits = 128 - quotient.leadingZeroBitCount
        if bits <= 53 && !sticky && exponent >= 0 { return Double(quotient) }
        guard bits >= 54 else { return nil }
        let drop = bits - 53
        var top = UInt64(truncatingIfNeeded: quotient >> drop)
        let rest = quotient & ((1 << drop) - 1)
        let half = UInt128(1) << (drop - 1)
        if rest > half || (rest == half && (sticky || top & 1 == 1)) { top += 1 }
        let scale = exponent >= 0 ? drop : drop - 64
        return Double(top) * Double(sign: .plus, exponent: scale, significand: 1)
    }

    @usableFromInline
    static func decimal(_ text: UnsafeBufferPointer<UInt8>) -> Decimal? {
        if var small = smallParts(text), small.exponent >= -128, small.exponent <= 127 {
            if small.significand == 0 { return Decimal(0) }
            while small.significand % 10 == 0, small.exponent < 127 {
                small.significand /= 10
                small.exponent += 1
            }
            return Decimal(
                sign: small.negative ? .minus : .plus, exponent: small.exponent, significand: Decimal(small.significand)
            )
        }
        var parts = parts(text)
        if parts.inexact { return nil }
        // Canonical (compact) form: no trailing zeros in the significand.
        while parts.significand != 0, parts.significand % 10 == 0, parts.exponent < 127 {
            parts.significand /= 10
            parts.exponent += 1
        }
        // An exponent above Decimal's range can still fit if the significand has room for zeros.
        while parts.exponent > 127, parts.digits < 38 {
            parts.significand *= 10
            parts.digits += 1
            parts.exponent -= 1
        }
        guard parts.exponent >= -128, parts.exponent <= 127 else { return nil }
        if parts.significand == 0 { return Decimal(0) }
        return makeDecimal(negative: parts.negative, significand: parts.significand, exponent: parts.exponent)
    }

    static func makeDecimal(negative: Bool, significand: UInt128, exponent: Int) -> Decimal {
        // Foundation's mantissa fields are not public on every platform; this initializer is, and is exact.
        var magnitude: Decimal
        if let small = UInt64(exactly: significand) {
            magnitude = Decimal(small)
        } else {
            let twoTo64 = Decimal(UInt64.max) + 1
            magnitude =
                Decimal(UInt64(truncatingIfNeeded: significand >> 64)) * twoTo64
                + Decimal(UInt64(truncatingIfNeeded: significand))
        }
        return Decimal(sign: negative ? .minus : .plus, exponent: exponent, significand: magnitude)
    }
}
