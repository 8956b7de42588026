public import Foundation

/// A Swift value that can stand in a `$filter` as an OData literal, so that runtime values compare directly:
///
/// ```swift
/// let id = 42
/// let name = "O'Neil"
/// let filter: ODataExpression = .property("ProductID") == id && .property("Name") != name
/// ```
public protocol ODataLiteralConvertible: Sendable {
    /// The literal this value is written as.
    var odataLiteral: ODataLiteral { get }
}

extension Int: ODataLiteralConvertible {
    /// `.int` when the value fits in 32 bits, else `.int64`.
    public var odataLiteral: ODataLiteral { Int32(exactly: self) != nil ? .int(self) : .int64(Int64(self)) }
}
extension Int32: ODataLiteralConvertible {
    /// `.int`.
    public var odataLiteral: ODataLiteral { .int(Int(self)) }
}
extension Int64: ODataLiteralConvertible {
    /// `.int64` (`7L` in V2).
    public var odataLiteral: ODataLiteral { .int64(self) }
}
extension Double: ODataLiteralConvertible {
    /// `.double`.
    public var odataLiteral: ODataLiteral { .double(self) }
}
extension Float: ODataLiteralConvertible {
    /// `.single`.
    public var odataLiteral: ODataLiteral { .single(self) }
}
extension Decimal: ODataLiteralConvertible {
    /// `.decimal` (`1.5M` in V2).
    public var odataLiteral: ODataLiteral { .decimal(self) }
}
extension String: ODataLiteralConvertible {
    /// `.string`: quoted, with single quotes doubled.
    public var odataLiteral: ODataLiteral { .string(self) }
}
extension Bool: ODataLiteralConvertible {
    /// `.bool`.
    public var odataLiteral: ODataLiteral { .bool(self) }
}
extension UUID: ODataLiteralConvertible {
    /// `.guid`.
    public var odataLiteral: ODataLiteral { .guid(self) }
}
extension Date: ODataLiteralConvertible {
    /// `.dateTimeOffset`: a `Date` is an instant, an `Edm.DateTimeOffset` (write `ODataLiteral.dateTime(_:)` for
    /// V2's `Edm.DateTime`).
    public var odataLiteral: ODataLiteral { .dateTimeOffset(self) }
}
extension ODataLiteral: ODataLiteralConvertible {
    /// The literal itself.
    public var odataLiteral: ODataLiteral { self }
}

extension ODataExpression {
    /// A runtime value as a literal: `.value(id)`.
    public static func value(_ value: some ODataLiteralConvertible) -> ODataExpression { .literal(value.odataLiteral) }

    /// `lhs eq value`, the value written as its literal.
    public static func == (lhs: ODataExpression, rhs: some ODataLiteralConvertible) -> ODataExpression {
        .binary(.eq, lhs, .literal(rhs.odataLiteral))
    }
    /// `lhs ne value`, the value written as its literal.
    public static func != (lhs: ODataExpression, rhs: some ODataLiteralConvertible) -> ODataExpression {
        .binary(.ne, lhs, .literal(rhs.odataLiteral))
    }
    /// `lhs gt value`, the value written as its literal.
    public static func > (lhs: ODataExpression, rhs: some ODataLiteralConvertible) -> ODataExpression {
        .binary(.gt, lhs, .literal(rhs.odataLiteral))
    }
    /// `lhs ge value`, the value written as its literal.
    public static func >= (lhs: ODataExpression, rhs: some ODataLiteralConvertible) -> ODataExpression {
        .binary(.ge, lhs, .literal(rhs.odataLiteral))
    }
    /// `lhs lt value`, the value written as its literal.
    public static func < (lhs: ODataExpression, rhs: some ODataLiteralConvertible) -> ODataExpression {
        .binary(.lt, lhs, .literal(rhs.odataLiteral))
    }
    /// `lhs le value`, the value written as its literal.
    public static func <= (lhs: ODataExpression, rhs: some ODataLiteralConvertible) -> ODataExpression {
        .binary(.le, lhs, .literal(rhs.odataLiteral))
    }
}
