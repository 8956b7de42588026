import Foundation
import SatchelCMISCore

extension CMISQuery {
    /// Whether the row satisfies the WHERE clause (SQL three-valued logic: a comparison with a missing value is
    /// unknown, and an unknown condition does not match).
    ///
    /// Throws when the statement cannot apply to the row: an unknown property, a type mismatch
    /// (`cmis:name = 3`), an ordering comparison of booleans, or a multi-valued property used without ANY.
    public func matches(_ row: some QueryRow) throws(CMISQLError) -> Bool {
        guard let whereClause else { return true }
        var context = Evaluation(row: row)
        return try context.evaluate(whereClause) == true
    }

    /// ORDER BY: compares the keys in turn; a missing value sorts before any value (first ascending, last
    /// descending). Equal keys give `false`, so a stable sort keeps the incoming order.
    public func areInIncreasingOrder(_ lhs: some QueryRow, _ rhs: some QueryRow) -> Bool {
        for item in orderBy {
            let order: ComparisonResult
            switch item.key {
            case .score:
                let (left, right) = (score(lhs), score(rhs))
                order = left < right ? .orderedAscending : left > right ? .orderedDescending : .orderedSame
            case .column(let column):
                order = Self.sortOrder(lhs.values(for: column)?.first, rhs.values(for: column)?.first)
            }
            if order != .orderedSame { return (order == .orderedAscending) == item.ascending }
        }
        return false
    }

    /// The rows in ORDER BY order (input order among equals), computing each row's SCORE() once.
    ///
    /// ```swift
    /// let page = query.sorted(try candidates.filter { try query.matches($0) }).prefix(maxItems)
    /// ```
    public func sorted<Row: QueryRow>(_ rows: [Row]) -> [Row] {
        guard !orderBy.isEmpty else { return rows }
        let needsScore = orderBy.contains { $0.key == .score }
        let scores = needsScore ? rows.map { score($0) } : []
        let order = rows.indices.sorted { lhs, rhs in
            for item in orderBy {
                let result: ComparisonResult
                switch item.key {
                case .score: result = ordered(scores[lhs], scores[rhs])
                case .column(let column):
                    result = Self.sortOrder(rows[lhs].values(for: column)?.first, rows[rhs].values(for: column)?.first)
                }
                if result != .orderedSame { return (result == .orderedAscending) == item.ascending }
            }
            return lhs < rhs
        }
        return order.map { rows[$0] }
    }

    /// SCORE(): 1 without CONTAINS; otherwise the mean over the CONTAINS predicates (outside NOT) of the share of
    /// their positive words and phrases found in the row's text, 0 for one that does not match.
    public func score(_ row: some QueryRow) -> Double {
        guard let whereClause else { return 1 }
        var searches: [(String?, TextSearchExpression)] = []
        Self.collectSearches(whereClause, into: &searches)
        guard !searches.isEmpty else { return 1 }
        var context = Evaluation(row: row)
        var total = 0.0
        for (qualifier, search) in searches {
            guard let text = context.text(qualifier), text.matches(search) else { continue }
            let positives = Self.positiveTerms(search)
            if positives.isEmpty {
                total += 1
            } else {
                total += Double(positives.filter { text.contains($0) }.count) / Double(positives.count)
            }
        }
        return total / Double(searches.count)
    }

    /// Every property the statement names (select list, joins, WHERE, ORDER BY), for validation against types.
    public var referencedColumns: [ColumnReference] {
        var columns: [ColumnReference] = []
        for item in select {
            if case .column(let column, _) = item { columns.append(column) }
        }
        for join in from.joins { columns += [join.left, join.right] }
        if let whereClause { Self.collectColumns(whereClause, into: &columns) }
        for item in orderBy {
            if case .column(let column) = item.key { columns.append(column) }
        }
        return columns
    }

    // MARK: Helpers

    private static func collectColumns(_ expression: QueryExpression, into columns: inout [ColumnReference]) {
        switch expression {
        case .and(let operands), .or(let operands): for operand in operands { collectColumns(operand, into: &columns) }
        case .not(let operand): collectColumns(operand, into: &columns)
        case .comparison(let column, _, _), .like(let column, _, _), .in(let column, _, _), .isNull(let column, _),
            .anyComparison(_, _, let column), .anyIn(let column, _, _):
            columns.append(column)
        case .inFolder, .inTree, .contains: break
        }
    }

