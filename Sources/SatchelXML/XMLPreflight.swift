import Foundation
import SatchelText

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A pass over a document before `XMLParser` sees it, for inputs that crash swift-corelibs-foundation's parser
/// (found by fuzzing, `docs/fuzzing.md`):
///
/// - a name that is not UTF-8 (`<\u{E3}rea/>`) traps in its start-element callback;
/// - a processing instruction without data (`<?l?>`) makes its callback read a null string.
///
/// So the preflight makes sure the bytes it checks are the characters libxml2 will read: documents in UTF-16 and
/// UTF-32 are transcoded to UTF-8 first; an 8-bit document is read only in UTF-8 or in an encoding that keeps ASCII as
/// it is (ISO-8859, Windows code pages), others (UTF-7, EBCDIC, unknown names) are refused; a malformed XML
/// declaration is refused (libxml2 reads on after it in ways the preflight cannot follow), and so is a DTD internal
/// subset (its entities can spell markup the bytes do not show). A document that is (or says nothing else than being)
/// UTF-8 must be UTF-8 throughout: XML requires it, and the reader refuses it otherwise with the byte's line and
/// column. Processing instructions other than the XML declaration carry nothing Satchel reads: they are blanked
/// (spaces, line ends kept, so positions stay right).
package enum XMLPreflight {
    /// Checks `bytes`; returns the bytes to parse instead when a processing instruction was blanked, nil when the
    /// document can be parsed as it is. An element with more attributes than `limits` allows is refused here,
    /// before libxml2, whose checks for duplicate attributes grow with the square of their count.
    package static func check(
        _ bytes: UnsafeRawBufferPointer, limits: XMLReadLimits = .default
    ) throws(XMLReadError) -> [UInt8]? {
        // UTF-16 and UTF-32 (a byte order mark, or `<` in two or four bytes) are read here and parsed as UTF-8, so
        // that the byte-wise checks below apply to them too.
        if let utf8 = try transcode(bytes) {
            let checked = utf8.withUnsafeBytes { text in
                Result { () throws(XMLReadError) in try check(text, limits: limits) }
            }
            return try checked.get() ?? utf8
        }
        let count = bytes.count
        var validatesUTF8 = true
        var index = 0
        let bom = starts(bytes, at: 0, with: "\u{FEFF}") ? 3 : 0
        if isDeclaration(bytes, at: bom) {
            let declaration = try parseDeclaration(bytes, at: bom)
            // After a UTF-8 byte order mark the document is UTF-8, whatever it declares.
            if let encoding = declaration.encoding, bom == 0 { validatesUTF8 = try readsAsUTF8(encoding) }
            index = declaration.end
        }
        // Characters XML does not allow at all: libxml2 stops a comment or a name at one and reads on from there,
        // where the preflight's skips would not (fuzzing: a U+0011 inside a comment).
        for offset in 0..<count {
            let byte = bytes[offset]
            let forbidden =
                byte < 0x20
                ? byte != 0x09 && byte != 0x0A && byte != 0x0D
                : validatesUTF8 && byte == 0xEF && offset + 2 < count && bytes[offset + 1] == 0xBF
                    && bytes[offset + 2] >= 0xBE
            if forbidden {
                throw refusal(
                    bytes, at: offset, code: .malformed,
                    "byte \(offset) is a character XML does not allow (a control character, U+FFFE or U+FFFF)")
            }
        }
        var blanks: [Range<Int>] = []
        while index < count {
            let byte = bytes[index]
            if byte < 0x80 {
                if byte == UInt8(ascii: "<"), index + 1 < count {
                    index = try markup(
                        bytes, at: index, validatingUTF8: validatesUTF8, maxAttributes: limits.maxAttributes,
                        blanks: &blanks)
                } else {
                    index += 1
                }
                continue
            }
            if validatesUTF8 {
                guard let length = utf8Length(bytes, at: index) else {
                    throw notUTF8(bytes, at: index)
                }
                index += length
            } else {
                index += 1
            }
        }
        guard !blanks.isEmpty else { return nil }
        var copy = Array(bytes)
        for range in blanks {
            for position in range where copy[position] != 0x0A && copy[position] != 0x0D { copy[position] = 0x20 }
        }
        return copy
    }

    /// Steps over the markup starting with `<` at `start`: comments and CDATA sections whole (checking their UTF-8),
    /// processing instructions noted for blanking. Returns where scanning goes on.
    private static func markup(
        _ bytes: UnsafeRawBufferPointer, at start: Int, validatingUTF8: Bool, maxAttributes: Int,
        blanks: inout [Range<Int>]
    ) throws(XMLReadError) -> Int {
        let next = bytes[start + 1]
        if next == UInt8(ascii: "?") {
            let end = find(Array("?>".utf8), in: bytes, from: start + 2).map { $0 + 2 } ?? bytes.count
            blanks.append(start..<end)
            try checkUTF8(bytes, start..<end, validating: validatingUTF8)
            return end
        }
        if next == UInt8(ascii: "!") {
            let terminator: [UInt8]? =
                starts(bytes, at: start, with: "<!--")
                ? Array("-->".utf8)
                : starts(bytes, at: start, with: "<![CDATA[") ? Array("]]>".utf8) : nil
            if let terminator {
                // One that does not end is refused: libxml2 recovers from it and reads on, where the skip would not.
                guard let found = find(terminator, in: bytes, from: start + 4) else {
                    let what = terminator == Array("-->".utf8) ? "a comment" : "a CDATA section"
                    throw malformed(bytes, at: start, "\(what) that does not end")
                }
                let end = found + terminator.count
                try checkUTF8(bytes, start..<end, validating: validatingUTF8)
                return end
            }
            if starts(bytes, at: start, with: "<!DOCTYPE") {
                return try doctype(bytes, at: start, validatingUTF8: validatingUTF8)
            }
            return start + 1
        }
        return try tag(bytes, at: start, validatingUTF8: validatingUTF8, maxAttributes: maxAttributes)
    }

    /// Steps over a start or end tag to its `>`, its attribute values whole. `<` is never allowed in an attribute
    /// value; it is refused there, because libxml2 recovers from it and would read a processing instruction the
    /// skip hid (`<a b="<!--"><?l?>…`). Where a tag is cut off by another `<`, scanning goes on from that one.
    /// Each attribute has one quoted value: more than `maxAttributes` of them (namespace declarations included) is
    /// refused.
    private static func tag(
        _ bytes: UnsafeRawBufferPointer, at start: Int, validatingUTF8: Bool, maxAttributes: Int
    ) throws(XMLReadError) -> Int {
        var index = start + 1
        var attributes = 0
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                attributes += 1
                guard attributes <= maxAttributes else {
                    throw refusal(
                        bytes, at: start, code: .limitExceeded,
                        "an element has more than \(maxAttributes) attributes (XMLReadLimits.maxAttributes)")
                }
                index = try skipQuoted(bytes, at: index, "an attribute value")
            case UInt8(ascii: ">"):
                try checkUTF8(bytes, start..<(index + 1), validating: validatingUTF8)
                return index + 1
            case UInt8(ascii: "<"):
                try checkUTF8(bytes, start..<index, validating: validatingUTF8)
                return index
            default:
                break
            }
            index += 1
        }
        try checkUTF8(bytes, start..<bytes.count, validating: validatingUTF8)
        return bytes.count
    }

    /// The index of the quote closing the literal that opens at `start` (`"` or `'`). A `<` inside is refused: XML
    /// allows none in an attribute value, a system or a public identifier.
    private static func skipQuoted(
        _ bytes: UnsafeRawBufferPointer, at start: Int, _ what: String
    ) throws(XMLReadError) -> Int {
        let quote = bytes[start]
        var index = start + 1
        while index < bytes.count, bytes[index] != quote {
            if bytes[index] == UInt8(ascii: "<") {
                throw malformed(bytes, at: index, "'<' inside \(what)")
            }
            index += 1
        }
        guard index < bytes.count else { throw malformed(bytes, at: start, "\(what) that does not end") }
        return index
    }

    private static func malformed(_ bytes: UnsafeRawBufferPointer, at index: Int, _ what: String) -> XMLReadError {
        refusal(bytes, at: index, code: .malformed, "the document has \(what)")
    }

    /// An error at `index`, with its line and column.
    private static func refusal(
        _ bytes: UnsafeRawBufferPointer, at index: Int, code: XMLReadError.Code, _ message: String
    ) -> XMLReadError {
        let (line, column) = position(bytes, of: index)
        return XMLReadError(code: code, message: message, line: line, column: column)
    }

    /// Steps over `<!DOCTYPE …>`, its quoted literals whole. An internal subset is refused: its entity declarations
    /// can spell markup the bytes do not show (`<!ENTITY e "&#60;?l?>">` is a processing instruction where `&e;` is
    /// used), and no format Satchel reads has one. Without one, the declaration holds no `<`, so a `<` in it (in a
    /// literal or not) is refused: libxml2 recovers from a malformed declaration and reads on from the markup it
    /// finds inside (fuzzing: `<!DOCTYPE\xEC=<?x\xE3ml …?>` hid a processing instruction whose name is not UTF-8).
    private static func doctype(
        _ bytes: UnsafeRawBufferPointer, at start: Int, validatingUTF8: Bool
    ) throws(XMLReadError) -> Int {
        var index = start + 9
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: "\""), UInt8(ascii: "'"):
                index = try skipQuoted(bytes, at: index, "a document type literal")
            case UInt8(ascii: "<"):
                throw malformed(bytes, at: index, "'<' inside a document type declaration")
            case UInt8(ascii: "["):
                throw refusal(
                    bytes, at: index, code: .entityRejected,
                    "the document type declaration has an internal subset (entity declarations), "
                        + "which Satchel does not read")
            case UInt8(ascii: ">"):
                try checkUTF8(bytes, start..<(index + 1), validating: validatingUTF8)
                return index + 1
            default:
                break
            }
            index += 1
        }
        throw malformed(bytes, at: start, "a document type declaration that does not end")
    }

    /// `<?xml` followed by white space at `start`, the very start of the document (after a UTF-8 byte order mark).
    static func isDeclaration(_ bytes: UnsafeRawBufferPointer, at start: Int) -> Bool {
        guard starts(bytes, at: start, with: "<?xml"), start + 5 < bytes.count else { return false }
        return [0x20, 0x09, 0x0A, 0x0D].contains(bytes[start + 5])
    }

    /// Whether a document in 8-bit bytes declared in `encoding` must be UTF-8 throughout: UTF-8 itself, and UTF-16
    /// (which 8-bit bytes cannot be in: libxml2 reads them as UTF-8). Otherwise only encodings that keep ASCII as it
    /// is are read (US-ASCII, ISO-8859, Windows code pages, KOI8), so that the byte-wise checks see the markup
    /// libxml2 will see; UTF-7, EBCDIC, ISO-2022 and names this platform does not know are refused.
    private static func readsAsUTF8(_ encoding: String) throws(XMLReadError) -> Bool {
        let name = encoding.lowercased()
        if ["utf-8", "utf8", "utf-16", "utf16"].contains(name) { return true }
        guard keepsASCII(name), converts(from: encoding) else {
            throw XMLReadError(
                code: .malformed,
                message: "the document's encoding \(encoding) is not read: Satchel reads XML in UTF-8, UTF-16, UTF-32, "
                    + "US-ASCII, ISO-8859, KOI8 and Windows code pages",
                line: 1, column: 1)
        }
        return false
    }

    /// Single-byte encodings whose first 128 bytes are ASCII.
    private static func keepsASCII(_ name: String) -> Bool {
        if ["us-ascii", "ascii", "latin1", "l1", "koi8-r", "koi8-u"].contains(name) { return true }
        func number(after prefix: String) -> Int? { name.hasPrefix(prefix) ? Int(name.dropFirst(prefix.count)) : nil }
        if let part = number(after: "iso-8859-") ?? number(after: "iso8859-") ?? number(after: "iso_8859-") {
            return (1...16).contains(part) && part != 12
        }
        if let page = number(after: "windows-") ?? number(after: "cp") { return (1250...1258).contains(page) }
        return false
    }

    /// The XML declaration at `start`, which must follow the grammar to its `?>`:
    /// `<?xml` VersionInfo EncodingDecl? SDDecl? S? `?>`. libxml2 recovers from a malformed one by skipping to its
    /// next `>` and reading on, in an encoding of its choosing (`encoding"=utf-8"`, or `"=ISO-8859-1"`, which the
    /// platform's conversion would take by quietly stripping the `=`): the preflight could not follow that reading,
    /// so a malformed declaration is refused, at the place the grammar stops.
    static func parseDeclaration(
        _ bytes: UnsafeRawBufferPointer, at start: Int
    ) throws(XMLReadError) -> (encoding: String?, end: Int) {
        var cursor = DeclarationCursor(bytes: bytes, index: start + 5)
        func malformed() -> XMLReadError {
            refusal(
                bytes, at: cursor.index, code: .malformed,
                "the XML declaration is malformed: expected <?xml version=\"1.x\" followed by an optional "
                    + "encoding=\"name\" and standalone=\"yes|no\", then ?>")
        }
        guard let version = cursor.pseudoAttribute("version"),
            version.count >= 3, version.starts(with: Array("1.".utf8)),
            version.dropFirst(2).allSatisfy({ (0x30...0x39).contains($0) })
        else { throw malformed() }
        let encoding = cursor.pseudoAttribute("encoding")
        if let encoding {
            guard let first = encoding.first, isASCIILetter(first),
                encoding.dropFirst().allSatisfy({
                    isASCIILetter($0) || (0x30...0x39).contains($0) || $0 == 0x2E || $0 == 0x5F || $0 == 0x2D
                })
            else { throw malformed() }
        }
        if let standalone = cursor.pseudoAttribute("standalone") {
            guard standalone == Array("yes".utf8) || standalone == Array("no".utf8) else { throw malformed() }
        }
        cursor.skipSpace()
        guard cursor.consume("?>") else { throw malformed() }
        return (encoding.map { String(decoding: $0, as: UTF8.self) }, cursor.index)
    }

    private static func isASCIILetter(_ byte: UInt8) -> Bool { (0x41...0x5A).contains(byte & 0xDF) }

    /// Reads the pseudo-attributes of an XML declaration.
    private struct DeclarationCursor {
        let bytes: UnsafeRawBufferPointer
        var index: Int

        /// S `name` S? `=` S? and a quoted value, or nil (the cursor unmoved) when the next pseudo-attribute is not
        /// `name` or is malformed.
        mutating func pseudoAttribute(_ name: String) -> [UInt8]? {
            let saved = index
            guard skipSpace() > 0, consume(name) else {
                index = saved
                return nil
            }
            skipSpace()
            guard consume("=") else {
                index = saved
                return nil
            }
            skipSpace()
            guard index < bytes.count, bytes[index] == 0x22 || bytes[index] == 0x27 else {
                index = saved
                return nil
            }
            let quote = bytes[index]
            let valueStart = index + 1
            var end = valueStart
            while end < bytes.count, bytes[end] != quote, bytes[end] != 0x3C { end += 1 }
            guard end < bytes.count, bytes[end] == quote else {
                index = saved
                return nil
            }
            index = end + 1
            return Array(bytes[valueStart..<end])
        }

        @discardableResult
        mutating func skipSpace() -> Int {
            let start = index
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
            return index - start
        }

        mutating func consume(_ text: String) -> Bool {
            guard XMLPreflight.starts(bytes, at: index, with: text) else { return false }
            index += text.utf8.count
            return true
        }
    }

    /// Whether the platform's character set conversion (which libxml2 uses) knows the encoding `name`.
    private static func converts(from name: String) -> Bool {
        guard name.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }), let converter = iconv_open("UTF-8", name),
            converter != iconv_t(bitPattern: -1)
        else { return false }
        iconv_close(converter)
        return true
    }

    private static func checkUTF8(
        _ bytes: UnsafeRawBufferPointer, _ range: Range<Int>, validating: Bool
    ) throws(XMLReadError) {
        guard validating else { return }
        var index = range.lowerBound
        while index < range.upperBound {
            if bytes[index] < 0x80 {
                index += 1
            } else if let length = utf8Length(bytes, at: index) {
                index += length
            } else {
                throw notUTF8(bytes, at: index)
            }
        }
    }

    /// The length of the well-formed UTF-8 sequence at `index` (RFC 3629: no overlong forms, no surrogates,
    /// nothing above U+10FFFF), or nil.
    private static func utf8Length(_ bytes: UnsafeRawBufferPointer, at index: Int) -> Int? {
        guard let (length, low, high) = UTF8Sequence.shape(lead: bytes[index]) else { return nil }
        guard index + length <= bytes.count else { return nil }
        guard (low...high).contains(bytes[index + 1]) else { return nil }
        for offset in 2..<length where !(0x80...0xBF).contains(bytes[index + offset]) { return nil }
        return length
    }

    private static func notUTF8(_ bytes: UnsafeRawBufferPointer, at index: Int) -> XMLReadError {
        refusal(
            bytes, at: index, code: .malformed,
            "byte \(index) is not UTF-8 (0x\(String(bytes[index], radix: 16, uppercase: true))), "
                + "in a document that is UTF-8")
    }

    /// The line and column (from 1, in bytes) of `index`.
    private static func position(_ bytes: UnsafeRawBufferPointer, of index: Int) -> (line: Int, column: Int) {
        var line = 1
        var lineStart = 0
        for position in 0..<min(index, bytes.count) where bytes[position] == 0x0A {
            line += 1
            lineStart = position + 1
        }
        return (line, index - lineStart + 1)
    }

    private static func starts(_ bytes: UnsafeRawBufferPointer, at start: Int, with prefix: String) -> Bool {
        let prefix = Array(prefix.utf8)
        guard start + prefix.count <= bytes.count else { return false }
        for (offset, byte) in prefix.enumerated() where bytes[start + offset] != byte { return false }
        return true
    }

    private static func find(_ needle: [UInt8], in bytes: UnsafeRawBufferPointer, from start: Int) -> Int? {
        guard let first = needle.first, needle.count <= bytes.count else { return nil }
        var index = start
        while index + needle.count <= bytes.count {
            if bytes[index] == first {
                var matched = true
                for offset in 1..<needle.count where bytes[index + offset] != needle[offset] {
                    matched = false
                    break
                }
                if matched { return index }
            }
            index += 1
        }
        return nil
    }
}
