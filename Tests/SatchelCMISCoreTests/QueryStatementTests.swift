import Foundation
import SatchelCMISCore
import Testing

@Suite("CMIS QL statements and Mobile Documents endpoints")
struct QueryStatementTests {
    @Test("a quote or backslash that carries a combining mark is escaped too")
    func combiningMarks() throws {
        // "'\u{301}" is one Character, not equal to "'"; a server reads the quote and the rest as syntax.
        var statement = QueryStatement("SELECT * FROM cmis:document WHERE cmis:name = ? AND cmis:description LIKE ?")
        statement.set(1, string: "x'\u{301} OR cmis:name = 'y")
        statement.set(2, like: "\\\u{301}'\u{301}", wildcardSuffix: false)
        let expected =
            "SELECT * FROM cmis:document WHERE cmis:name = 'x\\'\u{301} OR cmis:name = \\'y'"
            + " AND cmis:description LIKE '\\\\\u{301}\\'\u{301}'"
        #expect(Array(try statement.resolved().unicodeScalars) == Array(expected.unicodeScalars))
    }

    @Test("values are escaped for their kind and never become syntax")
    func escaping() throws {
        var statement = QueryStatement(
            "SELECT cmis:name FROM ? WHERE IN_FOLDER(?) AND cmis:name LIKE ? AND cmis:description = ? AND x IN (?)"
                + " AND cmis:creationDate > ? AND cmis:contentStreamLength >= ? AND cmis:isLatestVersion = ?"
        )
        #expect(statement.placeholderCount == 8)
        try statement.set(1, identifier: "cmis:document")
        statement.set(2, id: "f-1")
        statement.set(3, like: "O'Brien_50%", wildcardSuffix: true)
        statement.set(4, string: #"a\b' OR 1=1 --"#)
        statement.set(5, strings: ["x", "y'z"])
        statement.set(6, date: Date(timeIntervalSince1970: 1_700_000_000.25))
        statement.set(7, integer: 1024)
        statement.set(8, bool: true)
        let text = try statement.resolved()
        #expect(
            text
                == #"SELECT cmis:name FROM cmis:document WHERE IN_FOLDER('f-1') AND cmis:name LIKE 'O\'Brien\_50\%%'"#
                + #" AND cmis:description = 'a\\b\' OR 1=1 --' AND x IN ('x', 'y\'z')"#
                + #" AND cmis:creationDate > TIMESTAMP '2023-11-14T22:13:20.250Z' AND cmis:contentStreamLength >= 1024"#
                + " AND cmis:isLatestVersion = TRUE"
        )
        #expect(throws: CMISQueryError.self) { try statement.set(1, identifier: "cmis:document; DROP") }
        #expect(throws: CMISQueryError.self) { try QueryStatement("SELECT * FROM ? WHERE a = ?").resolved() }
        // Outside LIKE, wildcards are plain characters and stay unescaped.
        var plain = QueryStatement("SELECT * FROM cmis:document WHERE cmis:name = ?")
        plain.set(1, string: "100%_done")
        #expect(try plain.resolved() == "SELECT * FROM cmis:document WHERE cmis:name = '100%_done'")
        // A '?' inside a literal is text, not a placeholder.
        #expect(
            QueryStatement(#"SELECT * FROM cmis:document WHERE cmis:name = 'why?\'?' AND a = ?"#).placeholderCount == 1)
    }

    @Test(
        "Mobile Documents URLs are completed as the seed's clients do",
        arguments: [
            ("https://md.example.com", MobileDocuments.Binding.atomPub, "https://md.example.com/mcm/b/atom"),
            ("https://md.example.com/", .browser, "https://md.example.com/mcm/b/json"),
            ("https://md.example.com:8443/mcm", .atomPub, "https://md.example.com:8443/mcm/b/atom"),
            ("https://md.example.com/mcm/", .browser, "https://md.example.com/mcm/b/json"),
            ("https://md.example.com/other/cmis/atom", .atomPub, "https://md.example.com/other/cmis/atom"),
        ]
    )
    func endpoints(url: String, binding: MobileDocuments.Binding, expected: String) {
        #expect(MobileDocuments.endpoint(for: URL(string: url)!, binding: binding).absoluteString == expected)
    }
}
