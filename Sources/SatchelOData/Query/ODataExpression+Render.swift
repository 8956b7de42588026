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
        case .property(let path): return path
        case .literal(let literal): return literal.text(for: version)
        case .raw(let text): return text
        case .not(let operand): return "not " + (try operand.wrapped(for: version, above: 7))
        case .negate(let operand): return "-" + (try operand.wrapped(for: version, above: 7))
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
            if version == .v4 {
                let list = values.map { $0.text(for: .v4) }.joined(separator: ",")
                return "\(try operand.wrapped(for: version, above: 4)) in (\(list))"
            }
            guard let first = values.first else { return "false" }
            let alternatives = values.dropFirst().reduce(ODataExpression.binary(.eq, operand, .literal(first))) {
                .binary(.or, $0, .binary(.eq, operand, .literal($1)))
            }
            return "(" + (try alternatives.text(for: version)) + ")"
        }
    }

    /// The text, in parentheses when this is a binary expression binding no tighter than `precedence`.
    private func wrapped(for version: ODataVersion, above precedence: Int) throws -> String {
        let text = try text(for: version)
        if case .binary(let op, _, _) = self, op.precedence <= precedence { return "(\(text))" }
        if case .not = self, precedence >= 7 { return "(\(text))" }
        return text
    }

    private static func unsupported(_ what: String, _ version: ODataVersion) -> ODataError {
        ODataError(.invalidArgument, "\(what) cannot be written for \(version)")
    }
}
