import Foundation
import SatchelXML
import Testing

@Suite struct ErrorTests {
    /// Billion laughs: nine levels of ten-fold entity expansion, 3 GB if expanded.
    static let bombPrologue: String = {
        var dtd = "<?xml version=\"1.0\"?>\n<!DOCTYPE lolz [\n<!ENTITY lol \"lollollollollollollollollollol\">\n"
        for level in 1...9 {
            let previous = level == 1 ? "lol" : "lol\(level - 1)"
            dtd += "<!ENTITY lol\(level) \"" + String(repeating: "&\(previous);", count: 10) + "\">\n"
        }
        return dtd + "]>\n"
    }()

    @Test(arguments: [
        ("<a><b></a>", XMLReadError.Code.malformed, 1),
        ("<a>\n<b>text</b>\n<c x='1' x='2'/></a>", .malformed, 3),
        ("<a>\n<b>text</b>\n<c>trunc", .unexpectedEnd, 3),
        ("<a><b>", .unexpectedEnd, 1),
        ("<?xml version=\"1.0\"?>\n<feed xmlns=\"urn:f\"><entry><id>1</id></entr", .unexpectedEnd, 2),
        ("", .empty, 0),
        ("<a>&undefined;</a>", .entityRejected, 1),
        ("<a>x</a><b/>", .malformed, 1),
        ("<a>\n<b/>\n<c></a></c>", .malformed, 3),
    ])
    func malformed(xml: String, code: XMLReadError.Code, line: Int) throws {
        let error = try #require(throws: XMLReadError.self) { try XDocument.parse(data: Data(xml.utf8)) }
        #expect(error.code == code)
        #expect(error.line == line)
    }

    /// A fault deep in a large document (libxml2 reads it in chunks, and the parser's position at the end is where
    /// the last chunk ended, tens of lines later): the error says where the first fault is.
    @Test(arguments: [
        ("<Property Name=\"P321\" Type=\"Edm.String\"></Propert>\n", "mismatched end tag"),
        ("<Property Name=\"P321\" Type=\"Edm.String\"/ >\n", "broken empty-element tag"),
        ("<Property Name=\"P321\" Type=Edm.String/>\n", "unquoted attribute"),
        ("<q:Property Name=\"P321\"/>\n", "undeclared prefix"),
        // Found by the xml fuzz target (Fuzz/Regressions/xml/undeclared-prefix-attribute.xml): the attribute lost
        // its prefix and was written back as `-0y`, which is no name.
        ("<Property Name=\"P321\" p:-0y=\"2\"/>\n", "undeclared attribute prefix"),
        // Found by the xml fuzz target (Fuzz/Regressions/xml/element-named-colon.xml): in a default namespace, <:>
        // was read as the local name ":", and written back as <ns1::>, which does not read.
        ("<: Name=\"P321\"/>\n", "element named ':'"),
        ("<q:r:Property xmlns:q=\"urn:q\" Name=\"P321\"/>\n", "two colons"),
        ("<Property Name=\"P321\" :a=\"1\"/>\n", "attribute with an empty prefix"),
    ])
    func faultDeepInLargeDocument(fault: String, _: String) throws {
        var xml = "<Schema xmlns=\"urn:s\">\n"
        for line in 2...700 {
            xml += line == 321 ? fault : "<Property Name=\"P\(line)\" Type=\"Edm.String\" Nullable=\"true\"/>\n"
        }
        xml += "</Schema>\n"
        let error = try #require(throws: XMLReadError.self) { try XDocument.parse(data: Data(xml.utf8)) }
        #expect(error.line == 321, "\(error)")
    }

    /// Found by fuzzing (the xml target ran out of memory): libxml2 reads on after an error it can recover from
    /// and reports each one, and Foundation on Linux keeps a string per report that it never frees. The parse stops
    /// at the fourth error, at the ninth warning, and at a namespace name that is not a URI.
    @Test("the parse stops at the fourth recoverable error, and at the ninth warning")
    func recoverableErrorsStopTheParse() throws {
        let doubled = "<r>" + String(repeating: "<a b=\"1\" b=\"2\"/>\n", count: 1000) + "</r>"
        var delivered = 0
        let error = #expect(throws: XMLReadError.self) {
            try XMLStreamReader(splittingAt: "a", namespace: nil).read(data: Data(doubled.utf8)) { _ in delivered += 1 }
        }
        #expect(error?.line == 1 && error?.message == "attribute given twice", "\(String(describing: error))")
        #expect(delivered <= 4, "the parse read on past the fourth error: \(delivered) elements")

