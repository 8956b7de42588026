/// UTF-16 and UTF-32 documents, recognised as XML 1.0 Appendix F says (a byte order mark, or `<` written in two or
/// four bytes), are transcoded to UTF-8 before the preflight's byte-wise checks and the parser see them.
extension XMLPreflight {
    enum WideEncoding: String {
        case utf16BigEndian = "UTF-16BE", utf16LittleEndian = "UTF-16LE"
        case utf32BigEndian = "UTF-32BE", utf32LittleEndian = "UTF-32LE"

        /// The form the first bytes show, and the length of its byte order mark; nil for 8-bit documents.
        static func detect(_ bytes: UnsafeRawBufferPointer) -> (WideEncoding, markLength: Int)? {
            func at(_ index: Int) -> UInt8? { index < bytes.count ? bytes[index] : nil }
            let (first, second, third, fourth) = (at(0), at(1), at(2), at(3))
            switch (first, second, third, fourth) {
            case (0, 0, 0xFE, 0xFF): return (.utf32BigEndian, 4)
            case (0xFF, 0xFE, 0, 0): return (.utf32LittleEndian, 4)
            case (0xFE, 0xFF, _, _): return (.utf16BigEndian, 2)
            case (0xFF, 0xFE, _, _): return (.utf16LittleEndian, 2)
            case (0, 0, 0, .some): return (.utf32BigEndian, 0)
            case (.some(let byte), 0, 0, 0) where byte != 0: return (.utf32LittleEndian, 0)
            case (0, .some, _, _): return (.utf16BigEndian, 0)
            case (.some, 0, _, _): return (.utf16LittleEndian, 0)
            default: return nil
            }
        }

        var width: Int { self == .utf16BigEndian || self == .utf16LittleEndian ? 2 : 4 }
        var isBigEndian: Bool { self == .utf16BigEndian || self == .utf32BigEndian }

        /// The code unit at `index`.
        func unit(_ bytes: UnsafeRawBufferPointer, at index: Int) -> UInt32 {
            var value: UInt32 = 0
            for offset in 0..<width {
                let byte = UInt32(bytes[index + (isBigEndian ? offset : width - 1 - offset)])
                value = value << 8 | byte
            }
            return value
        }
    }

    /// The document in UTF-8 when it is in UTF-16 or UTF-32, its XML declaration (which must be well-formed) saying
    /// so; nil for a document in 8-bit bytes. Throws, at line 1, for bytes that are not in the form they start in.
    static func transcode(_ bytes: UnsafeRawBufferPointer) throws(XMLReadError) -> [UInt8]? {
        guard let (form, markLength) = WideEncoding.detect(bytes) else { return nil }
        let notInEncoding = XMLReadError(
            code: .malformed,
            message: "the document's bytes are not in its encoding (\(form.rawValue), as its first bytes say)",
            line: 1, column: 1)
        guard (bytes.count - markLength) % form.width == 0 else { throw notInEncoding }
        let offsets = stride(from: markLength, to: bytes.count, by: form.width)
        var utf8: [UInt8] = []
        utf8.reserveCapacity(bytes.count)
        let failed =
            form.width == 2
            ? Swift.transcode(
                offsets.lazy.map { UInt16(form.unit(bytes, at: $0)) }.makeIterator(), from: UTF16.self,
                to: UTF8.self, stoppingOnError: true
            ) { utf8.append($0) }
            : Swift.transcode(
                offsets.lazy.map { form.unit(bytes, at: $0) }.makeIterator(), from: UTF32.self, to: UTF8.self,
                stoppingOnError: true
            ) { utf8.append($0) }
        guard !failed else { throw notInEncoding }
        let declarationEnd = utf8.withUnsafeBytes { text in
            Result { () throws(XMLReadError) -> Int? in
                isDeclaration(text, at: 0) ? try parseDeclaration(text, at: 0).end : nil
            }
        }
        guard let end = try declarationEnd.get() else { return utf8 }
        // The declaration names the encoding the parser will read: UTF-8 now. Its line breaks stay, so lines do.
        let lineBreaks = utf8[0..<end].filter { $0 == 0x0A }.count
        return Array("<?xml version=\"1.0\" encoding=\"UTF-8\"?>".utf8) + [UInt8](repeating: 0x0A, count: lineBreaks)
            + utf8[end...]
    }
}
