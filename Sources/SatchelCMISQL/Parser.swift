import Foundation

/// A recursive-descent parser over the token list; recursion is bounded by ``CMISQL/maximumNestingDepth``.
struct Parser {
    private let tokens: [Token]
    private var position = 0
    private var depth = 0
    /// Aliases of the select list, for ORDER BY.
    private var selectAliases: [String: OrderItem.Key] = [:]

    init(_ statement: String) throws(CMISQLError) {
        tokens = try Lexer.tokenize(Array(statement.unicodeScalars))
    }

    // MARK: Statement

    mutating func parseStatement() throws(CMISQLError) -> CMISQuery {
        try expect(.select, "SELECT at the start of the statement")
        var selectAll = false
        var select: [SelectItem] = []
        if acceptSymbol("*") {
            selectAll = true
        } else {
            repeat { select.append(try parseSelectItem()) } while acceptSymbol(",")
        }
        try expect(.from, "FROM after the select list")
        let from = try parseFrom()
        var whereClause: QueryExpression?
        if accept(.where) { whereClause = try parseOr() }
        var orderBy: [OrderItem] = []
        if accept(.order) {
            try expect(.by, "BY after ORDER")
            repeat { orderBy.append(try parseOrderItem()) } while acceptSymbol(",")
        }
        guard current.kind == .end else {
            let expected =
                orderBy.isEmpty ? (whereClause == nil ? "WHERE, ORDER BY or" : "AND, OR, ORDER BY or") : "',' or"
            throw CMISQLError(
                "expected \(expected) the end of the statement, found \(current.display)", offset: current.offset)
        }
        return CMISQuery(selectAll: selectAll, select: select, from: from, whereClause: whereClause, orderBy: orderBy)
    }

    private mutating func parseSelectItem() throws(CMISQLError) -> SelectItem {
        if accept(.score) {
            try expectSymbol("(", "'(' after SCORE")
            try expectSymbol(")", "')' after SCORE(")
            let alias = try parseAlias()
            if let alias { selectAliases[alias] = .score }
            return .score(alias: alias)
        }
        if case .word = current.kind, current.keyword == nil, peek(1).kind == .symbol("."),
            peek(2).kind == .symbol("*")
        {
            let qualifier = try identifier("a type name")
            position += 2
            return .allColumns(qualifier: qualifier)
        }
        let column = try parseColumn("a property query name, SCORE() or '*' in the select list")
        let alias = try parseAlias()
        if let alias { selectAliases[alias] = .column(column) }
        return .column(column, alias: alias)
    }

    /// `[AS] alias`, or nothing.
    private mutating func parseAlias() throws(CMISQLError) -> String? {
        if accept(.as) { return try identifier("an alias after AS") }
        if case .word = current.kind, current.keyword == nil { return try identifier("an alias") }
        return nil
    }

    private mutating func parseOrderItem() throws(CMISQLError) -> OrderItem {
        var key: OrderItem.Key
        if accept(.score) {
            try expectSymbol("(", "'(' after SCORE")
            try expectSymbol(")", "')' after SCORE(")
            key = .score
        } else {
            let column = try parseColumn("a property query name or SCORE() after ORDER BY")
            key = .column(column)
            if column.qualifier == nil, let aliased = selectAliases[column.name] {
                key = aliased
            }
        }
        if accept(.desc) { return OrderItem(key, ascending: false) }
        _ = accept(.asc)
        return OrderItem(key, ascending: true)
    }

    // MARK: FROM