    private static func collectSearches(
        _ expression: QueryExpression, into searches: inout [(String?, TextSearchExpression)]
    ) {
        switch expression {
        case .and(let operands), .or(let operands):
            for operand in operands { collectSearches(operand, into: &searches) }
        case .contains(let qualifier, let search): searches.append((qualifier, search))
        default: break
        }
    }

    private static func positiveTerms(_ search: TextSearchExpression) -> [TextSearchExpression] {
        switch search {
        case .term, .phrase: return [search]
        case .not: return []
        case .and(let operands), .or(let operands): return operands.flatMap(positiveTerms)
        }
    }

    /// Ordering for ORDER BY: nil first, numbers numerically, dates, strings, booleans (false first); values of
    /// different kinds by kind.
    static func sortOrder(_ lhs: PropertyValue?, _ rhs: PropertyValue?) -> ComparisonResult {
        switch (lhs, rhs) {
        case (nil, nil): return .orderedSame
        case (nil, _): return .orderedAscending
        case (_, nil): return .orderedDescending
        case (let left?, let right?):
            if let a = left.decimalValue, let b = right.decimalValue { return ordered(a, b) }
            if let a = left.dateValue, let b = right.dateValue { return ordered(a, b) }
            if let a = left.stringValue, let b = right.stringValue { return ordered(a, b) }
            if let a = left.boolValue, let b = right.boolValue { return ordered(a ? 1 : 0, b ? 1 : 0) }
            return ordered(kindRank(left), kindRank(right))
        }
    }

    private static func kindRank(_ value: PropertyValue) -> Int {
        switch value {
        case .boolean: return 0
        case .integer, .decimal: return 1
        case .datetime: return 2
        case .string, .id, .uri, .html: return 3
        }
    }
}

func ordered<T: Comparable>(_ lhs: T, _ rhs: T) -> ComparisonResult {
    lhs < rhs ? .orderedAscending : lhs > rhs ? .orderedDescending : .orderedSame
}

/// One row's evaluation; caches the row's tokenised full text per qualifier.
struct Evaluation<Row: QueryRow> {
    let row: Row
    private var texts: [String?: SearchableText?] = [:]

    init(row: Row) { self.row = row }

    mutating func text(_ qualifier: String?) -> SearchableText? {
        if let cached = texts[qualifier] { return cached }
        let text = row.fullText(qualifier: qualifier).map(SearchableText.init)
        texts[qualifier] = .some(text)
        return text
    }

    /// true, false, or nil for unknown.
    mutating func evaluate(_ expression: QueryExpression) throws(CMISQLError) -> Bool? {
        switch expression {
        case .and(let operands):
            var result: Bool? = true
            for operand in operands {
                switch try evaluate(operand) {
                case false?: return false
                case nil: result = nil
                case true?: break
                }
            }
            return result
        case .or(let operands):
            var result: Bool? = false
            for operand in operands {
                switch try evaluate(operand) {
                case true?: return true
                case nil: result = nil
                case false?: break
                }
            }
            return result
        case .not(let operand):
            return try evaluate(operand).map { !$0 }
        case .comparison(let column, let op, let literal):
            guard let value = try singleValue(column) else { return nil }
            return op.holds(try Self.compare(value, literal, column: column, op: op))
        case .like(let column, let pattern, let negated):
            guard let value = try singleValue(column) else { return nil }
            guard let text = value.stringValue else {
                throw CMISQLError(
                    "LIKE needs a string, id, uri or html property; \(column) is \(value.type.rawValue)",
                    offset: column.offset)
            }
            return pattern.matches(text) != negated
        case .in(let column, let literals, let negated):
            guard let value = try singleValue(column) else { return nil }
            return try Self.isIn(value, literals, column: column) != negated
        case .isNull(let column, let negated):
            return try values(column).isEmpty != negated
        case .anyComparison(let literal, let op, let column):
            for value in try multipleValues(column)
            where op.holds(Self.reversed(try Self.compare(value, literal, column: column, op: op))) {
                return true
            }
            return false
        case .anyIn(let column, let literals, let negated):
            for value in try multipleValues(column) where try Self.isIn(value, literals, column: column) {
                return !negated
            }
            return negated
        case .inFolder(let qualifier, let folderId):
            return row.isInFolder(folderId, qualifier: qualifier)
        case .inTree(let qualifier, let folderId):
            return row.isInTree(folderId, qualifier: qualifier)
        case .contains(let qualifier, let search):
            return text(qualifier)?.matches(search) ?? false
        }
    }

