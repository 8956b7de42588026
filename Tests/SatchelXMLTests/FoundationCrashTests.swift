import Foundation
import SatchelXML
import Testing

/// Inputs that crash swift-corelibs-foundation's `XMLParser` (found by the `xml` fuzz target; the minimised inputs
/// are in `Fuzz/Regressions/xml`): the reader never hands them to it as they are.
@Suite("XML the platform parser would crash on")
struct FoundationCrashTests {
    @Test("a processing instruction without data is skipped, from memory and from a file")
    func processingInstructionWithoutData() throws {
        let text = "<?xml version=\"1.0\"?>\n<?l?><a x=\"1\">t<?pi?>\n<b/></a><?end?>"
        let document = try XDocument.parse(data: Data(text.utf8))
        #expect(document.root.name == "a")
        #expect(document.root.children.map(\.name) == ["b"])
        #expect(document.root.attributes.first?.value == "1")

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-pi-\(UUID()).xml")
        try Data(text.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        #expect(try XDocument.parse(contentsOf: file).root.children.map(\.name) == ["b"])

        // Alone, it is a document without a root, and says so.
        let error = #expect(throws: XMLReadError.self) { try XDocument.parse(data: Data("<?l?>".utf8)) }
        #expect(error?.code == .empty)
        // After a malformed declaration, which libxml2 skips only to its first '>' (found by fuzzing).
        for text in ["<?xml versi>\n<a><?l?></a>", "<?xml version=\"1.0\" encoding=\">\n<a><?l?></a>"] {
            #expect(throws: XMLReadError.self, "\(text)") { try XDocument.parse(data: Data(text.utf8)) }
        }
        // In comments and CDATA it is text, and stays.
        let kept = try XDocument.parse(data: Data("<a><![CDATA[<?l?>]]><!-- <?m?> --></a>".utf8))
        #expect(kept.root.text == "<?l?>")
    }

    @Test(
        "bytes that are not UTF-8 in a UTF-8 document are refused with their line and column",
        arguments: [
            ([0x3C, 0xE3, 0x72, 0x65, 0x61, 0x2F, 0x3E], 1, 2),  // <\xE3rea/>: an element name
            (Array("<a>\n<b ".utf8) + [0xC3, 0x28] + Array("=\"1\"/></a>".utf8), 2, 4),  // an attribute name
            (Array("<a><!-- ".utf8) + [0xED, 0xA0, 0x80] + Array(" --></a>".utf8), 1, 9),  // a surrogate, in a comment
        ] as [([UInt8], Int, Int)])
    func notUTF8(_ bytes: [UInt8], line: Int, column: Int) {
        let error = #expect(throws: XMLReadError.self) { try XDocument.parse(data: Data(bytes)) }
        #expect(error?.code == .malformed)
        #expect(error?.line == line)
        #expect(error?.column == column, "\(String(describing: error))")
        #expect(error?.message.contains("not UTF-8") == true)
    }

    @Test(
        "a document declaring an encoding the platform does not convert from is held to UTF-8",
        arguments: ["utf-4", "UTF-16", "ebcdic-none"])
    func heldToUTF8(_ name: String) throws {
        let bytes = Array("<?xml version=\"1.0\" encoding=\"\(name)\"?>\n<a".utf8) + [0xE7] + Array("b/>".utf8)
        let error = #expect(throws: XMLReadError.self) { try XDocument.parse(data: Data(bytes)) }
        #expect(error?.code == .malformed)
        #expect(error?.line == 2)
        #expect(error?.column == 3, "\(String(describing: error))")
        #expect(error?.message.contains("not UTF-8") == true)
    }

    /// libxml2 reads on after a malformed declaration from its next `>`, in an encoding of its choosing: found by
    /// fuzzing, it read a name that was not UTF-8 (a trap) and a processing instruction without data (SIGSEGV).
    @Test(
        "a malformed XML declaration is refused where the grammar stops",
        arguments: [
            ("<?xml version=\"1.0\" encoding\"=utf-8\"?>", 21),
            ("<?xml version=\"1.0\" encoding=\"=ISO-8859-1\"?>", 0),  // iconv strips the '='; libxml2 does not
            ("<?xml version=\"1.0\" encoding=\"U\u{A0}TF-8\"?>", 0),
            ("<?xml version=\"1.0\" encoding==\"ISO-8859-1\"?>", 0),
            ("<?xml version=\"1.0\"encoding=\"ISO-8859-1\"?>", 0),
            ("<?xml version=\"1.0\" encoding=\"ISO-8859-1\" standalone=\"maybe\"?>", 0),
            ("<?xml version=\"1.0\" encoding=\"ISO-8859-1\" ?? >", 0),
            ("<?xml encoding=\"ISO-8859-1\"?>", 6),
            ("<?xml versi<!-->", 6),
            ("<?xml version=\"1.0\" encoding=\">", 0),
        ] as [(String, Int)])
    func malformedDeclaration(_ declaration: String, column: Int) throws {
        let bytes = Array("\(declaration)\n<a".utf8) + [0xE7] + Array("b><?l?></a".utf8) + [0xE7] + Array("b>".utf8)
        let error = #expect(throws: XMLReadError.self) { try XDocument.parse(data: Data(bytes)) }
        #expect(error?.code == .malformed)
        #expect(error?.line == 1)
        if column > 0 { #expect(error?.column == column, "\(String(describing: error))") }
        #expect(error?.message.contains("XML declaration is malformed") == true, "\(String(describing: error))")
    }

    @Test(
        "a document declared in another encoding is read in it",
        arguments: [
            "<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>",
            "<?xml version='1.0' encoding='iso-8859-1' standalone='yes' ?>",
            "<?xml version = \"1.0\"\n encoding = \"latin1\"\tstandalone=\"no\"?>",
        ])
    func latin1(_ declaration: String) throws {
        let bytes =
            Array("\(declaration)<caf".utf8) + [0xE9] + Array(">na".utf8)
            + [0xEF] + Array("ve</caf".utf8) + [0xE9] + Array(">".utf8)
        let document = try XDocument.parse(data: Data(bytes))
        #expect(document.root.name == "café")
        #expect(document.root.text == "naïve")
    }
}
