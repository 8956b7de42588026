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
        "a document declared in UTF-8, or in UTF-16 while its bytes are 8-bit, is held to UTF-8",
        arguments: ["UTF-16", "utf8"])
    func heldToUTF8(_ name: String) throws {
        let bytes = Array("<?xml version=\"1.0\" encoding=\"\(name)\"?>\n<a".utf8) + [0xE7] + Array("b/>".utf8)
        let error = #expect(throws: XMLReadError.self) { try XDocument.parse(data: Data(bytes)) }
        #expect(error?.code == .malformed)
        #expect(error?.line == 2)
        #expect(error?.column == 3, "\(String(describing: error))")
        #expect(error?.message.contains("not UTF-8") == true)
    }

    /// In these, markup can be written without the bytes of `<?` (UTF-7 `+ADw-?l?>`, EBCDIC), or bytes of `<!--`
    /// can stand inside other characters (ISO-2022-JP): the preflight's byte-wise checks would not see what libxml2
    /// reads.
    @Test(
        "an 8-bit document in an encoding that does not keep ASCII, or one the platform does not know, is refused",
        arguments: ["utf-4", "ebcdic-none", "UTF-7", "IBM037", "ISO-2022-JP", "UTF-16LE", "UCS-2", "UTF-32"])
    func refusedEncoding(_ name: String) throws {
        let bytes = Array("<?xml version=\"1.0\" encoding=\"\(name)\"?>\n<a>+ADw-?l?></a>".utf8)
        let error = #expect(throws: XMLReadError.self) { try XDocument.parse(data: Data(bytes)) }
        #expect(error?.line == 1)
        #expect(error?.message.contains("encoding \(name) is not read") == true, "\(String(describing: error))")
    }

    @Test("after a UTF-8 byte order mark the document is UTF-8, whatever its declaration says")
    func byteOrderMarkWins() {
        let bytes =
            [0xEF, 0xBB, 0xBF] + Array("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>\n<a".utf8) + [0xE7]
            + Array("b/>".utf8)
        let error = #expect(throws: XMLReadError.self) { try XDocument.parse(data: Data(bytes)) }
        #expect(error?.message.contains("not UTF-8") == true, "\(String(describing: error))")
    }

    static func wide(_ text: String, _ form: String, mark: Bool) -> [UInt8] {
        let units: [UInt32] = form.hasPrefix("UTF-16") ? text.utf16.map(UInt32.init) : text.unicodeScalars.map(\.value)
        let width = form.hasPrefix("UTF-16") ? 2 : 4
        var bytes: [UInt8] = []
        for unit in (mark ? [0xFEFF] : []) + units {
            let big = (0..<width).reversed().map { UInt8(truncatingIfNeeded: unit >> (8 * $0)) }
            bytes += form.hasSuffix("BE") ? big : big.reversed()
        }
        return bytes
    }

    @Test(
        "UTF-16 and UTF-32 documents are read through UTF-8: processing instructions are blanked there too",
        arguments: [("UTF-16LE", true), ("UTF-16BE", false), ("UTF-32LE", false), ("UTF-32BE", true)])
    func wideEncodings(_ form: String, mark: Bool) throws {
        let text = "<?xml version=\"1.0\" encoding=\"UTF-16\"?>\n<a x=\"\u{E9}\"><b><?l?></b>caf\u{E9} \u{1F600}</a>"
        let document = try XDocument.parse(data: Data(Self.wide(text, form, mark: mark)))
        #expect(document.root.name == "a")
        #expect(document.root.children.map(\.name) == ["b"])
        #expect(document.root.text.trimmingCharacters(in: .whitespaces) == "caf\u{E9} \u{1F600}")
        #expect(document.root.attributes.first?.value == "\u{E9}")
        // A lone surrogate (UTF-16), or a byte count the form cannot have (UTF-32), is not in the encoding.
        let tail: [UInt8] = form.hasPrefix("UTF-32") ? [0xFF] : form.hasSuffix("BE") ? [0xD8, 0x00] : [0x00, 0xD8]
        let broken = Self.wide("<a>", form, mark: mark) + tail
        let error = #expect(throws: XMLReadError.self) { try XDocument.parse(data: Data(broken)) }
        #expect(error?.line == 1)
        #expect(error?.message.contains("not in its encoding") == true, "\(String(describing: error))")
    }

    /// libxml2 recovers from these and reads on, where the preflight's skip would have hidden a processing instruction
    /// without data (the first found by fuzzing, Fuzz/Regressions/xml/pi-after-comment-that-does-not-end.xml).
    @Test(
        "markup the preflight could not follow is refused: a comment, CDATA section or literal that does not end, '<' in an attribute value",
        arguments: [
            ("<??><o<!--x<?x--><??><!--?><?l?>", "a comment that does not end"),
            ("<a><![CDATA[x\n<?l?></a>", "a CDATA section that does not end"),
            ("<a b=\"<!--\"><?l?></a><!-- -->", "'<' inside an attribute value"),
            ("<a b='x>\n", "an attribute value that does not end"),
            ("<!DOCTYPE a SYSTEM \"x>\na/>", "a document type literal that does not end"),
            ("<!DOCTYPE a SYSTEM \"x><a><?l?></a>", "'<' inside a document type literal"),
            // Found by fuzzing (pi-after-comment-with-a-control-character.xml): libxml2 ends a comment at U+0011.
            ("<?<??><o<!--\u{11}<?x--><??><!--?><?l?>s-->", "a character XML does not allow"),
            ("<a>\u{FFFE}</a>", "a character XML does not allow"),
        ])
    func unfollowableMarkup(_ text: String, _ what: String) {
        let error = #expect(throws: XMLReadError.self) { try XDocument.parse(data: Data(text.utf8)) }
        #expect(error?.code == .malformed)
        #expect(error?.message.contains(what) == true, "\(String(describing: error))")
    }

    /// Found in review: a character reference in an entity value spells a processing instruction the bytes do not
    /// show. Found by fuzzing: markup inside a malformed document type declaration.
    @Test("a DTD internal subset is refused; a document type declaration holds no '<' and is UTF-8")
    func documentTypeDeclarations() throws {
        let entity = "<!DOCTYPE a [<!ENTITY e \"&#60;?l?>\">]>\n<a>&e;</a>"
        let error = #expect(throws: XMLReadError.self) { try XDocument.parse(data: Data(entity.utf8)) }
        #expect(error?.code == .entityRejected)
        #expect(error?.line == 1)
        #expect(error?.column == 13, "\(String(describing: error))")
        let plain = "<!DOCTYPE a SYSTEM \"a.dtd\"><a><?l?>x</a>"
        #expect(try XDocument.parse(data: Data(plain.utf8)).root.text.trimmingCharacters(in: .whitespaces) == "x")
        // No `<` in a declaration without an internal subset, in a literal or not: libxml2 recovers from a malformed
        // one and reads the markup inside (fuzzing: a processing instruction whose name is not UTF-8, a trap).
        let hidden: [([UInt8], Int)] = [
            (Array("<!DOCTYPE".utf8) + [0xEC] + Array("=<?x".utf8) + [0xE3] + Array("ml v=\"1\"?><a/>".utf8), 12),
            (Array("<!DOCTYPE a SYSTEM \"<!--\"><a><?l?>x</a>".utf8), 21),
            (Array("<!DOCTYPE a \"> <?x".utf8) + [0xE3] + Array("?> \"><a/>".utf8), 16),
        ]
        for (bytes, column) in hidden {
            let error = #expect(throws: XMLReadError.self) { try XDocument.parse(data: Data(bytes)) }
            #expect(error?.code == .malformed)
            #expect(error?.column == column, "\(String(describing: error))")
        }
        // A name in the declaration must be UTF-8 like any other.
        let name = Array("<!DOCTYPE ".utf8) + [0xE3] + Array("a><a/>".utf8)
        let nameError = #expect(throws: XMLReadError.self) { try XDocument.parse(data: Data(name)) }
        #expect(nameError?.column == 11, "\(String(describing: nameError))")
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