    private func values(_ column: ColumnReference) throws(CMISQLError) -> [PropertyValue] {
        guard let values = row.values(for: column) else {
            throw CMISQLError("unknown property \(column)", offset: column.offset)
        }
        return values
    }

    private func singleValue(_ column: ColumnReference) throws(CMISQLError) -> PropertyValue? {
        let values = try values(column)
        if row.cardinality(for: column) == .multi || values.count > 1 {
            throw CMISQLError(
                "\(column) is multi-valued: use 'value' = ANY \(column), ANY \(column) IN (…) or IS [NOT] NULL",
                offset: column.offset)
        }
        return values.first
    }

    private func multipleValues(_ column: ColumnReference) throws(CMISQLError) -> [PropertyValue] {
        if row.cardinality(for: column) == .single {
            throw CMISQLError("ANY needs a multi-valued property; \(column) is single-valued", offset: column.offset)
        }
        return try values(column)
    }

    private static func isIn(
        _ value: PropertyValue, _ literals: [QueryLiteral], column: ColumnReference
    ) throws(CMISQLError) -> Bool {
        for literal in literals where try compare(value, literal, column: column, op: .equal) == .orderedSame {
            return true
        }
        return false
    }

    private static func reversed(_ order: ComparisonResult) -> ComparisonResult {
        switch order {
        case .orderedAscending: return .orderedDescending
        case .orderedDescending: return .orderedAscending
        case .orderedSame: return .orderedSame
        }
    }

    /// The property value against the literal; throws when their kinds cannot be compared with `op`.
    static func compare(
        _ value: PropertyValue, _ literal: QueryLiteral, column: ColumnReference, op: ComparisonOperator
    ) throws(CMISQLError) -> ComparisonResult {
        switch (value, literal) {
        case (.integer(let a), .integer(let b)):
            return ordered(a, b)
        case (.integer, .decimal(let b)), (.decimal, .decimal(let b)):
            return ordered(value.decimalValue ?? 0, b)
        case (.decimal(let a), .integer(let b)):
            return ordered(a, Decimal(b))
        case (.datetime(let a), .timestamp(let b)):
            return ordered(milliseconds(a), milliseconds(b))
        case (.string(let a), .string(let b)), (.id(let a), .string(let b)), (.uri(let a), .string(let b)),
            (.html(let a), .string(let b)):
            return ordered(a, b)
        case (.boolean(let a), .boolean(let b)):
            guard op == .equal || op == .notEqual else {
                throw CMISQLError(
                    "booleans can only be compared with = and <>, not \(op.rawValue) (\(column))",
                    offset: column.offset)
            }
            return a == b ? .orderedSame : .orderedAscending
        default:
            let hint = value.type == .datetime ? " (write TIMESTAMP 'YYYY-MM-DDThh:mm:ss.sssZ')" : ""
            throw CMISQLError(
                "cannot compare the \(value.type.rawValue) property \(column) with \(literal.kindName) literal\(hint)",
                offset: column.offset)
        }
    }

    /// CMIS datetimes have millisecond precision.
    private static func milliseconds(_ date: Date) -> Double { (date.timeIntervalSince1970 * 1000).rounded() }
}

/// A row's full text, folded (case and diacritics) and split into words of letters and digits.
struct SearchableText {
    private var positions: [Substring: [Int]] = [:]
    private var words: [Substring] = []

    init(_ text: String) {
        words = Self.words(text)
        for (index, word) in words.enumerated() { positions[word, default: []].append(index) }
    }

    static func words(_ text: String) -> [Substring] {
        let folded = text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
        return folded.split { !($0.isLetter || $0.isNumber) }
    }

    /// Whether the words of `phrase` appear consecutively.
    func contains(_ phrase: TextSearchExpression) -> Bool {
        let wanted: [Substring]
        switch phrase {
        case .term(let text), .phrase(let text): wanted = Self.words(text)
        default: return matches(phrase)
        }
        guard let first = wanted.first, let starts = positions[first] else { return false }
        return starts.contains { start in
            start + wanted.count <= words.count && wanted.indices.allSatisfy { words[start + $0] == wanted[$0] }
        }
    }

    func matches(_ search: TextSearchExpression) -> Bool {
        switch search {
        case .term, .phrase: return contains(search)
        case .not(let operand): return !matches(operand)
        case .and(let operands): return operands.allSatisfy(matches)
        case .or(let operands): return operands.contains(where: matches)
        }
    }
}
