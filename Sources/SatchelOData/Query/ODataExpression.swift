/// A `$filter` (or `$orderby`, `$compute`) expression, built from typed pieces and rendered per version.
///
/// Operators build the tree; literals on either side become ``ODataLiteral``s:
///
/// ```swift
/// let filter: ODataExpression =
///     .property("LastName") == "O'Neil" && .property("Gpa") >= .literal(.decimal(3.5))
///     || .contains(.property("City"), "Oxford")
/// try filter.text(for: .v2)
/// // LastName eq 'O''Neil' and Gpa ge 3.5M or substringof('Oxford',City)
/// ```
///
/// `ODataExpression` is deliberately not `Equatable`: `==` builds an `eq` comparison.
public indirect enum ODataExpression: Sendable {
    /// A property path (`Address/City`), a lambda variable path (`t/Name`), or `$it`.
    case property(String)
    case literal(ODataLiteral)
    case binary(ODataOperator, ODataExpression, ODataExpression)
    case not(ODataExpression)
    /// Arithmetic negation (`-Price`).
    case negate(ODataExpression)
    /// A canonical function call: `name(arguments…)`.
    case call(String, [ODataExpression])
    /// V4 `any`/`all` over a collection path.
    case lambda(ODataLambda, collection: String, variable: String, predicate: ODataExpression?)
    /// V4 `in`: `Name in ('a','b')`.
    case isIn(ODataExpression, [ODataLiteral])
    /// Text written as is (already in OData syntax for the version).
    case raw(String)
}

/// A binary operator of the OData expression language.
public enum ODataOperator: String, Sendable, Hashable {
    case eq, ne, gt, ge, lt, le, and, or, add, sub, mul, div, mod
    /// V4 enum flags test.
    case has

    var precedence: Int {
        switch self {
        case .or: 1
        case .and: 2
        case .eq, .ne: 3
        case .gt, .ge, .lt, .le, .has: 4
        case .add, .sub: 5
        case .mul, .div, .mod: 6
        }
    }
}

/// The two lambda operators of V4.
public enum ODataLambda: String, Sendable, Hashable {
    case any, all
}

extension ODataExpression: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral
{
    /// A string literal is a string *value*; use `.property("Name")` for properties.
    public init(stringLiteral value: String) { self = .literal(.string(value)) }
    public init(integerLiteral value: Int) { self = .literal(.int(value)) }
    public init(booleanLiteral value: Bool) { self = .literal(.bool(value)) }
    public init(floatLiteral value: Double) { self = .literal(.double(value)) }
}

// MARK: Operators

extension ODataExpression {
    public static func == (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.eq, lhs, rhs) }
    public static func != (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.ne, lhs, rhs) }
    public static func > (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.gt, lhs, rhs) }
    public static func >= (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.ge, lhs, rhs) }
    public static func < (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.lt, lhs, rhs) }
    public static func <= (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.le, lhs, rhs) }
    public static func && (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.and, lhs, rhs) }
    public static func || (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.or, lhs, rhs) }
    public static prefix func ! (operand: ODataExpression) -> ODataExpression { .not(operand) }
    public static func + (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.add, lhs, rhs) }
    public static func - (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.sub, lhs, rhs) }
    public static func * (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.mul, lhs, rhs) }
    public static func / (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.div, lhs, rhs) }
    public static func % (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.mod, lhs, rhs) }
    public static prefix func - (operand: ODataExpression) -> ODataExpression { .negate(operand) }

    /// `lhs has Ns.Flags'Member'` (V4).
    public func has(_ flag: ODataLiteral) -> ODataExpression { .binary(.has, self, .literal(flag)) }
    /// `self in (values…)` (V4; written as `or`ed `eq`s for V2).
    public func isIn(_ values: [ODataLiteral]) -> ODataExpression { .isIn(self, values) }
}

// MARK: Functions

extension ODataExpression {
    /// Whether `text` contains `part`: V4 `contains(text,part)`, V2 `substringof(part,text)`.
    public static func contains(_ text: ODataExpression, _ part: ODataExpression) -> ODataExpression {
        .call("contains", [text, part])
    }
    public static func startsWith(_ text: ODataExpression, _ prefix: ODataExpression) -> ODataExpression {
        .call("startswith", [text, prefix])
    }
    public static func endsWith(_ text: ODataExpression, _ suffix: ODataExpression) -> ODataExpression {
        .call("endswith", [text, suffix])
    }
    /// V2's own name for `contains`, arguments in V2 order (part first).
    public static func substringOf(_ part: ODataExpression, _ text: ODataExpression) -> ODataExpression {
        .call("contains", [text, part])
    }
    public static func length(_ text: ODataExpression) -> ODataExpression { .call("length", [text]) }
    public static func indexOf(_ text: ODataExpression, _ part: ODataExpression) -> ODataExpression {
        .call("indexof", [text, part])
    }
    public static func substring(
        _ text: ODataExpression, _ start: ODataExpression, _ length: ODataExpression? = nil
    )
        -> ODataExpression
    {
        .call("substring", [text, start] + (length.map { [$0] } ?? []))
    }
    public static func toLower(_ text: ODataExpression) -> ODataExpression { .call("tolower", [text]) }
    public static func toUpper(_ text: ODataExpression) -> ODataExpression { .call("toupper", [text]) }
    public static func trim(_ text: ODataExpression) -> ODataExpression { .call("trim", [text]) }
    public static func concat(_ lhs: ODataExpression, _ rhs: ODataExpression) -> ODataExpression {
        .call("concat", [lhs, rhs])
    }
    public static func year(_ date: ODataExpression) -> ODataExpression { .call("year", [date]) }
    public static func month(_ date: ODataExpression) -> ODataExpression { .call("month", [date]) }
    public static func day(_ date: ODataExpression) -> ODataExpression { .call("day", [date]) }
    public static func hour(_ date: ODataExpression) -> ODataExpression { .call("hour", [date]) }
    public static func minute(_ date: ODataExpression) -> ODataExpression { .call("minute", [date]) }
    public static func second(_ date: ODataExpression) -> ODataExpression { .call("second", [date]) }
    /// V4 `date(…)`: the date part of a DateTimeOffset.
    public static func date(_ value: ODataExpression) -> ODataExpression { .call("date", [value]) }
    /// V4 `time(…)`: the time part of a DateTimeOffset.
    public static func time(_ value: ODataExpression) -> ODataExpression { .call("time", [value]) }
    /// V4 `now()`.
    public static var now: ODataExpression { .call("now", []) }
    public static func round(_ value: ODataExpression) -> ODataExpression { .call("round", [value]) }
    public static func floor(_ value: ODataExpression) -> ODataExpression { .call("floor", [value]) }
    public static func ceiling(_ value: ODataExpression) -> ODataExpression { .call("ceiling", [value]) }

    /// V4 `collection/any(variable:predicate)`; without a predicate, `collection/any()` (non-empty).
    public static func any(
        _ collection: String, _ variable: String = "x", _ predicate: ODataExpression? = nil
    )
        -> ODataExpression
    {
        .lambda(.any, collection: collection, variable: variable, predicate: predicate)
    }
    /// V4 `collection/all(variable:predicate)`.
    public static func all(
        _ collection: String, _ variable: String = "x", _ predicate: ODataExpression
    )
        -> ODataExpression
    {
        .lambda(.all, collection: collection, variable: variable, predicate: predicate)
    }
}
