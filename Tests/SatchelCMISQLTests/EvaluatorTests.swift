import Foundation
import SatchelCMISCore
import Testing

@testable import SatchelCMISQL

@Suite struct EvaluatorTests {
    static let row = TestRow(
        properties: [
            "cmis:name": [.string("Report 2024.pdf")],
            "cmis:objectId": [.id("doc-1")],
            "size": [.integer(1500)],
            "ratio": [.decimal(decimal("0.75"))],
            "created": [.datetime(sampleDate)],
            "flag": [.boolean(true)],
            "description": [],
            "tags": [.string("red"), .string("green")],
            "one": [.string("only")],
        ],
        multiValued: ["tags", "one"], parents: ["f1"], ancestors: ["f1", "root"],
        text: "Quarterly report")

    static let cases: [(String, Bool)] = [
        ("cmis:name = 'Report 2024.pdf'", true),
        ("cmis:name <> 'x'", true),
        ("cmis:name > 'Q' AND cmis:name < 'S'", true),
        ("cmis:objectId = 'doc-1'", true),
        ("size = 1500", true),
        ("size = 1500.0", true),
        ("size > 1499.5", true),
        ("size < 1000", false),
        ("size >= 1500 AND size <= 1500", true),
        ("ratio = 0.75", true),
        ("ratio < 1", true),
        ("ratio > 7.5E-1", false),
        ("created = TIMESTAMP '2024-01-02T03:04:05.678Z'", true),
        ("created > TIMESTAMP '2024-01-01T00:00:00Z'", true),
        ("created < TIMESTAMP '2024-01-02T04:04:05.678+01:00'", false),
        ("flag = TRUE", true),
        ("flag <> true", false),
        ("cmis:name LIKE 'Report%'", true),
        ("cmis:name LIKE 'report%'", false),
        ("cmis:name LIKE '%2024.p_f'", true),
        ("cmis:name LIKE '%2024\\_pdf'", false),
        ("cmis:name NOT LIKE '%.pdf'", false),
        ("cmis:objectId LIKE 'doc-_'", true),
        ("size IN (1, 1500)", true),
        ("size IN (1, 2.5)", false),
        ("size NOT IN (1500)", false),
        ("cmis:name IN ('a', 'Report 2024.pdf')", true),
        ("description IS NULL", true),
        ("description IS NOT NULL", false),
        ("tags IS NOT NULL", true),
        ("size IS NULL", false),
        ("description = 'x'", false),
        ("description <> 'x'", false),
        ("NOT description = 'x'", false),
        ("description NOT IN ('x')", false),
        ("description NOT LIKE 'x'", false),
        ("description <> 'x' OR size = 1500", true),
        ("NOT (description = 'x' AND size = 1)", true),
        ("NOT (description = 'x' OR size = 1)", false),
        ("'red' = ANY tags", true),
        ("'blue' = ANY tags", false),
        ("'only' = ANY one", true),
        ("'a' < ANY tags", true),
        ("'z' < ANY tags", false),
        ("ANY tags IN ('blue', 'green')", true),
        ("ANY tags NOT IN ('blue')", true),
        ("ANY tags NOT IN ('red', 'blue')", false),
        ("IN_FOLDER('f1')", true),
        ("IN_FOLDER('root')", false),
        ("IN_TREE('root')", true),
        ("NOT IN_TREE('other')", true),
        ("CONTAINS('quarterly')", true),
        ("CONTAINS('annual')", false),
        ("size = 1 AND flag = TRUE OR ratio = 0.75", true),
        ("size = 1 AND (flag = TRUE OR ratio = 0.75)", false),
        ("NOT size = 1 AND flag = TRUE", true),
        ("NOT (size = 1500 AND flag = TRUE)", false),
    ]

    @Test(arguments: cases)
    func evaluates(_ text: String, _ expected: Bool) throws {
        let query = try CMISQL.parse("SELECT * FROM t WHERE " + text)
        #expect(try query.matches(Self.row) == expected)
    }

    /// Condition, a piece of the message; the error's offset is the column's (22: right after WHERE).
    static let errors: [(String, String)] = [
        ("tags = 'red'", "tags is multi-valued: use 'value' = ANY tags"),
        ("one LIKE 'o%'", "one is multi-valued"),
        ("unknown = 1", "unknown property unknown"),
        ("cmis:name = 1", "cannot compare the string property cmis:name with an integer literal"),
        ("size = '1500'", "cannot compare the integer property size with a string literal"),
        ("flag < TRUE", "booleans can only be compared with = and <>"),
        ("created = '2024-01-02'", "write TIMESTAMP"),
        ("size LIKE '1%'", "LIKE needs a string, id, uri or html property; size is integer"),
        ("size IN (1, 'x')", "cannot compare"),
    ]

    @Test(arguments: errors)
    func rejects(_ text: String, _ message: String) throws {
        let query = try CMISQL.parse("SELECT * FROM t WHERE " + text)
        let error = try #require(throws: CMISQLError.self) { try query.matches(Self.row) }
        #expect(error.message.contains(message))
        #expect(error.offset == 22)
    }

    @Test func anyRejectsSingleValuedProperties() throws {
        let query = try CMISQL.parse("SELECT * FROM t WHERE size = 1 OR 'x' = ANY cmis:name")
        let error = try #require(throws: CMISQLError.self) { try query.matches(Self.row) }
        #expect(error.message == "ANY needs a multi-valued property; cmis:name is single-valued")
        #expect(error.offset == 44)
    }

    @Test func noWhereClauseMatchesEverything() throws {
        #expect(try CMISQL.parse("SELECT * FROM t").matches(TestRow()))
    }

    @Test func likeMatchesCharactersNotBytes() {
        let pattern: LikePattern = "_af_%"
        #expect(pattern.matches("café!"))
        #expect(pattern.matches("xafé"))
        #expect(!pattern.matches("caf"))
        #expect(LikePattern("%a%b%c").matches("xxaxxbxxbxxc"))
        #expect(!LikePattern("%a%b%c").matches("xxaxxbxxbxxcx"))
        #expect(LikePattern("").matches(""))
        #expect(!LikePattern("").matches("a"))
        #expect(LikePattern("%%").matches(""))
    }

    @Test func likeStaysFastOnHostilePatterns() {
        let text = String(repeating: "a", count: 20_000)
        let pattern = LikePattern(escaped: String(repeating: "%a", count: 50) + "b")
        let start = ContinuousClock.now
        #expect(!pattern.matches(text))
        #expect(ContinuousClock.now - start < .seconds(10))
    }
}
