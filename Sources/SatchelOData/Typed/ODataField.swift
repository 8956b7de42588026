import Foundation

/// A property of a generated proxy type, for building `$filter` expressions the compiler checks: the value
/// compared with is of the property's Swift type, and becomes the literal of its EDM type.
///
/// ```swift
/// let query = ODataQuery().filter(Product.Fields.price > 10 && Product.Fields.category == "Notebooks")
/// // $filter=Price gt 10M and Category eq 'Notebooks'   (V2)
/// ```
public struct ODataField<Value>: Sendable {
    /// The property path as sent (`Price`, `Address/City`).
    public let name: String
    private let literal: @Sendable (Value) -> ODataLiteral

    /// A field whose values become literals through `literal` (`ODataLiteral.decimal`, …).
    public init(_ name: String, literal: @escaping @Sendable (Value) -> ODataLiteral) {
        self.name = name
        self.literal = literal
    }

    /// The property as an expression, for the functions of ``ODataExpression``.
    public var expression: ODataExpression { .property(name) }

    /// The literal a value of this field is written as.
    public func literal(_ value: Value) -> ODataLiteral { literal(value) }

    /// `Name eq null`.
    public var isNull: ODataExpression { .binary(.eq, .property(name), .literal(.null)) }
    /// `Name ne null`.
    public var isNotNull: ODataExpression { .binary(.ne, .property(name), .literal(.null)) }

    /// `Name in (…)` (V4; `or`ed `eq`s in V2).
    public func isIn(_ values: [Value]) -> ODataExpression { .isIn(.property(name), values.map(literal)) }

    /// This field ascending or descending, for ``ODataQuery/orderBy(_:descending:)``.
    public func ordering(descending: Bool = false) -> String { descending ? name + " desc" : name }

    /// `Name eq value`, the value written as the field's literal.
    public static func == (lhs: ODataField, rhs: Value) -> ODataExpression { lhs.compare(.eq, rhs) }
    /// `Name ne value`.
    public static func != (lhs: ODataField, rhs: Value) -> ODataExpression { lhs.compare(.ne, rhs) }
    /// `Name gt value`.
    public static func > (lhs: ODataField, rhs: Value) -> ODataExpression { lhs.compare(.gt, rhs) }
    /// `Name ge value`.
    public static func >= (lhs: ODataField, rhs: Value) -> ODataExpression { lhs.compare(.ge, rhs) }
    /// `Name lt value`.
    public static func < (lhs: ODataField, rhs: Value) -> ODataExpression { lhs.compare(.lt, rhs) }
    /// `Name le value`.
    public static func <= (lhs: ODataField, rhs: Value) -> ODataExpression { lhs.compare(.le, rhs) }

    private func compare(_ op: ODataOperator, _ value: Value) -> ODataExpression {
        .binary(op, .property(name), .literal(literal(value)))
    }
}

extension ODataField where Value == String {
    /// `contains(Name,'part')` (`substringof` in V2).
    public func contains(_ part: String) -> ODataExpression { .contains(.property(name), .literal(.string(part))) }
    /// `startswith(Name,'prefix')`.
    public func startsWith(_ prefix: String) -> ODataExpression {
        .startsWith(.property(name), .literal(.string(prefix)))
    }
    /// `endswith(Name,'suffix')`.
    public func endsWith(_ suffix: String) -> ODataExpression { .endsWith(.property(name), .literal(.string(suffix))) }
}
