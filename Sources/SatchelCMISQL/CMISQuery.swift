public import Foundation

/// A parsed CMIS QL statement.
///
/// ```swift
/// let query = try CMISQL.parse("SELECT d.cmis:name AS n FROM cmis:document d WHERE d.cmis:name = 'a'")
/// query.select     // [.column(ColumnReference(qualifier: "d", name: "cmis:name"), alias: "n")]
/// query.from.primary.queryName   // "cmis:document"
/// ```
public struct CMISQuery: Sendable, Hashable {
    /// `SELECT *`.
    public var selectAll: Bool
    /// The select list (empty with `SELECT *`).
    public var select: [SelectItem]
    /// The FROM clause: the queried type and its joins.
    public var from: FromClause
    /// The WHERE condition; nil when the statement has none (every row matches).
    public var whereClause: QueryExpression?
    /// The ORDER BY keys, in order (empty when the statement has none).
    public var orderBy: [OrderItem]

    /// A statement built in code; `whereClause` and `orderBy` default to none.
    public init(
        selectAll: Bool, select: [SelectItem], from: FromClause, whereClause: QueryExpression? = nil,
        orderBy: [OrderItem] = []
    ) {
        self.selectAll = selectAll
        self.select = select
        self.from = from
        self.whereClause = whereClause
        self.orderBy = orderBy
    }
}

/// One entry of the select list.
public enum SelectItem: Sendable, Hashable {
    /// A property, by query name, with an optional alias.
    case column(ColumnReference, alias: String?)
    /// `qualifier.*`: every property of one type of the FROM clause.
    case allColumns(qualifier: String)
    /// `SCORE()`, with an optional alias.
    case score(alias: String?)
}

/// A property reference: `[qualifier.]queryName`.
///
/// Two references are equal when qualifier and name are; ``offset`` (where it was written) is not compared.
public struct ColumnReference: Sendable, Hashable, CustomStringConvertible {
    /// The type query name or alias before the dot, if any.
    public var qualifier: String?
    /// The property query name.
    public var name: String
    /// Offset in the statement, in Unicode scalars (0 for references built in code).
    public var offset: Int

    /// A reference to `name`, qualified or not; `offset` defaults to 0 (built in code).
    public init(qualifier: String? = nil, name: String, offset: Int = 0) {
        self.qualifier = qualifier
        self.name = name
        self.offset = offset
    }

    /// Compares qualifier and name; the offsets are ignored.
    public static func == (lhs: ColumnReference, rhs: ColumnReference) -> Bool {
        lhs.qualifier == rhs.qualifier && lhs.name == rhs.name
    }

    /// Hashes qualifier and name (not the offset), consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(qualifier)
        hasher.combine(name)
    }

    /// `qualifier.name`, or `name` alone when unqualified.
    public var description: String { qualifier.map { "\($0).\(name)" } ?? name }
}

/// The FROM clause: one type, optionally joined to others.
public struct FromClause: Sendable, Hashable {
    /// The first type of the clause (the one without a join).
    public var primary: TableReference
    /// The joined types, in the order written.
    public var joins: [Join]

    /// A clause of one type and, optionally, joins (none by default).
    public init(primary: TableReference, joins: [Join] = []) {
        self.primary = primary
        self.joins = joins
    }

    /// Every type of the clause, the primary one first.
    public var tables: [TableReference] { [primary] + joins.map(\.table) }
}

/// A type in the FROM clause: its query name and optional alias (correlation name).
public struct TableReference: Sendable, Hashable {
    /// The type's query name, e.g. `cmis:document`.
    public var queryName: String
    /// The correlation name written after the type (`FROM cmis:document d`), if any.
    public var alias: String?

    /// A type reference, without alias by default.
    public init(queryName: String, alias: String? = nil) {
        self.queryName = queryName
        self.alias = alias
    }

    /// The name columns qualify it with: the alias if there is one, else the query name.
    public var qualifier: String { alias ?? queryName }
}

/// `[INNER | LEFT [OUTER]] JOIN type [AS alias] ON left = right`.
public struct Join: Sendable, Hashable {
    /// The kind of join.
    public enum Kind: String, Sendable, Hashable {
        /// `JOIN` or `INNER JOIN`.
        case inner
        /// `LEFT JOIN` or `LEFT OUTER JOIN`.
        case leftOuter
    }

    /// Inner or left outer.
    public var kind: Kind
    /// The joined type.
    public var table: TableReference
    /// The column left of `=` in the ON condition.
    public var left: ColumnReference
    /// The column right of `=` in the ON condition.
    public var right: ColumnReference

    /// A join of `table` on `left = right`.
    public init(kind: Kind, table: TableReference, left: ColumnReference, right: ColumnReference) {
        self.kind = kind
        self.table = table
        self.left = left
        self.right = right
    }
}

/// One key of ORDER BY.
public struct OrderItem: Sendable, Hashable {
    /// What a row is sorted by.
    public enum Key: Sendable, Hashable {
        /// A property's first value.
        case column(ColumnReference)
        /// `SCORE()` or the alias of a `SCORE()` select item.
        case score
    }

