import Foundation
import Testing

@testable import SatchelCMISQL

@Suite struct ParserTests {
    static let conditions: [(String, QueryExpression)] = [
        ("cmis:name = 'a'", .comparison(column("cmis:name"), .equal, .string("a"))),
        ("cmis:name <> 'it\\'s'", .comparison(column("cmis:name"), .notEqual, .string("it's"))),
        ("cmis:name = 'it''s'", .comparison(column("cmis:name"), .equal, .string("it's"))),
        ("cmis:name = ''", .comparison(column("cmis:name"), .equal, .string(""))),
        ("cmis:name = 'back\\\\slash \\% \\_'", .comparison(column("cmis:name"), .equal, .string("back\\slash % _"))),
        ("x >= -12", .comparison(column("x"), .greaterOrEqual, .integer(-12))),
        ("x<=+7", .comparison(column("x"), .lessOrEqual, .integer(7))),
        ("x < 1.5", .comparison(column("x"), .less, .decimal(decimal("1.5")))),
        ("x > -.25", .comparison(column("x"), .greater, .decimal(decimal("-0.25")))),
        ("x > 1E3", .comparison(column("x"), .greater, .decimal(1000))),
        ("x = 99999999999999999999", .comparison(column("x"), .equal, .decimal(decimal("99999999999999999999")))),
        ("b = TRUE", .comparison(column("b"), .equal, .boolean(true))),
        ("b <> false", .comparison(column("b"), .notEqual, .boolean(false))),
        ("d > TIMESTAMP '2024-01-02T03:04:05.678Z'", .comparison(column("d"), .greater, .timestamp(sampleDate))),
        ("d > timestamp '2024-01-02T05:04:05.678+02:00'", .comparison(column("d"), .greater, .timestamp(sampleDate))),
        ("d > TIMESTAMP '2024-01-01T22:04:05.678-0500'", .comparison(column("d"), .greater, .timestamp(sampleDate))),
        (
            "d = TIMESTAMP '2024-02-29'",
            .comparison(column("d"), .equal, .timestamp(Date(timeIntervalSince1970: 1_709_164_800)))
        ),
        ("q.cmis:name = 'x'", .comparison(column("cmis:name", "q"), .equal, .string("x"))),
        (
            "a = 1 AND b = 2 OR c = 3",
            .or([
                .and([.comparison(column("a"), .equal, .integer(1)), .comparison(column("b"), .equal, .integer(2))]),
                .comparison(column("c"), .equal, .integer(3)),
            ])
        ),
        (
            "a = 1 AND (b = 2 OR c = 3)",
            .and([
                .comparison(column("a"), .equal, .integer(1)),
                .or([.comparison(column("b"), .equal, .integer(2)), .comparison(column("c"), .equal, .integer(3))]),
            ])
        ),
        (
            "NOT a = 1 AND b = 2",
            .and([.not(.comparison(column("a"), .equal, .integer(1))), .comparison(column("b"), .equal, .integer(2))])
        ),
        (
            "a = 1 and (b = 2 AND c = 3)",
            .and([
                .comparison(column("a"), .equal, .integer(1)), .comparison(column("b"), .equal, .integer(2)),
                .comparison(column("c"), .equal, .integer(3)),
            ])
        ),
        ("((a IS NULL))", .isNull(column("a"), negated: false)),
        ("a IS NOT NULL", .isNull(column("a"), negated: true)),
        ("NOT NOT a IS NULL", .not(.not(.isNull(column("a"), negated: false)))),
        (
            "cmis:name LIKE 'a%b\\_c\\'d'",
            .like(
                column("cmis:name"),
                LikePattern(elements: [
                    .character("a"), .anySequence, .character("b"), .character("_"), .character("c"),
                    .character("'"), .character("d"),
                ]), negated: false)
        ),
        ("x NOT LIKE '_%'", .like(column("x"), LikePattern(elements: [.anyCharacter, .anySequence]), negated: true)),
        ("x IN ('a', 'b')", .in(column("x"), [.string("a"), .string("b")], negated: false)),
        ("x NOT IN (1, 2.5)", .in(column("x"), [.integer(1), .decimal(decimal("2.5"))], negated: true)),
        ("'tag' = ANY tags", .anyComparison(.string("tag"), .equal, column("tags"))),
        ("3 < any t.n", .anyComparison(.integer(3), .less, column("n", "t"))),
        ("ANY tags IN ('a','b')", .anyIn(column("tags"), [.string("a"), .string("b")], negated: false)),
        ("ANY tags NOT IN ('a')", .anyIn(column("tags"), [.string("a")], negated: true)),
        ("IN_FOLDER('f-1')", .inFolder(qualifier: nil, folderId: "f-1")),
        ("in_tree(d, 'f\\'1')", .inTree(qualifier: "d", folderId: "f'1")),
        ("CONTAINS('hello world')", .contains(qualifier: nil, .and([.term("hello"), .term("world")]))),
        ("CONTAINS(d, 'hello')", .contains(qualifier: "d", .term("hello"))),
    ]

