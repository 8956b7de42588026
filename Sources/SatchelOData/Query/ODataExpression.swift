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
    /// A typed value, written per version.
    case literal(ODataLiteral)
    /// A binary operation: operator, left operand, right operand.
    case binary(ODataOperator, ODataExpression, ODataExpression)
    /// Logical negation (`not Flag`).
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
    /// Equal (`==`).
    case eq
    /// Not equal (`!=`).
    case ne
    /// Greater than (`>`).
    case gt
    /// Greater than or equal (`>=`).
    case ge
    /// Less than (`<`).
    case lt
    /// Less than or equal (`<=`).
    case le
    /// Logical and (`&&`).
    case and
    /// Logical or (`||`).
    case or
    /// Addition (`+`).
    case add
    /// Subtraction (`-`).
    case sub
    /// Multiplication (`*`).
    case mul
    /// Division (`/`).
    case div
    /// Remainder (`%`).
    case mod
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
    /// True when the predicate holds for at least one element (or, without a predicate, when there is one).
    case any
    /// True when the predicate holds for every element.
    case all
}

extension ODataExpression: ExpressibleByStringLiteral, ExpressibleByIntegerLiteral, ExpressibleByBooleanLiteral,
    ExpressibleByFloatLiteral
{
    /// A string literal is a string *value*; use `.property("Name")` for properties.
    public init(stringLiteral value: String) { self = .literal(.string(value)) }
    /// An integer literal is an integer value (`.literal(.int(value))`).
    public init(integerLiteral value: Int) { self = .literal(.int(value)) }
    /// A boolean literal is a boolean value.
    public init(booleanLiteral value: Bool) { self = .literal(.bool(value)) }
    /// A floating-point literal is a double value (`.literal(.double(value))`).
    public init(floatLiteral value: Double) { self = .literal(.double(value)) }
}

// MARK: Operators

extension ODataExpression {
    /// `lhs eq rhs`.
    public static func == (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.eq, lhs, rhs) }
    /// `lhs ne rhs`.
    public static func != (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.ne, lhs, rhs) }
    /// `lhs gt rhs`.
    public static func > (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.gt, lhs, rhs) }
    /// `lhs ge rhs`.
    public static func >= (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.ge, lhs, rhs) }
    /// `lhs lt rhs`.
    public static func < (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.lt, lhs, rhs) }
    /// `lhs le rhs`.
    public static func <= (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.le, lhs, rhs) }
    /// `lhs and rhs`.
    public static func && (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.and, lhs, rhs) }
    /// `lhs or rhs`.
    public static func || (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.or, lhs, rhs) }
    /// `not operand`.
    public static prefix func ! (operand: ODataExpression) -> ODataExpression { .not(operand) }
    /// `lhs add rhs`.
    public static func + (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.add, lhs, rhs) }
    /// `lhs sub rhs`.
    public static func - (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.sub, lhs, rhs) }
    /// `lhs mul rhs`.
    public static func * (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.mul, lhs, rhs) }
    /// `lhs div rhs`.
    public static func / (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.div, lhs, rhs) }
    /// `lhs mod rhs`.
    public static func % (lhs: ODataExpression, rhs: ODataExpression) -> ODataExpression { .binary(.mod, lhs, rhs) }
    /// Arithmetic negation: `-operand`.
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
    /// `startswith(text,prefix)`: whether `text` starts with `prefix`.
    public static func startsWith(_ text: ODataExpression, _ prefix: ODataExpression) -> ODataExpression {
        .call("startswith", [text, prefix])
    }
    /// `endswith(text,suffix)`: whether `text` ends with `suffix`.
    public static func endsWith(_ text: ODataExpression, _ suffix: ODataExpression) -> ODataExpression {
        .call("endswith", [text, suffix])
    }
    /// V2's own name for `contains`, arguments in V2 order (part first).
    public static func substringOf(_ part: ODataExpression, _ text: ODataExpression) -> ODataExpression {
        .call("contains", [text, part])
    }
    /// `length(text)`: the number of characters.
    public static func length(_ text: ODataExpression) -> ODataExpression { .call("length", [text]) }
    /// `indexof(text,part)`: the zero-based position of `part` in `text`, -1 when absent.
    public static func indexOf(_ text: ODataExpression, _ part: ODataExpression) -> ODataExpression {
        .call("indexof", [text, part])
    }
    /// `substring(text,start)` or `substring(text,start,length)`: part of `text` from the zero-based `start`.
    public static func substring(
        _ text: ODataExpression, _ start: ODataExpression, _ length: ODataExpression? = nil
    )
        -> ODataExpression
    {
        .call("substring", [text, start] + (length.map { [$0] } ?? []))
    }
    /// `tolower(text)`.
    public static func toLower(_ text: ODataExpression) -> ODataExpression { .call("tolower", [text]) }
    /// `toupper(text)`.
    public static func toUpper(_ text: ODataExpression) -> ODataExpression { .call("toupper", [text]) }
    /// `trim(text)`: without leading and trailing whitespace.
    public static func trim(_ text: ODataExpression) -> ODataExpression { .call("trim", [text]) }
    /// `concat(lhs,rhs)`: the two strings joined.
    public static func concat(_ lhs: ODataExpression, _ rhs: ODataExpression) -> ODataExpression {
        .call("concat", [lhs, rhs])
    }
    /// `year(date)`.
    public static func year(_ date: ODataExpression) -> ODataExpression { .call("year", [date]) }
    /// `month(date)`.
    public static func month(_ date: ODataExpression) -> ODataExpression { .call("month", [date]) }
    /// `day(date)`.
    public static func day(_ date: ODataExpression) -> ODataExpression { .call("day", [date]) }
    /// `hour(date)`.
    public static func hour(_ date: ODataExpression) -> ODataExpression { .call("hour", [date]) }
    /// `minute(date)`.
    public static func minute(_ date: ODataExpression) -> ODataExpression { .call("minute", [date]) }
    /// `second(date)`.
    public static func second(_ date: ODataExpression) -> ODataExpression { .call("second", [date]) }
    /// V4 `date(…)`: the date part of a DateTimeOffset.
    public static func date(_ value: ODataExpression) -> ODataExpression { .call("date", [value]) }
    /// V4 `time(…)`: the time part of a DateTimeOffset.
    public static func time(_ value: ODataExpression) -> ODataExpression { .call("time", [value]) }
    /// V4 `now()`.
    public static var now: ODataExpression { .call("now", []) }
    /// `round(value)`: to the nearest integer.
    public static func round(_ value: ODataExpression) -> ODataExpression { .call("round", [value]) }
    /// `floor(value)`.
    public static func floor(_ value: ODataExpression) -> ODataExpression { .call("floor", [value]) }
    /// `ceiling(value)`.
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