    /// The sort key.
    public var key: Key
    /// `ASC` (true, the default) or `DESC` (false).
    public var ascending: Bool

    /// A key, ascending unless told otherwise.
    public init(_ key: Key, ascending: Bool = true) {
        self.key = key
        self.ascending = ascending
    }
}

/// A literal value in a statement.
public enum QueryLiteral: Sendable, Hashable, CustomStringConvertible {
    /// `'text'`, quotes and escapes already removed.
    case string(String)
    /// A number that fits `Int64` (no fraction or exponent).
    case integer(Int64)
    /// Any other number: with a fraction or an exponent, or too large for `Int64`.
    case decimal(Decimal)
    /// `TRUE` or `FALSE`.
    case boolean(Bool)
    /// `TIMESTAMP '…'`, read as ISO 8601 (UTC when the text has no zone).
    case timestamp(Date)

    /// The literal as a statement would write it; a timestamp shows as `TIMESTAMP '<Date's description>'` and
    /// string quotes are not escaped, so it is for messages, not for building statements.
    public var description: String {
        switch self {
        case .string(let text): return "'\(text)'"
        case .integer(let value): return String(value)
        case .decimal(let value): return "\(value)"
        case .boolean(let value): return value ? "TRUE" : "FALSE"
        case .timestamp(let date): return "TIMESTAMP '\(date)'"
        }
    }

    /// What kind of literal this is, for error messages.
    var kindName: String {
        switch self {
        case .string: return "a string"
        case .integer: return "an integer"
        case .decimal: return "a decimal"
        case .boolean: return "a boolean"
        case .timestamp: return "a TIMESTAMP"
        }
    }
}

/// `=`, `<>`, `<`, `<=`, `>`, `>=`.
public enum ComparisonOperator: String, Sendable, Hashable, CaseIterable {
    /// `=`
    case equal = "="
    /// `<>`
    case notEqual = "<>"
    /// `<`
    case less = "<"
    /// `<=`
    case lessOrEqual = "<="
    /// `>`
    case greater = ">"
    /// `>=`
    case greaterOrEqual = ">="

    /// Whether `order` (of the left side against the right) satisfies the operator.
    func holds(_ order: ComparisonResult) -> Bool {
        switch self {
        case .equal: return order == .orderedSame
        case .notEqual: return order != .orderedSame
        case .less: return order == .orderedAscending
        case .lessOrEqual: return order != .orderedDescending
        case .greater: return order == .orderedDescending
        case .greaterOrEqual: return order != .orderedAscending
        }
    }
}

/// A WHERE condition.
public indirect enum QueryExpression: Sendable, Hashable {
    /// All operands hold (flattened: never directly contains another `and`).
    case and([QueryExpression])
    /// Some operand holds (flattened: never directly contains another `or`).
    case or([QueryExpression])
    /// `NOT condition`: holds when the operand is false (an unknown operand stays unknown).
    case not(QueryExpression)
    /// `column op literal` on a single-valued property.
    case comparison(ColumnReference, ComparisonOperator, QueryLiteral)
    /// `column [NOT] LIKE 'pattern'`.
    case like(ColumnReference, LikePattern, negated: Bool)
    /// `column [NOT] IN (literal, …)` on a single-valued property.
    case `in`(ColumnReference, [QueryLiteral], negated: Bool)
    /// `column IS [NOT] NULL` (single- or multi-valued).
    case isNull(ColumnReference, negated: Bool)
    /// `literal op ANY column` on a multi-valued property (CMIS defines only `=`).
    case anyComparison(QueryLiteral, ComparisonOperator, ColumnReference)
    /// `ANY column [NOT] IN (literal, …)` on a multi-valued property. `NOT IN` holds when no value is in the list.
    case anyIn(ColumnReference, [QueryLiteral], negated: Bool)
    /// `IN_FOLDER([qualifier,] 'folderId')`.
    case inFolder(qualifier: String?, folderId: String)
    /// `IN_TREE([qualifier,] 'folderId')`.
    case inTree(qualifier: String?, folderId: String)
    /// `CONTAINS([qualifier,] 'text search expression')`.
    case contains(qualifier: String?, TextSearchExpression)
}

/// A CONTAINS full-text expression: words and phrases, `-` negation, implicit AND and `OR`.
public indirect enum TextSearchExpression: Sendable, Hashable {
    /// A word (may contain punctuation: its alphanumeric parts must appear in this order).
    case term(String)
    /// A `"quoted phrase"`: its words must appear consecutively.
    case phrase(String)
    /// `-term` or `-"phrase"`: the operand must not appear.
    case not(TextSearchExpression)
    /// Terms separated by spaces (or `AND`): every operand must hold.
    case and([TextSearchExpression])
    /// Terms separated by `OR`: some operand must hold.
    case or([TextSearchExpression])
}
