public import Foundation

/// A JSON number, kept as its exact source text so no precision is lost until you choose a type.
///
/// Ask for the type you need: ``int64()`` (exact; overflow or a fraction is an error), ``decimal()``
/// (exact decimal digits: `0.1` is Decimal 0.1) or ``double()`` (correctly rounded).
///
/// ```swift
/// let price = JSONNumber(text: "19.99")!
/// try price.decimal()   // Decimal 19.99, exactly
/// price.doubleValue     // 19.99 as the nearest Double
/// price.int64Value      // nil: not an integer
/// ```
///
/// Two numbers are equal when their text is equal (`1.0` and `1` differ); compare converted values
/// to compare numerically.
public struct JSONNumber: Sendable, Hashable, CustomStringConvertible, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral
{
    /// The number as written in the document (RFC 8259 grammar).
    public let text: String

    @usableFromInline
    init(uncheckedText text: String) { self.text = text }

    /// A number from its JSON text, or `nil` when `text` is not an RFC 8259 number.
    public init?(text: String) {
        var copy = text
        let valid = copy.withUTF8 { bytes -> Bool in
            var reader = JSONReader(bytes: UnsafeRawBufferPointer(bytes), origin: 0, depth: 0, limits: .default)
            guard let first = bytes.first, first == UInt8(ascii: "-") || first &- UInt8(ascii: "0") <= 9,
                (try? reader.scanNumber()) != nil
            else { return false }
            return reader.index == bytes.count
        }
        guard valid else { return nil }
        self.text = text
    }

    /// The number `value`.
    public init(_ value: Int64) { text = String(value) }
    /// The number `value`.
    public init(_ value: Int) { text = String(value) }
    /// The number `value`, or `nil` for NaN and infinities, which JSON cannot represent.
    public init?(_ value: Double) {
        guard value.isFinite else { return nil }
        text = value.description
    }
    /// The number `value`, or `nil` for NaN.
    public init?(_ value: Decimal) {
        guard !value.isNaN else { return nil }
        text = value.description
    }

    /// The number written as an integer literal.
    public init(integerLiteral value: Int64) { self.init(value) }
    /// The number written as a floating-point literal, in its shortest round-tripping form (`1.5`); a literal too
    /// large for a `Double` (infinity) traps.
    public init(floatLiteral value: Double) { self.init(value)! }

    /// The number's exact text (`text`).
    public var description: String { text }

    /// Whether the text has no fraction and no exponent.
    public var isInteger: Bool { !text.utf8.contains { $0 == UInt8(ascii: ".") || $0 | 0x20 == UInt8(ascii: "e") } }

    private func withBytes<T>(_ body: (UnsafeBufferPointer<UInt8>) -> T) -> T {
        var text = text
        return text.withUTF8(body)
    }

    private func rangeError(_ type: String) -> JSONError {
        JSONError(code: .numberOutOfRange, message: "number \(text) is not representable as \(type)")
    }

    /// The number as an `Int64`; throws ``JSONError/Code/numberOutOfRange`` unless it is an integer in range.
    public func int64() throws -> Int64 {
        guard let value = withBytes(NumberParsing.int64) else { throw rangeError("Int64") }
        return value
    }

    /// The number as a `Double`; throws ``JSONError/Code/numberOutOfRange`` when it is too large.
    public func double() throws -> Double {
        guard let value = withBytes(NumberParsing.double) else { throw rangeError("Double") }
        return value
    }

    /// The number as a `Decimal`, exactly; throws ``JSONError/Code/numberOutOfRange`` beyond 38 digits.
    public func decimal() throws -> Decimal {
        guard let value = withBytes(NumberParsing.decimal) else { throw rangeError("Decimal") }
        return value
    }

    /// The number as an `Int64`, or `nil` if it is not an integer in range.
    public var int64Value: Int64? { try? int64() }
    /// The number as an `Int`, or `nil` if it is not an integer in range.
    public var intValue: Int? { int64Value.flatMap { Int(exactly: $0) } }
    /// The number as a `Double`, or `nil` if it is too large.
    public var doubleValue: Double? { try? double() }
    /// The number as an exact `Decimal`, or `nil` if it cannot be represented exactly.
    public var decimalValue: Decimal? { try? decimal() }
}