        func spaces(_ count: Int) -> Data {
            Data(("<r>" + String(repeating: "<a xml:space=\"x\"/>", count: count) + "</r>").utf8)
        }
        #expect(try XDocument.parse(data: spaces(8)).root.children.count == 8)
        let warned = #expect(throws: XMLReadError.self) { try XDocument.parse(data: spaces(9)) }
        #expect(warned?.message.contains("xml:space") == true, "\(String(describing: warned))")
        // A namespace name that is not a URI is refused at once: written again, its declaration (and its warning)
        // would be repeated on every element that uses it.
        let relative = #expect(throws: XMLReadError.self) {
            try XDocument.parse(data: Data("<r><a xmlns=\"rel\"/></r>".utf8))
        }
        #expect(relative?.message.contains("relative URI") == true, "\(String(describing: relative))")
    }

    @Test func depthLimit() throws {
        var limits = XMLReadLimits()
        limits.maxDepth = 10
        let xml = String(repeating: "<a>\n", count: 11) + String(repeating: "</a>", count: 11)
        let error = try #require(throws: XMLReadError.self) {
            try XDocument.parse(data: Data(xml.utf8), limits: limits)
        }
        #expect(error.code == .limitExceeded && error.line == 11)
        #expect(try XDocument.parse(data: Data(xml.utf8)).root.firstDescendant("a") != nil)
        let deep = String(repeating: "<a>", count: 100_000)  // default limit, no stack overflow
        #expect(
            throws: XMLReadError(code: .limitExceeded, message: "elements nested deeper than 256", line: 1, column: 771)
        ) {
            try XDocument.parse(data: Data(deep.utf8))
        }
    }

    @Test(arguments: ["<lolz>&lol9;</lolz>", "<lolz a=\"&lol9;\"/>", "<lolz a=\"&lol4;\">&lol4;</lolz>"])
    func entityBombIsStopped(root: String) throws {
        let xml = Data((Self.bombPrologue + root).utf8)
        let error = try #require(throws: XMLReadError.self) { try XDocument.parse(data: xml) }
        // Refused at the internal subset that declares the entities (line 2), before any is used.
        #expect(error.code == .entityRejected && error.line == 2)
        #expect(error.description.contains("line 2"))
    }

    @Test(arguments: [
        "<!DOCTYPE r [<!ENTITY x SYSTEM \"SECRET_URL\">]><r>a&x;</r>",
        "<!DOCTYPE r SYSTEM \"SECRET_URL\"><r>a</r>",
    ])
    func externalEntitiesAreNotRead(xml: String) throws {
        let secret = FileManager.default.temporaryDirectory.appending(path: "satchel-xxe-\(UUID().uuidString).txt")
        try Data("TOP-SECRET".utf8).write(to: secret)
        defer { try? FileManager.default.removeItem(at: secret) }
        let xml = xml.replacingOccurrences(of: "SECRET_URL", with: secret.absoluteString)
        do {
            #expect(try XDocument.parse(data: Data(xml.utf8)).root.text == "a")
        } catch let error as XMLReadError {
            // An internal subset is refused outright.
            #expect(xml.contains("["))
            #expect(error.code == .entityRejected)
            #expect(!error.message.contains("TOP-SECRET"))
        }
    }

    @Test func otherLimits() throws {
        var limits = XMLReadLimits()
        limits.maxElements = 3
        let xml = Data("<a><b/><c/><d/></a>".utf8)
        #expect(throws: XMLReadError.self) { try XDocument.parse(data: xml, limits: limits) }
        limits = XMLReadLimits()
        limits.maxTextLength = 1000
        let long = Data(("<a>" + String(repeating: "x&amp;", count: 600) + "</a>").utf8)
        let tooLong = try #require(throws: XMLReadError.self) { try XDocument.parse(data: long, limits: limits) }
        #expect(tooLong.code == .limitExceeded)
        limits = XMLReadLimits()
        limits.maxDocumentSize = 10
        let error = try #require(throws: XMLReadError.self) { try XDocument.parse(data: xml, limits: limits) }
        #expect(error.code == .limitExceeded)
        let missing = URL(filePath: "/nonexistent/satchel.xml")
        #expect(throws: XMLReadError(code: .unreadable, message: "cannot open \(missing.path)")) {
            try XDocument.parse(contentsOf: missing)
        }
    }

    /// Found by the `xml` fuzz target (`Fuzz/Regressions/xml/utf16-not-decodable.xml`): libxml2 gave no line.
    @Test("bytes that cannot be decoded are refused at the start, with a line and column")
    func undecodable() {
        let bytes: [UInt8] = [0x3C, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x17, 0x41, 0x54, 0x41, 0x1B]
        let error = #expect(throws: XMLReadError.self) { try XDocument.parse(data: Data(bytes)) }
        #expect(error?.code == .malformed)
        #expect(error?.line == 1)
        #expect(error?.column == 1)
        #expect(error?.message.contains("not in its encoding") == true, "\(String(describing: error))")
    }

    /// The parser's duplicate-attribute check costs the square of the count (100,000 attributes took 3.2 s of a
    /// core): an element with more than the limit is refused before the parser sees it, in any encoding.
    @Test("an element with more attributes than the limit is refused before parsing", arguments: [false, true])
    func attributeLimit(utf16: Bool) throws {
        func element(_ count: Int, quote: String = "\"") -> String {
            "<r>\n<e " + (0..<count).map { "a\($0)=\(quote)v\(quote)" }.joined(separator: " ") + "/></r>"
        }
        func data(_ text: String) -> Data {
            utf16 ? Data([0xFF, 0xFE]) + text.data(using: .utf16LittleEndian)! : Data(text.utf8)
        }
        let atLimit = try XDocument.parse(data: data(element(1_024)))
        #expect(atLimit.root.firstDescendant("e")?.attributes.count == 1_024)
        let over = #expect(throws: XMLReadError.self) { try XDocument.parse(data: data(element(1_025, quote: "'"))) }
        #expect(over?.code == .limitExceeded)
        #expect(over?.line == 2 && over?.column == 1, "\(String(describing: over))")
        #expect(over?.message.contains("1024 attributes") == true, "\(String(describing: over))")
        var limits = XMLReadLimits()
        limits.maxAttributes = 2
        #expect(throws: XMLReadError.self) { try XDocument.parse(data: data(element(3)), limits: limits) }
        // Quotes in text, and in an end tag's absence of attributes, are not attributes.
        #expect(
            try XDocument.parse(data: data(#"<r a="1" b='2'>"x" 'y' "z"</r>"#), limits: limits).root.text
                == #""x" 'y' "z""#)
        let bomb = element(100_000)
        let refused = #expect(throws: XMLReadError.self) { try XDocument.parse(data: data(bomb)) }
        #expect(refused?.code == .limitExceeded)
    }
}