    private mutating func parseFrom() throws(CMISQLError) -> FromClause {
        var clause: FromClause
        if current.kind == .symbol("(") {
            let open = current.offset
            try enter(at: open)
            position += 1
            clause = try parseFrom()
            guard !clause.joins.isEmpty else {
                throw CMISQLError("expected a JOIN inside the parentheses of the FROM clause", offset: open)
            }
            try expectSymbol(")", "')' closing the joined types")
            depth -= 1
        } else {
            clause = FromClause(primary: try parseTable("a type query name after FROM"))
        }
        while true {
            let kind: Join.Kind
            if accept(.join) {
                kind = .inner
            } else if accept(.inner) {
                try expect(.join, "JOIN after INNER")
                kind = .inner
            } else if accept(.left) {
                _ = accept(.outer)
                try expect(.join, "JOIN after LEFT [OUTER]")
                kind = .leftOuter
            } else {
                return clause
            }
            let table = try parseTable("a type query name after JOIN")
            try expect(.on, "ON after the joined type")
            let left = try parseColumn("a property query name after ON")
            try expectSymbol("=", "'=' between the join columns (CMIS joins are equality joins)")
            let right = try parseColumn("a property query name after '='")
            clause.joins.append(Join(kind: kind, table: table, left: left, right: right))
        }
    }

    private mutating func parseTable(_ what: String) throws(CMISQLError) -> TableReference {
        let name = try identifier(what)
        if accept(.as) { return TableReference(queryName: name, alias: try identifier("an alias after AS")) }
        if case .word = current.kind, current.keyword == nil {
            return TableReference(queryName: name, alias: try identifier("an alias"))
        }
        return TableReference(queryName: name)
    }

    // MARK: WHERE

    private mutating func parseOr() throws(CMISQLError) -> QueryExpression {
        var operands = [try parseAnd()]
        while accept(.or) { operands.append(try parseAnd()) }
        if operands.count == 1 { return operands[0] }
        return .or(operands.flatMap { if case .or(let inner) = $0 { inner } else { [$0] } })
    }

    private mutating func parseAnd() throws(CMISQLError) -> QueryExpression {
        var operands = [try parseNot()]
        while accept(.and) { operands.append(try parseNot()) }
        if operands.count == 1 { return operands[0] }
        return .and(operands.flatMap { if case .and(let inner) = $0 { inner } else { [$0] } })
    }

    private mutating func parseNot() throws(CMISQLError) -> QueryExpression {
        let start = current.offset
        if accept(.not) {
            try enter(at: start)
            let operand = try parseNot()
            depth -= 1
            return .not(operand)
        }
        if acceptSymbol("(") {
            try enter(at: start)
            let inner = try parseOr()
            try expectSymbol(")", "')' closing the '(' at offset \(start)")
            depth -= 1
            return inner
        }
        return try parsePredicate()
    }

    private mutating func enter(at offset: Int) throws(CMISQLError) {
        depth += 1
        guard depth <= CMISQL.maximumNestingDepth else {
            throw CMISQLError(
                "parentheses and NOTs are nested more than \(CMISQL.maximumNestingDepth) deep", offset: offset)
        }
    }

