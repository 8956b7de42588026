import Testing

@testable import SatchelCMISQL
import SatchelCMISCore

@Suite struct ParserErrorTests {
    /// Statement, expected offset, a piece of the expected message.
    static let invalid: [(String, Int, String)] = [
        ("", 0, "expected SELECT"),
        ("SELECT * FROM", 13, "type query name after FROM, found the end of the statement"),
        ("SELECT * FROM t WHERE name = 'abc", 29, "unterminated string"),
        ("SELECT * FROM t WHERE name = 'abc\\'", 29, "unterminated string"),
        ("SELECT * FROM t WHERE", 21, "expected a predicate"),
        ("SELECT * FROM t garbage more", 24, "end of the statement, found 'more'"),
        ("SELECT * FROM t WHERE a = 1 )", 28, "expected AND, OR, ORDER BY or the end of the statement"),
        ("SELECT * FROM t WHERE a = b", 26, "compares properties only with literals"),
        ("SELECT * FROM t WHERE a != 1", 24, "<>"),
        ("SELECT * FROM t WHERE a = 1 #", 28, "unexpected character '#'"),
        ("SELECT * FROM t WHERE a = 1 \u{0}", 28, "unexpected character U+0"),
        ("SELECT * FROM t WHERE a = 'x\\n'", 28, "unknown escape \\n"),
        ("SELECT * FROM t WHERE a LIKE 'x\\y'", 31, "unknown escape \\y in a LIKE pattern"),
        ("SELECT * FROM t WHERE a LIKE 5", 29, "string literal pattern after LIKE"),
        ("SELECT * FROM t WHERE d = TIMESTAMP '2024-13-01T00:00:00Z'", 36, "not a timestamp"),
        ("SELECT * FROM t WHERE d = TIMESTAMP '2023-02-29'", 36, "not a timestamp"),
        ("SELECT * FROM t WHERE d = TIMESTAMP 5", 36, "after TIMESTAMP"),
        ("SELECT * FROM t WHERE SCORE() > 1", 22, "SCORE() can only"),
        ("SELECT * FROM select", 14, "reserved word SELECT"),
        ("SELECT * FROM t WHERE CONTAINS('')", 32, "at least one search word"),
        ("SELECT * FROM t WHERE CONTAINS('a OR')", 36, "search word after OR"),
        ("SELECT * FROM t WHERE CONTAINS('OR a')", 32, "search word before OR"),
        ("SELECT * FROM t WHERE CONTAINS('a - b')", 34, "right after '-'"),
        ("SELECT * FROM t WHERE CONTAINS('\"open')", 32, "unterminated phrase"),
        ("SELECT * FROM t WHERE CONTAINS(5)", 31, "text search string literal"),
        ("SELECT * FROM t WHERE (((a = 1)", 31, "')' closing the '(' at offset 23"),
        ("SELECT * FROM t ORDER x", 22, "BY after ORDER"),
        ("SELECT * FROM t ORDER BY x, ", 28, "after ORDER BY"),
        ("SELECT * FROM t WHERE a = 12abc", 28, "after a number"),
        ("SELECT * FROM t WHERE a = 1e", 28, "exponent"),
        ("SELECT a b c FROM t", 11, "FROM after the select list"),
        ("SELECT * FROM t WHERE a IN ()", 28, "expected a literal"),
        ("SELECT * FROM t WHERE a IN (1 2)", 30, "',' or ')' closing the IN list"),
        ("SELECT * FROM t WHERE \"a\" = 1", 22, "single quotes"),
        ("SELECT * FROM t WHERE a", 23, "a comparison operator, IN, LIKE, NOT or IS after a"),
        ("SELECT * FROM t WHERE a NOT = 1", 28, "IN or LIKE after NOT"),
        ("SELECT * FROM t WHERE a IS 1", 27, "NULL or NOT after IS"),
        ("SELECT * FROM t WHERE 'x' = tags", 28, "ANY after ="),
        ("SELECT * FROM t WHERE ANY tags = 'x'", 31, "IN after ANY tags"),
        ("SELECT * FROM t WHERE IN_FOLDER(f)", 33, "',' after the qualifier f"),
        ("SELECT * FROM t JOIN u", 22, "ON after the joined type"),
        ("SELECT * FROM t JOIN u ON t.a < u.b", 30, "'=' between the join columns"),
        ("SELECT * FROM (t)", 14, "JOIN inside the parentheses"),
        ("SELECT * FROM t WHERE a. = 1", 25, "property query name after 'a.'"),
        ("SELECT SCORE( FROM t", 14, "')' after SCORE("),
    ]

