import SatchelCMISCore
import SatchelCMISQL
import SatchelNXQL
import Testing

/// CMIS QL and NXQL are read by Unicode scalars, as Satchel's escapers write them. Read by `Character`, `'` followed by
/// a combining mark is no quote, and a Prepend character (U+0600) joins the backslash or quote after it.
@Suite("CMIS QL and NXQL read by Unicode scalars")
struct ScalarReadingTests {
    /// The string each column is compared with for equality, by column name.
    static func equalities(_ statement: String) throws -> [String: String] {
        var found: [String: String] = [:]
        func visit(_ expression: QueryExpression) {
            switch expression {
            case .and(let terms), .or(let terms): terms.forEach(visit)
            case .comparison(let column, .equal, .string(let value)): found[column.name] = value
            default: break
            }
        }
        if let condition = try CMISQL.parse(statement).whereClause { visit(condition) }
        return found
    }

    @Test(
        "a value that starts with a combining mark, or ends in a Prepend character, reads back as written",
        arguments: ["\u{301}x", "\u{301}'\u{301}", "abc\u{600}", "\u{600}'", "\u{600}\\", "x\u{600}\u{301}'\u{301}"])
    func literalEdges(_ value: String) throws {
        var statement = QueryStatement("SELECT * FROM cmis:document WHERE cmis:name = ? AND cmis:objectId = ?")
        statement.set(1, string: value)
        statement.set(2, id: "id-1")
        let read = try Self.equalities(try statement.resolved())
        #expect(read["cmis:name"].map { Array($0.unicodeScalars) } == Array(value.unicodeScalars))
        #expect(read["cmis:objectId"] == "id-1")
    }

    @Test("an escaped wildcard after a Prepend character stays literal, and the pattern is written back the same")
    func likeAfterPrepend() throws {
        let value = "\u{600}%_"
        let statement =
            "SELECT * FROM cmis:document WHERE cmis:name LIKE '\(QueryStatement.escape(value, wildcards: true))%'"
        guard case .like(_, let pattern, _)? = try CMISQL.parse(statement).whereClause else {
            Issue.record("not a LIKE: \(statement)")
            return
        }
        #expect(pattern.matches(value + "tail"))
        #expect(!pattern.matches("\u{600}ab"))
        #expect(LikePattern(escaped: pattern.description) == pattern)
        #expect(pattern.literalPrefix.unicodeScalars.elementsEqual(value.unicodeScalars))
    }

    @Test("a wildcard carrying a combining mark is still a wildcard; literal runs match whole characters")
    func wildcardWithMark() {
        let pattern = LikePattern(escaped: "caf%\u{301}")
        #expect(pattern.elements.first == .character("c"))
        #expect(pattern.elements.contains(.anySequence))
        #expect(LikePattern(escaped: pattern.description) == pattern)
        #expect(LikePattern(escaped: "cafe\u{301}").matches("caf\u{E9}"))
    }

    @Test("error offsets count Unicode scalars")
    func offsets() {
        let error = #expect(throws: CMISQLError.self) {
            try CMISQL.parse("SELECT * FROM t WHERE a = 'e\u{301}\u{301}' #")
        }
        #expect(error?.offset == 32)
        #expect(error?.message == "unexpected character '#'")
        let escape = #expect(throws: CMISQLError.self) {
            try CMISQL.parse("SELECT * FROM t WHERE a = '\u{301}\\\u{302}'")
        }
        #expect(escape?.offset == 28)
        #expect(escape?.message.hasPrefix("unknown escape \\ before U+302") == true)
    }

    @Test("a placeholder inside a literal that opens with a combining mark is not a placeholder")
    func placeholderInsideLiteral() throws {
        var statement = QueryStatement("SELECT * FROM t WHERE a = '\u{301}?' AND b = ?")
        #expect(statement.placeholderCount == 1)
        statement.set(1, integer: 7)
        #expect(
            try statement.resolved().unicodeScalars.elementsEqual(
                "SELECT * FROM t WHERE a = '\u{301}?' AND b = 7".unicodeScalars))
    }

    @Test("NXQL literals that start with a combining mark translate to the same value")
    func nxqlLeadingMark() throws {
        let value = "\u{301}x\u{600}"
        let translation = try NXQLTranslator.translate(
            "SELECT * FROM Document WHERE dc:title = \(NXQLTranslator.literal(value))")
        let read = try Self.equalities(try #require(translation.statements.first))
        #expect(read["cmis:name"].map { Array($0.unicodeScalars) } == Array(value.unicodeScalars))
    }

    @Test("names are words of any script: letter numbers, combining marks, ZWNJ and ZWJ stay inside them")
    func names() throws {
        for name in [
            "\u{216B}x", "\u{645}\u{6CC}\u{200C}\u{62E}\u{648}\u{627}\u{647}\u{645}", "\u{915}\u{94D}\u{200D}\u{937}",
            "e\u{301}t\u{E9}",
        ] {
            let query = try CMISQL.parse("SELECT \(name) FROM t WHERE \(name) = 1")
            guard case .comparison(let column, _, _)? = query.whereClause else {
                Issue.record("no comparison for \(name)")
                continue
            }
            #expect(Array(column.name.unicodeScalars) == Array(name.unicodeScalars))
        }
        #expect(throws: CMISQLError.self) { try CMISQL.parse("SELECT \u{301}x FROM t") }
    }
}
