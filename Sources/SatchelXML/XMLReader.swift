import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif

/// Runs `XMLParser` over an input with the builder as delegate and turns its outcome into ``XMLReadError``s.
enum XMLReader {
    /// Where the bytes come from.
    enum Input {
        case data(Data)
        case file(URL)
    }

    /// Parses `input`, returning the root element (elements delivered through the builder excepted).
    static func read(_ input: Input, limits: XMLReadLimits, builder: TreeBuilder) throws -> XElement {
        let stream: InputStream
        switch input {
        case .data(let data):
            try checkSize(data.count, limits)
            let checked = try data.withUnsafeBytes { bytes throws(XMLReadError) in
                try XMLPreflight.check(bytes, limits: limits)
            }
            // Always the stream initialiser: `XMLParser(data:)` hands libxml2 one chunk, which it refuses over
            // about 10 MB. Streaming is as fast and keeps a single code path.
            stream = InputStream(data: checked.map { Data($0) } ?? data)
        case .file(let url):
            let size = (try? FileManager.default.attributesOfItem(atPath: url.path)[.size] as? NSNumber)?.intValue
            guard let size, let fileStream = InputStream(url: url) else {
                throw XMLReadError(code: .unreadable, message: "cannot open \(url.path)")
            }
            try checkSize(size, limits)
            // The preflight reads the file mapped; only a document it changes is parsed from memory.
            guard let mapped = try? Data(contentsOf: url, options: .alwaysMapped) else {
                throw XMLReadError(code: .unreadable, message: "cannot read \(url.path)")
            }
            let checked = try mapped.withUnsafeBytes { bytes throws(XMLReadError) in
                try XMLPreflight.check(bytes, limits: limits)
            }
            stream = checked.map { InputStream(data: Data($0)) } ?? fileStream
        }
        let parser = FoundationXMLParser(stream: stream)
        parser.shouldProcessNamespaces = true
        parser.shouldReportNamespacePrefixes = true
        // No external DTDs or entities: XXE must not read files or URLs.
        parser.shouldResolveExternalEntities = false
        parser.delegate = builder
        let succeeded = parser.parse()
        if let failure = builder.failure { throw failure }
        if !succeeded { throw error(from: parser, first: builder.firstError) }
        if builder.isOpen {
            // The stream path does not flag a document that simply stops: a truncated download.
            throw XMLReadError(
                code: .unexpectedEnd, message: "the document ends before its root element is closed",
                line: parser.lineNumber, column: parser.columnNumber)
        }
        guard let root = builder.root else {
            throw XMLReadError(
                code: .empty, message: "the document has no root element", line: parser.lineNumber,
                column: parser.columnNumber)
        }
        return root
    }

    private static func checkSize(_ size: Int, _ limits: XMLReadLimits) throws {
        if size > limits.maxDocumentSize {
            throw XMLReadError(
                code: .limitExceeded, message: "document of \(size) bytes is larger than \(limits.maxDocumentSize)")
        }
    }

    /// The document's first fault, where it is (`first`, as the delegate saw it), else what the parser says at the
    /// end.
    private static func error(
        from parser: FoundationXMLParser, first: (error: NSError, line: Int, column: Int)?
    ) -> XMLReadError {
        // Linux's XMLParser reports libxml2's error number (the same numbering on Apple platforms), usually
        // without a message; the number picks our code and message.
        let nsError = first?.error ?? parser.parserError.map { $0 as NSError }
        let parserCode = nsError?.code
        let parserMessage = nsError?.userInfo[NSLocalizedDescriptionKey] as? String
        let (code, message) =
            parserCode.flatMap { libxml2Errors[$0] } ?? (.malformed, "the document is not well-formed XML")
        // A document that cannot be decoded fails before libxml2 counts a line: it is at the start.
        let line = first?.line ?? parser.lineNumber
        let column = first?.column ?? parser.columnNumber
        return XMLReadError(
            code: code, message: message, line: max(line, 1), column: line < 1 ? 1 : column,
            parserMessage: parserMessage, parserCode: parserCode)
    }

    /// The libxml2 errors (`xmlParserErrors`) worth telling apart; anything else is `.malformed`.
    private static let libxml2Errors: [Int: (XMLReadError.Code, String)] = [
        4: (.empty, "the document is empty"),
        5: (.malformed, "extra content after the root element"),
        26: (.entityRejected, "reference to an undeclared entity"),
        27: (.entityRejected, "reference to an undeclared entity"),
        29: (.entityRejected, "reference to an unparsed entity"),
        30: (.entityRejected, "entity reference inside an attribute value is not allowed"),
        41: (.malformed, "attribute without a value"),
        42: (.malformed, "attribute given twice"),
        73: (.malformed, "'>' expected"),
        76: (.malformed, "end tag does not match its start tag"),
        77: (.unexpectedEnd, "the document ends inside an element"),
        89: (.entityRejected, "entity expansion loops or amplifies too much"),
        99: (.malformed, "a namespace name that is not a URI"),
        100: (.malformed, "a namespace name that is a relative URI"),
        102: (.malformed, "xml:space is neither default nor preserve"),
        104: (.entityRejected, "entity reference depth exceeded"),
        200: (.malformed, "the xml prefix or namespace bound to another name"),
        201: (.malformed, "a namespace prefix that is not declared"),
        203: (.malformed, "attribute given twice, through two prefixes of one namespace"),
        204: (.malformed, "a namespace prefix bound to the empty name"),
        6001: (.malformed, "the document's encoding is not supported"),
        6003: (.malformed, "the document's bytes are not in its encoding (UTF-16 when its first bytes say so)"),
    ]
}
