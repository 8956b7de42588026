import Foundation
import SatchelCMISCore
import Testing

@testable import SatchelCMISQL

/// Statements built with the client's `QueryStatement` parse back to the values that went in.
@Suite struct QueryStatementRoundTripTests {
    static let strings = ["plain", "O'Brien", "back\\slash", "100% _done_", "'", "\\'", "''", "", "é 漢字 🙂", "a?b"]

    @Test(arguments: strings)
    func stringsRoundTrip(_ value: String) throws {
        var statement = QueryStatement("SELECT * FROM cmis:document WHERE cmis:name = ? AND IN_FOLDER(?)")
        statement.set(1, string: value)
        statement.set(2, id: value)
        let query = try CMISQL.parse(try statement.resolved())
        #expect(
            query.whereClause
                == .and([
                    .comparison(column("cmis:name"), .equal, .string(value)),
                    .inFolder(qualifier: nil, folderId: value),
                ]))
    }

    @Test(arguments: strings)
    func likePatternsMatchTheTextLiterally(_ value: String) throws {
        var statement = QueryStatement("SELECT * FROM cmis:document WHERE cmis:name LIKE ?")
        statement.set(1, like: value, wildcardPrefix: true, wildcardSuffix: true)
        let query = try CMISQL.parse(statement.text)
        let hit = TestRow(properties: ["cmis:name": [.string("<" + value + ">")]])
        #expect(try query.matches(hit))
        if !value.isEmpty {
            let altered = value.replacingOccurrences(of: "%", with: "x").replacingOccurrences(of: "_", with: "y")
            let miss = TestRow(properties: ["cmis:name": [.string(altered + "!")]])
            #expect(try query.matches(miss) == (altered == value))
        }
    }

    @Test func typedValuesRoundTrip() throws {
        var statement = QueryStatement(
            "SELECT ? FROM cmis:document WHERE a = ? AND b = ? AND c = ? AND d = ? AND e IN (?) AND f <> ?")
        try statement.set(1, identifier: "my:prop")
        statement.set(2, integer: -42)
        statement.set(3, decimal: decimal("-12.375"))
        statement.set(4, bool: true)
        statement.set(5, date: sampleDate)
        statement.set(6, strings: ["x", "y'z"])
        statement.set(7, integer: .max)
        let query = try CMISQL.parse(try statement.resolved())
        #expect(query.select == [.column(column("my:prop"), alias: nil)])
        #expect(
            query.whereClause
                == .and([
                    .comparison(column("a"), .equal, .integer(-42)),
                    .comparison(column("b"), .equal, .decimal(decimal("-12.375"))),
                    .comparison(column("c"), .equal, .boolean(true)),
                    .comparison(column("d"), .equal, .timestamp(sampleDate)),
                    .in(column("e"), [.string("x"), .string("y'z")], negated: false),
                    .comparison(column("f"), .notEqual, .integer(.max)),
                ]))
    }

    @Test func datesMatchAtMillisecondPrecision() throws {
        var statement = QueryStatement("SELECT * FROM cmis:document WHERE cmis:creationDate = ?")
        let date = Date(timeIntervalSince1970: 1_700_000_000.1234)
        statement.set(1, date: date)
        let query = try CMISQL.parse(statement.text)
        #expect(try query.matches(TestRow(properties: ["cmis:creationDate": [.datetime(date)]])))
    }
}
