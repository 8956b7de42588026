import SatchelCMISCore
import Testing

@testable import SatchelCMISQL

@Suite struct ContainsTests {
    static let expressions: [(String, TextSearchExpression)] = [
        ("fox", .term("fox")),
        ("  fox   dog ", .and([.term("fox"), .term("dog")])),
        ("a b OR -c \"d e\"", .or([.and([.term("a"), .term("b")]), .and([.not(.term("c")), .phrase("d e")])])),
        ("a OR b OR c", .or([.term("a"), .term("b"), .term("c")])),
        ("a AND b", .and([.term("a"), .term("b")])),
        ("a or b", .and([.term("a"), .term("or"), .term("b")])),
        ("\\-cat", .term("-cat")),
        ("e-mail", .term("e-mail")),
        ("O\\'Brien", .term("O'Brien")),
        ("O''Brien", .term("O'Brien")),
        ("\"say \\\"hi\\\"\"", .phrase("say \"hi\"")),
        ("back\\\\\\\\slash", .term("back\\slash")),
        ("\\OR", .term("OR")),
        ("-\"x y\"", .not(.phrase("x y"))),
    ]

    @Test(arguments: expressions)
    func parses(_ search: String, _ expected: TextSearchExpression) throws {
        #expect(try condition("CONTAINS('\(search)')") == .contains(qualifier: nil, expected))
    }

    static let text = "The Quick brown fox jumps over the lazy dog. Café O'Brien e-mail 2024, say \"hi\""

    static let searches: [(String, Bool)] = [
        ("quick", true),
        ("QUICK", true),
        ("qui", false),
        ("quick fox", true),
        ("quick cat", false),
        ("cat OR fox", true),
        ("cat OR bird", false),
        ("\"brown fox\"", true),
        ("\"Brown  FOX jumps\"", true),
        ("\"fox brown\"", false),
        ("-cat", true),
        ("fox -dog", false),
        ("fox -\"lazy cat\"", true),
        ("cafe", true),
        ("CAFÉ", true),
        ("O\\'Brien", true),
        ("brien", true),
        ("e-mail", true),
        ("\\-mail", true),
        ("2024", true),
        ("cat OR dog fox", true),
        ("cat OR dog bird", false),
        ("\"say \\\"hi\\\"\"", true),
    ]

    @Test(arguments: searches)
    func matches(_ search: String, _ expected: Bool) throws {
        let query = try CMISQL.parse("SELECT * FROM t WHERE CONTAINS('\(search)')")
        #expect(try query.matches(TestRow(text: Self.text)) == expected)
        #expect((query.score(TestRow(text: Self.text)) > 0) == expected)
    }

    @Test func rowsWithoutTextNeverMatch() throws {
        let query = try CMISQL.parse("SELECT * FROM t WHERE CONTAINS('-anything')")
        #expect(try !query.matches(TestRow(text: nil)))
        #expect(try query.matches(TestRow(text: "")))
    }

    @Test func qualifierReachesTheRow() throws {
        struct Joined: QueryRow {
            func values(for column: ColumnReference) -> [PropertyValue]? { nil }
            func isInFolder(_ folderId: String, qualifier: String?) -> Bool { qualifier == "f" && folderId == "1" }
            func isInTree(_ folderId: String, qualifier: String?) -> Bool { false }
            func fullText(qualifier: String?) -> String? { qualifier == "d" ? "hello" : nil }
        }
        let query = try CMISQL.parse(
            "SELECT * FROM cmis:document d JOIN cmis:folder f ON d.p = f.i WHERE CONTAINS(d, 'hello') AND IN_FOLDER(f, '1')"
        )
        #expect(try query.matches(Joined()))
        let other = try CMISQL.parse("SELECT * FROM cmis:document d WHERE CONTAINS('hello')")
        #expect(try !other.matches(Joined()))
    }
}
