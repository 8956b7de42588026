import SatchelText
import Testing

@Suite("Escaping by Unicode scalar")
struct ScalarEscapingTests {
    static func scalars(_ text: String) -> [Unicode.Scalar] { Array(text.unicodeScalars) }

    @Test("a quote or backslash that carries a combining mark is escaped; CR LF is two scalars")
    func combiningMarks() {
        // "'\u{301}" is one Character, not equal to "'": a Character-based replacement leaves the quote alone.
        let hostile = "x'\u{301} OR 1=1 \\\u{301}"
        #expect(Self.scalars(hostile.singleQuoted(.doubled)) == Self.scalars("'x''\u{301} OR 1=1 \\\u{301}'"))
        #expect(Self.scalars(hostile.singleQuoted(.backslash)) == Self.scalars("'x\\'\u{301} OR 1=1 \\\\\u{301}'"))
        let crlf = "a\r\nb".escapingScalars { $0 == "\r" ? "%0D" : $0 == "\n" ? "%0A" : nil }
        #expect(crlf == "a%0D%0Ab")
        #expect("plain".singleQuoted(.doubled) == "'plain'")
        #expect("".escapingScalars { _ in "x" } == "")
    }

    @Test("splitting outside quotes reads quotes by scalar: one that carries a combining mark still opens or closes")
    func splitting() {
        let parts = "a,'b,''\u{301},c',d".splittingByScalars(at: ",", outside: "'")
        #expect(parts.map(Self.scalars) == ["a", "'b,''\u{301},c'", "d"].map(Self.scalars))
        #expect("x(a,'b)'),y".splittingByScalars(at: ",", outside: "'", nesting: true) == ["x(a,'b)')", "y"])
        #expect("x(a,b),y".splittingByScalars(at: ",", outside: "'") == ["x(a", "b)", "y"])
        #expect("p; q=\"\u{301}a;b\"; r".splittingByScalars(at: ";", outside: "\"").count == 3)
        #expect("".splittingByScalars(at: ",", outside: "'") == [""])
        // With an escape, an escaped quote inside a quoted string neither closes nor opens one.
        #expect(#"a="x\";y";b"#.splittingByScalars(at: ";", outside: "\"", escape: "\\") == [#"a="x\";y""#, "b"])
        #expect(#"a=x\";b"#.splittingByScalars(at: ";", outside: "\"", escape: "\\").count == 1)
    }
}