    private mutating func parsePredicate() throws(CMISQLError) -> QueryExpression {
        switch current.keyword {
        case .inFolder, .inTree:
            let isTree = current.keyword == .inTree
            let name = isTree ? "IN_TREE" : "IN_FOLDER"
            position += 1
            try expectSymbol("(", "'(' after \(name)")
            let qualifier = try parseFunctionQualifier()
            let folderId = try parseString("a folder id string literal in \(name)")
            try expectSymbol(")", "')' closing \(name)")
            return isTree
                ? .inTree(qualifier: qualifier, folderId: folderId)
                : .inFolder(qualifier: qualifier, folderId: folderId)
        case .contains:
            position += 1
            try expectSymbol("(", "'(' after CONTAINS")
            let qualifier = try parseFunctionQualifier()
            guard case .string(let raw) = current.kind else {
                throw failure("a text search string literal in CONTAINS")
            }
            let search = try TextSearchParser.parse(raw: raw, offset: current.offset + 1)
            position += 1
            try expectSymbol(")", "')' closing CONTAINS")
            return .contains(qualifier: qualifier, search)
        case .any:
            position += 1
            let column = try parseColumn("a multi-valued property query name after ANY")
            let negated = accept(.not)
            try expect(.in, negated ? "IN after ANY \(column) NOT" : "IN after ANY \(column)")
            return .anyIn(column, try parseLiteralList(), negated: negated)
        case .score:
            throw CMISQLError("SCORE() can only be selected or used in ORDER BY, not in WHERE", offset: current.offset)
        default:
            break
        }
        if isLiteralStart {
            let literal = try parseLiteral()
            guard let op = acceptComparison() else {
                throw failure("a comparison operator after the literal (as in 'value' = ANY property)")
            }
            try expect(.any, "ANY after \(op.rawValue): a literal on the left compares with ANY multi-valued property")
            return .anyComparison(literal, op, try parseColumn("a multi-valued property query name after ANY"))
        }
        let column = try parseColumn("a predicate (a property, NOT, '(', ANY, IN_FOLDER, IN_TREE or CONTAINS)")
        if let op = acceptComparison() {
            if case .word = current.kind, current.keyword == nil {
                throw failure("a literal after \(op.rawValue) (CMIS QL compares properties only with literals)")
            }
            return .comparison(column, op, try parseLiteral())
        }
        if accept(.is) {
            let negated = accept(.not)
            try expect(.null, negated ? "NULL after IS NOT" : "NULL or NOT after IS")
            return .isNull(column, negated: negated)
        }
        let negated = accept(.not)
        if accept(.in) { return .in(column, try parseLiteralList(), negated: negated) }
        if accept(.like) {
            guard case .string(let raw) = current.kind else { throw failure("a string literal pattern after LIKE") }
            let pattern = try Self.decodeLike(raw, offset: current.offset + 1)
            position += 1
            return .like(column, pattern, negated: negated)
        }
        throw failure(
            negated ? "IN or LIKE after NOT" : "a comparison operator, IN, LIKE, NOT or IS after \(column)")
    }

    /// `qualifier ,` at the start of IN_FOLDER, IN_TREE or CONTAINS arguments, or nothing.
    private mutating func parseFunctionQualifier() throws(CMISQLError) -> String? {
        guard case .word = current.kind else { return nil }
        let qualifier = try identifier("a type name or alias")
        try expectSymbol(",", "',' after the qualifier \(qualifier)")
        return qualifier
    }

    private mutating func acceptComparison() -> ComparisonOperator? {
        guard case .symbol(let text) = current.kind, let op = ComparisonOperator(rawValue: text) else { return nil }
        position += 1
        return op
    }

    private mutating func parseLiteralList() throws(CMISQLError) -> [QueryLiteral] {
        try expectSymbol("(", "'(' opening the IN list")
        var literals: [QueryLiteral] = []
        repeat { literals.append(try parseLiteral()) } while acceptSymbol(",")
        try expectSymbol(")", "',' or ')' closing the IN list")
        return literals
    }

    // MARK: Literals

    private var isLiteralStart: Bool {
        switch current.kind {
        case .string, .number: return true
        case .word: return [.timestamp, .true, .false].contains(current.keyword)
        default: return false
        }
    }

