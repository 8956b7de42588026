import SatchelCMISCore
import Testing

@testable import SatchelCMISQL
import FoundationEssentials

@Suite struct OrderByTests {
    static let rows: [TestRow] = [
        TestRow(properties: ["id": [.id("a")], "name": [.string("b")], "size": [.integer(2)]], text: "fox"),
        TestRow(properties: ["id": [.id("b")], "name": [.string("a")], "size": [.decimal(2.5)]], text: "fox cat"),
        TestRow(properties: ["id": [.id("c")], "name": [], "size": [.integer(1)]], text: nil),
        TestRow(properties: ["id": [.id("d")], "name": [.string("b")], "size": [.integer(10)]], text: "cat"),
        TestRow(properties: ["id": [.id("e")], "name": [.string("b")], "size": []], text: "dog"),
    ]

    static let cases: [(String, [String])] = [
        ("ORDER BY name", ["c", "b", "a", "d", "e"]),
        ("ORDER BY name DESC", ["a", "d", "e", "b", "c"]),
        ("ORDER BY size", ["e", "c", "a", "b", "d"]),
        ("ORDER BY size DESC", ["d", "b", "a", "c", "e"]),
        ("ORDER BY name ASC, size DESC", ["c", "b", "d", "a", "e"]),
        ("ORDER BY name DESC, size", ["e", "a", "d", "b", "c"]),
        ("", ["a", "b", "c", "d", "e"]),
    ]

    @Test(arguments: cases)
    func sorts(_ orderBy: String, _ expected: [String]) throws {
        let query = try CMISQL.parse("SELECT * FROM t " + orderBy)
        let sorted = Self.rows.sorted { query.areInIncreasingOrder($0, $1) }
        #expect(sorted.map { $0.properties["id"]?.first?.stringValue ?? "?" } == expected)
        #expect(query.sorted(Self.rows).map { $0.properties["id"]?.first?.stringValue ?? "?" } == expected)
    }

    @Test func sortsByScore() throws {
        let query = try CMISQL.parse(
            "SELECT cmis:name, SCORE() AS relevance FROM t WHERE CONTAINS('fox OR cat') ORDER BY relevance DESC, id")
        #expect(query.orderBy.first == OrderItem(.score, ascending: false))
        let sorted = Self.rows.sorted { query.areInIncreasingOrder($0, $1) }
        #expect(sorted.map { $0.properties["id"]?.first?.stringValue ?? "?" } == ["b", "a", "d", "c", "e"])
        #expect(
            query.sorted(Self.rows).map { $0.properties["id"]?.first?.stringValue ?? "?" } == ["b", "a", "d", "c", "e"])
        #expect(Self.rows.map(query.score) == [0.5, 1, 0, 0.5, 0])
    }

    @Test func scoreWithoutContainsIsOne() throws {
        #expect(try CMISQL.parse("SELECT SCORE() FROM t WHERE size = 1").score(Self.rows[0]) == 1)
        #expect(try CMISQL.parse("SELECT SCORE() FROM t").score(Self.rows[0]) == 1)
    }
}
