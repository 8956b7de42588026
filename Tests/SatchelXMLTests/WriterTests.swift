import Foundation
import SatchelXML
import Testing

@Suite struct XMLWriterTests {
    static let atom = XNamespace.atom
    static let cmisra = XNamespace.cmisRestAtom

    @Test(arguments: [
        "plain", "Report & notes", "a <b>bold</b> \"quoted\" 'single'", "tabs\tand\nlines\r\nend", "é😀 日本",
        "]]> in text", "  padded  ",
    ])
    func textAndAttributesRoundTrip(value: String) throws {
        var writer = XMLWriter(namespaces: [("", Self.atom)])
        writer.start("entry", namespace: Self.atom, attributes: [("label", value)])
        writer.element("title", namespace: Self.atom, text: value)
        let root = try XDocument.parse(data: Data(writer.finish())).root
        #expect(root.attribute("label") == value)
        #expect(root.child("title", namespace: Self.atom)?.text == value)
    }

    @Test func controlCharactersBecomeReplacementCharacters() throws {
        var writer = XMLWriter()
        writer.element("a", attributes: [("v", "x\u{1}y")], text: "b\u{0}c\u{FFFF}d")
        let root = try XDocument.parse(data: Data(writer.finish())).root
        #expect(root.text == "b\u{FFFD}c\u{FFFD}d")
        #expect(root.attribute("v") == "x\u{FFFD}y")
    }

    @Test func declaredAndGeneratedPrefixes() throws {
        var writer = XMLWriter(namespaces: [("atom", Self.atom), ("cmisra", Self.cmisra)])
        writer.start("entry", namespace: Self.atom)
        writer.element("content", namespace: Self.cmisra, text: "1")
        writer.element("content", namespace: Self.atom, attributes: [("src", "http://h/c?a=1&b=2")])
        writer.start("repositoryInfo", namespace: Self.cmisra)
        writer.element("myDocuments", namespace: "http://www.sap.com/mcm", text: "f-1")
        writer.element("token", namespace: "http://www.sap.com/mcm", text: "t")
        writer.end()
        writer.element("plain", text: "no namespace")
        let bytes = writer.finish()
        let text = String(decoding: bytes, as: UTF8.self)
        #expect(text.hasPrefix("<?xml version=\"1.0\" encoding=\"UTF-8\"?><atom:entry xmlns:atom="))
        #expect(text.contains("<ns1:myDocuments xmlns:ns1=\"http://www.sap.com/mcm\">f-1</ns1:myDocuments>"))
        let root = try XDocument.parse(data: Data(bytes)).root
        #expect(root.child("content", namespace: Self.cmisra)?.text == "1")
        #expect(root.child("content", namespace: Self.atom)?.attribute("src") == "http://h/c?a=1&b=2")
        let info = try #require(root.child("repositoryInfo", namespace: Self.cmisra))
        #expect(info.child("myDocuments", namespace: "http://www.sap.com/mcm")?.text == "f-1")
        #expect(info.child("token", namespace: "http://www.sap.com/mcm")?.text == "t")
        #expect(root.child("plain")?.namespace == nil)
    }

    @Test func streamsInPartsAndClosesEverything() throws {
        var writer = XMLWriter(declaration: false)
        var bytes: [UInt8] = []
        writer.start("feed")
        for index in 0..<100 {
            writer.element("entry", attributes: [("n", String(index))])
            if index % 10 == 0 { bytes += writer.takeBytes() }
        }
        writer.start("open")
        #expect(writer.depth == 2)
        bytes += writer.finish()
        #expect(writer.depth == 0 && writer.byteCount == 0)
        let root = try XDocument.parse(data: Data(bytes)).root
        #expect(root.children("entry").count == 100)
        #expect(root.child("open") != nil)
    }
}
