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
    public var odataLiteral: ODataLiteral { Int32(exactly: self) != nil ? .int(self) : .int64(Int64(self)) }
}
extension Int32: ODataLiteralConvertible { public var odataLiteral: ODataLiteral { .int(Int(self)) } }
extension Int64: ODataLiteralConvertible { public var odataLiteral: ODataLiteral { .int64(self) } }
extension Double: ODataLiteralConvertible { public var odataLiteral: ODataLiteral { .double(self) } }
extension Float: ODataLiteralConvertible { public var odataLiteral: ODataLiteral { .single(self) } }
extension Decimal: ODataLiteralConvertible { public var odataLiteral: ODataLiteral { .decimal(self) } }
extension String: ODataLiteralConvertible { public var odataLiteral: ODataLiteral { .string(self) } }
extension Bool: ODataLiteralConvertible { public var odataLiteral: ODataLiteral { .bool(self) } }
extension UUID: ODataLiteralConvertible { public var odataLiteral: ODataLiteral { .guid(self) } }
/// A `Date` is an instant: an `Edm.DateTimeOffset` (use ``ODataLiteral/dateTime(_:)`` for V2's `Edm.DateTime`).
extension Date: ODataLiteralConvertible { public var odataLiteral: ODataLiteral { .dateTimeOffset(self) } }
extension ODataLiteral: ODataLiteralConvertible { public var odataLiteral: ODataLiteral { self } }

extension ODataExpression {
    /// A runtime value as a literal: `.value(id)`.
    public static func value(_ value: some ODataLiteralConvertible) -> ODataExpression { .literal(value.odataLiteral) }

    public static func == (lhs: ODataExpression, rhs: some ODataLiteralConvertible) -> ODataExpression {
        .binary(.eq, lhs, .literal(rhs.odataLiteral))
    }
    public static func != (lhs: ODataExpression, rhs: some ODataLiteralConvertible) -> ODataExpression {
        .binary(.ne, lhs, .literal(rhs.odataLiteral))
    }
    public static func > (lhs: ODataExpression, rhs: some ODataLiteralConvertible) -> ODataExpression {
        .binary(.gt, lhs, .literal(rhs.odataLiteral))
    }
    public static func >= (lhs: ODataExpression, rhs: some ODataLiteralConvertible) -> ODataExpression {
        .binary(.ge, lhs, .literal(rhs.odataLiteral))
    }
    public static func < (lhs: ODataExpression, rhs: some ODataLiteralConvertible) -> ODataExpression {
        .binary(.lt, lhs, .literal(rhs.odataLiteral))
    }
    public static func <= (lhs: ODataExpression, rhs: some ODataLiteralConvertible) -> ODataExpression {
        .binary(.le, lhs, .literal(rhs.odataLiteral))
    }
}