    private mutating func parseLiteral() throws(CMISQLError) -> QueryLiteral {
        let token = current
        switch token.kind {
        case .string(let raw):
            position += 1
            return .string(try Self.decodeString(raw, offset: token.offset + 1))
        case .number(let text):
            position += 1
            if let integer = Int64(text.hasPrefix("+") ? String(text.dropFirst()) : text) { return .integer(integer) }
            guard let decimal = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")) else {
                throw CMISQLError("the number \(text) is out of range", offset: token.offset)
            }
            return .decimal(decimal)
        default:
            break
        }
        switch token.keyword {
        case .true:
            position += 1
            return .boolean(true)
        case .false:
            position += 1
            return .boolean(false)
        case .timestamp:
            position += 1
            guard case .string(let raw) = current.kind else {
                throw failure("a quoted 'YYYY-MM-DDThh:mm:ss.sssZ' after TIMESTAMP")
            }
            let text = try Self.decodeString(raw, offset: current.offset + 1)
            guard let date = Timestamp.parse(text) else {
                throw CMISQLError(
                    "'\(text)' is not a timestamp: expected YYYY-MM-DDThh:mm:ss[.sss][Z|+hh:mm|-hh:mm]",
                    offset: current.offset)
            }
            position += 1
            return .timestamp(date)
        default:
            throw failure("a literal (a 'string', a number, TIMESTAMP '…', TRUE or FALSE)")
        }
    }

    private mutating func parseString(_ what: String) throws(CMISQLError) -> String {
        guard case .string(let raw) = current.kind else { throw failure(what) }
        let text = try Self.decodeString(raw, offset: current.offset + 1)
        position += 1
        return text
    }

    /// A string literal's value: `\'` `\\` and (as the client library writes them everywhere) `\%` `\_`.
    static func decodeString(_ raw: String, offset: Int) throws(CMISQLError) -> String {
        var result = String.UnicodeScalarView()
        var escaping = false
        for (index, scalar) in raw.unicodeScalars.enumerated() {
            if escaping {
                guard LikePattern.isEscapable(scalar) else {
                    throw unknownEscape(scalar, in: "a string literal", offset: offset + index - 1)
                }
                result.append(scalar)
                escaping = false
            } else if scalar == "\\" {
                escaping = true
            } else {
                result.append(scalar)
            }
        }
        return String(result)
    }

    /// A LIKE pattern: `%` and `_` are wildcards unless escaped.
    static func decodeLike(_ raw: String, offset: Int) throws(CMISQLError) -> LikePattern {
        let (pattern, unknown) = LikePattern.decode(raw)
        if let (index, scalar) = unknown { throw unknownEscape(scalar, in: "a LIKE pattern", offset: offset + index) }
        return pattern
    }

    private static func unknownEscape(_ scalar: Unicode.Scalar, in place: String, offset: Int) -> CMISQLError {
        let shown = Lexer.isPrintable(scalar) ? "\\\(scalar)" : "\\ before \(Lexer.describe(scalar))"
        return CMISQLError(
            "unknown escape \(shown) in \(place): only \\' \\\\ \\% \\_ are allowed", offset: offset)
    }

    // MARK: Tokens

    private var current: Token { tokens[position] }

    private func peek(_ distance: Int) -> Token { tokens[min(position + distance, tokens.count - 1)] }

    private func failure(_ expected: String) -> CMISQLError {
        CMISQLError("expected \(expected), found \(current.display)", offset: current.offset)
    }

    private mutating func accept(_ keyword: Keyword) -> Bool {
        guard current.keyword == keyword else { return false }
        position += 1
        return true
    }

    private mutating func expect(_ keyword: Keyword, _ expected: String) throws(CMISQLError) {
        guard accept(keyword) else { throw failure(expected) }
    }

    private mutating func acceptSymbol(_ symbol: String) -> Bool {
        guard current.kind == .symbol(symbol) else { return false }
        position += 1
        return true
    }

    private mutating func expectSymbol(_ symbol: String, _ expected: String) throws(CMISQLError) {
        guard acceptSymbol(symbol) else { throw failure(expected) }
    }

    /// A name that is not a reserved word.
    private mutating func identifier(_ expected: String) throws(CMISQLError) -> String {
        guard case .word(let text) = current.kind else { throw failure(expected) }
        if let keyword = current.keyword {
            throw CMISQLError(
                "expected \(expected), found the reserved word \(keyword.rawValue)", offset: current.offset)
        }
        position += 1
        return text
    }

    /// `[qualifier.]name`.
    private mutating func parseColumn(_ expected: String) throws(CMISQLError) -> ColumnReference {
        let offset = current.offset
        let first = try identifier(expected)
        guard acceptSymbol(".") else { return ColumnReference(name: first, offset: offset) }
        let name = try identifier("a property query name after '\(first).'")
        return ColumnReference(qualifier: first, name: name, offset: offset)
    }
}