    @Test(arguments: conditions)
    func parsesCondition(_ text: String, _ expected: QueryExpression) throws {
        #expect(try condition(text) == expected)
    }

    static let statements: [(String, CMISQuery)] = [
        (
            "SELECT * FROM cmis:document",
            CMISQuery(selectAll: true, select: [], from: FromClause(primary: TableReference(queryName: "cmis:document")))
        ),
        (
            "select cmis:name, d.cmis:objectId AS id, SCORE() s, d.* from cmis:document d",
            CMISQuery(
                selectAll: false,
                select: [
                    .column(column("cmis:name"), alias: nil), .column(column("cmis:objectId", "d"), alias: "id"),
                    .score(alias: "s"), .allColumns(qualifier: "d"),
                ],
                from: FromClause(primary: TableReference(queryName: "cmis:document", alias: "d")))
        ),
        (
            "SELECT * FROM cmis:document AS d JOIN cmis:folder f ON d.cmis:parentId = f.cmis:objectId "
                + "LEFT OUTER JOIN x:y AS y ON d.a = y.b INNER JOIN z ON d.c = z.c left join w on d.e = w.e",
            CMISQuery(
                selectAll: true, select: [],
                from: FromClause(
                    primary: TableReference(queryName: "cmis:document", alias: "d"),
                    joins: [
                        Join(
                            kind: .inner, table: TableReference(queryName: "cmis:folder", alias: "f"),
                            left: column("cmis:parentId", "d"), right: column("cmis:objectId", "f")),
                        Join(
                            kind: .leftOuter, table: TableReference(queryName: "x:y", alias: "y"),
                            left: column("a", "d"), right: column("b", "y")),
                        Join(
                            kind: .inner, table: TableReference(queryName: "z"), left: column("c", "d"),
                            right: column("c", "z")),
                        Join(
                            kind: .leftOuter, table: TableReference(queryName: "w"), left: column("e", "d"),
                            right: column("e", "w")),
                    ]))
        ),
        (
            "SELECT * FROM (a JOIN b ON a.x = b.y)",
            CMISQuery(
                selectAll: true, select: [],
                from: FromClause(
                    primary: TableReference(queryName: "a"),
                    joins: [
                        Join(
                            kind: .inner, table: TableReference(queryName: "b"), left: column("x", "a"),
                            right: column("y", "b"))
                    ]))
        ),
        (
            "SELECT cmis:name AS n, SCORE() AS rel FROM t ORDER BY n DESC, rel, cmis:creationDate ASC, SCORE() desc",
            CMISQuery(
                selectAll: false,
                select: [.column(column("cmis:name"), alias: "n"), .score(alias: "rel")],
                from: FromClause(primary: TableReference(queryName: "t")),
                orderBy: [
                    OrderItem(.column(column("cmis:name")), ascending: false), OrderItem(.score, ascending: true),
                    OrderItem(.column(column("cmis:creationDate")), ascending: true),
                    OrderItem(.score, ascending: false),
                ])
        ),
        (
            "\n sElEcT *\tfRoM t wHeRe x = 1 oRdEr bY x dEsC  ",
            CMISQuery(
                selectAll: true, select: [], from: FromClause(primary: TableReference(queryName: "t")),
                whereClause: .comparison(column("x"), .equal, .integer(1)),
                orderBy: [OrderItem(.column(column("x")), ascending: false)])
        ),
    ]

    @Test(arguments: statements)
    func parsesStatement(_ text: String, _ expected: CMISQuery) throws {
        #expect(try CMISQL.parse(text) == expected)
    }

    @Test func columnsRememberWhereTheyWereWritten() throws {
        let query = try CMISQL.parse("SELECT a FROM t WHERE d.b = 1")
        #expect(query.referencedColumns.map(\.offset) == [7, 22])
        #expect(query.referencedColumns.map(\.description) == ["a", "d.b"])
    }

    @Test func likePatternRoundTripsThroughItsDescription() {
        let pattern = LikePattern(elements: [.character("%"), .anySequence, .character("\\"), .anyCharacter])
        #expect(pattern.description == "\\%%\\\\_")
        #expect(LikePattern(escaped: pattern.description) == pattern)
        #expect(pattern.literalPrefix == "%")
    }
}
