extension ODataExpression {
    /// V4-only functions that V2 has no equivalent for.
    /// Canonical functions OData V2 does not have.
    static let v4Only: Set<String> = ["date", "time", "now", "fractionalseconds", "totaloffsetminutes"]

    /// The expression in OData syntax (before percent-encoding).
    ///
    /// - Throws: ``ODataError`` `.invalidArgument` for constructs the version lacks (lambdas, `has`, V4-only
    ///   functions in V2).
    public func text(for version: ODataVersion) throws -> String {
        switch self {
        // A property named `not` is one only where the keyword cannot be: in parentheses.
        case .property(let path): return path == "not" ? "(not)" : path
        case .literal(let literal): return literal.text(for: version)
        case .raw(let text): return text
        case .not(let operand): return "not " + (try operand.wrapped(for: version, above: 7))
        case .negate(let operand):
            // A minus before a digit (or INF) would be read back as part of a negative literal: `- 0` stays a
            // negation of zero, where `-0` reads back as the literal 0. (A space, not parentheses, which would nest
            // one level deeper than what was read.)
            let text = try operand.wrapped(for: version, above: 7)
            let merges = text.utf8.first.map { (0x30...0x39).contains($0) } == true || text.hasPrefix("INF")
            return (merges ? "- " : "-") + text
        case .binary(let op, let lhs, let rhs):
            if op == .has, version == .v2 { throw Self.unsupported("the has operator", version) }
            // Left-associative: an equal-precedence right operand needs parentheses.
            let left = try lhs.wrapped(for: version, above: op.precedence - 1)
            let right = try rhs.wrapped(for: version, above: op.precedence)
            return "\(left) \(op.rawValue) \(right)"
        case .call(let name, let arguments):
            if version == .v2 && Self.v4Only.contains(name) { throw Self.unsupported("\(name)()", version) }
            var name = name
            var arguments = arguments
            if name == "contains" && version == .v2 {
                name = "substringof"
                arguments.reverse()
            }
            return name + "(" + (try arguments.map { try $0.text(for: version) }).joined(separator: ",") + ")"
        case .lambda(let kind, let collection, let variable, let predicate):
            guard version == .v4 else { throw Self.unsupported("\(kind.rawValue) lambdas", version) }
            guard let predicate else { return "\(collection)/\(kind.rawValue)()" }
            return "\(collection)/\(kind.rawValue)(\(variable):\(try predicate.text(for: version)))"
        case .isIn(let operand, let values):
            guard version == .v4 else { return try Self.alternatives(operand, values).text(for: version) }
            let list = values.map { $0.text(for: .v4) }.joined(separator: ",")
            // `in` reads at the comparisons' level, from the left: `A gt 1 in (true)`, `X in (1) in (2)`.
            return "\(try operand.wrapped(for: version, above: ODataOperator.gt.precedence - 1)) in (\(list))"
        }
    }

    /// V2 has no `in`: `A in (1,2)` is `A eq 1 or A eq 2`, and `A in ()` is false.
    private static func alternatives(_ operand: ODataExpression, _ values: [ODataLiteral]) -> ODataExpression {
        guard let first = values.first else { return .literal(.bool(false)) }
        return values.dropFirst().reduce(.binary(.eq, operand, .literal(first))) {
            .binary(.or, $0, .binary(.eq, operand, .literal($1)))
        }
    }

    /// The text, in parentheses when this is a binary expression (or `in`) binding no tighter than `precedence`. Unary
    /// operators need none (`not not A`, `-not A`): parentheses the reader did not see would nest the written text
    /// deeper than the reader's depth limit allowed.
    private func wrapped(for version: ODataVersion, above precedence: Int) throws -> String {
        let own: Int
        switch self {
        case .binary(let op, _, _): own = op.precedence
        case .isIn(let operand, let values):
            // V2 writes what `in` stands for; V4's `in` binds as the comparisons do.
            guard version == .v4 else {
                return try Self.alternatives(operand, values).wrapped(for: version, above: precedence)
            }
            own = ODataOperator.gt.precedence
        default: return try text(for: version)
        }
        let text = try text(for: version)
        return own <= precedence ? "(\(text))" : text
    }

    private static func unsupported(_ what: String, _ version: ODataVersion) -> ODataError {
        ODataError(.invalidArgument, "\(what) cannot be written for \(version)")
    }
}

extension ODataExpression {
    /// Whether an `in` is somewhere in the expression.
    var containsIn: Bool {
        switch self {
        case .isIn: true
        case .not(let operand), .negate(let operand): operand.containsIn
        case .binary(_, let lhs, let rhs): lhs.containsIn || rhs.containsIn
        case .call(_, let arguments): arguments.contains { $0.containsIn }
        case .lambda(_, _, _, let predicate): predicate?.containsIn ?? false
        case .property, .literal, .raw: false
        }
    }
}