    @Test(arguments: invalid)
    func rejects(_ statement: String, _ offset: Int, _ message: String) {
        #expect {
            _ = try CMISQL.parse(statement)
        } throws: { error in
            guard let error = error as? CMISQLError else { return false }
            return error.offset == offset && error.message.contains(message)
                && error.description.hasPrefix("CMIS QL error at offset \(offset): ")
        }
    }

    @Test(arguments: ["(", "NOT "])
    func capsNesting(_ opener: String) throws {
        let statement = "SELECT * FROM t WHERE " + String(repeating: opener, count: 10_000) + "a = 1"
        let error = try #require(throws: CMISQLError.self) { try CMISQL.parse(statement) }
        #expect(error.message.contains("nested more than 100 deep"))
        #expect(error.offset == 22 + 100 * opener.count)
    }

    @Test func acceptsNestingUpToTheCap() throws {
        let statement =
            "SELECT * FROM t WHERE " + String(repeating: "(", count: 100) + "a = 1" + String(repeating: ")", count: 100)
        #expect(try CMISQL.parse(statement).whereClause == .comparison(column("a"), .equal, .integer(1)))
    }

    @Test func capsLength() throws {
        let statement = "SELECT * FROM t WHERE a = '" + String(repeating: "x", count: 1 << 20) + "'"
        let error = try #require(throws: CMISQLError.self) { try CMISQL.parse(statement) }
        #expect(error.offset == 0)
        #expect(error.message.contains("at most 262144"))
    }

    @Test func longFlatConditionsParseAndEvaluate() throws {
        let terms = (0..<20_000).map { "a = \($0)" }
        let query = try CMISQL.parse("SELECT * FROM t WHERE " + terms.joined(separator: " OR "))
        guard case .or(let operands) = query.whereClause else {
            Issue.record("expected an OR")
            return
        }
        #expect(operands.count == 20_000)
        #expect(try query.matches(TestRow(properties: ["a": [.integer(19_999)]])))
        #expect(try !query.matches(TestRow(properties: ["a": [.integer(20_000)]])))
    }

    /// Mutated valid statements: every one parses or fails with an offset inside the statement.
    @Test func mutatedStatementsNeverCrash() {
        let seeds = [
            "SELECT d.cmis:name AS n, SCORE() FROM cmis:document d JOIN cmis:folder f ON d.p = f.i "
                + "WHERE (d.x = 'a\\'b' OR NOT d.y IN (1, 2.5, TIMESTAMP '2024-01-01T00:00:00Z')) "
                + "AND 'r' = ANY d.tags AND CONTAINS(d, 'a -\"b c\" OR d') AND IN_TREE(d, 'f') ORDER BY n DESC",
            "SELECT * FROM t WHERE a LIKE 'x\\%_%' AND ANY b NOT IN ('q') AND c IS NOT NULL",
        ]
        let alphabet = Array("'\"\\()%_-., =<>*aZ0 \u{0}é")
        var generator = SplitMix(seed: 42)
        var parsed = 0
        var rejected = 0
        for seed in seeds {
            for _ in 0..<1_500 {
                var characters = Array(seed)
                for _ in 0..<Int(generator.next() % 4 + 1) {
                    let position = Int(generator.next() % UInt64(characters.count))
                    switch generator.next() % 3 {
                    case 0: characters.remove(at: position)
                    case 1: characters.insert(alphabet[Int(generator.next() % UInt64(alphabet.count))], at: position)
                    default: characters[position] = alphabet[Int(generator.next() % UInt64(alphabet.count))]
                    }
                    if characters.isEmpty { characters = ["x"] }
                }
                do {
                    _ = try CMISQL.parse(String(characters))
                    parsed += 1
                } catch {
                    #expect((0...characters.count).contains(error.offset))
                    rejected += 1
                }
            }
        }
        #expect(parsed + rejected == 3_000)
        #expect(rejected > 1_000)
    }
}

/// A small deterministic generator, so the mutation test is reproducible.
struct SplitMix: RandomNumberGenerator {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
