import Foundation
#if canImport(FoundationXML)
    import FoundationXML
#endif
#if canImport(FoundationXML)
    import FoundationXML
#endif

/// The `XMLParser` delegate that builds ``XElement`` trees. Single use, confined to the parsing call.
///
/// Text arrives in many small `foundCharacters` pieces (entities and CDATA split it); they are collected per
/// element and joined once when the element ends, never appended character by character.
final class TreeBuilder: NSObject, FoundationXMLParserDelegate {
    /// An element that has started but not ended yet.
    private struct OpenElement {
        var name: String
        var namespace: String?
        var qualifiedName: String
        var attributes: [XAttribute]
        var declarations: [String: String]
        var pieces: [String] = []
        var textBytes = 0
        var children: [XElement] = []
    }

    private let limits: XMLReadLimits
    private let split: (name: String, namespace: String?, topLevelOnly: Bool)?
    private let deliver: ((XElement) throws -> Void)?

    private var stack: [OpenElement] = []
    private var pendingDeclarations: [String: String] = [:]
    private var elementCount = 0
    private(set) var root: XElement?
    /// Whether an element has started and not ended: at the end of input, a truncated document.
    var isOpen: Bool { !stack.isEmpty }
    /// Set when the builder itself stopped the parse: a limit, or an error thrown by `deliver`.
    private(set) var failure: (any Error)?
    /// The parser's first error where it happened (libxml2 recovers and goes on, and at the end the parser tells
    /// only its last error and where the last chunk it read ended).
    private(set) var firstError: (error: NSError, line: Int, column: Int)?

    /// - Parameters:
    ///   - split: elements to hand to `deliver` as soon as they end, instead of attaching them to their parent
    ///     (with `topLevelOnly`, only those whose parent is the root).
    init(
        limits: XMLReadLimits, split: (name: String, namespace: String?, topLevelOnly: Bool)? = nil,
        deliver: ((XElement) throws -> Void)? = nil
    ) {
        self.limits = limits
        self.split = split
        self.deliver = deliver
    }

    private func stop(_ parser: FoundationXMLParser, _ error: any Error) {
        if failure == nil { failure = error }
        parser.abortParsing()
    }

    private func limitExceeded(_ parser: FoundationXMLParser, _ what: String) {
        stop(
            parser,
            XMLReadError(
                code: .limitExceeded, message: what, line: parser.lineNumber, column: parser.columnNumber))
    }

    // MARK: XMLParserDelegate

    func parser(_ parser: FoundationXMLParser, parseErrorOccurred parseError: any Error) {
        let error = parseError as NSError
        if firstError == nil { firstError = (error, parser.lineNumber, parser.columnNumber) }
        // libxml2 reads on after the errors it can recover from and reports each one, and Foundation on Linux keeps
        // a string per report that it never frees (found by fuzzing: 1,000 `<a b="1" b="2"/>` kept 1,000 of them,
        // a leak any sender could grow without bound). So the parse stops after `errorBudget` errors, and after
        // `warningBudget` warnings (`xml:space="x"`). The budget for errors is not one: where a stream stops
        // inside the root element, Foundation reports up to three at its end (`>` expected, a mismatched end tag,
        // extra content) and the parse still succeeds, and the checks after it tell that truncation apart.
        // A namespace name that is not a URI stops it at once: written again, its declaration is repeated on the
        // elements that use it, and so are the warnings (fuzzing: a document read, written, and over budget).
        if Self.namespaceNameCodes.contains(error.code) { return parser.abortParsing() }
        if Self.warningCodes.contains(error.code) { reportedWarnings += 1 } else { reportedErrors += 1 }
        if reportedErrors > Self.errorBudget || reportedWarnings > Self.warningBudget { parser.abortParsing() }
    }

    /// `XML_WAR_NS_URI`, `XML_WAR_NS_URI_RELATIVE`: a namespace name that is not a URI, or a relative one.
    private static let namespaceNameCodes: Set<Int> = [99, 100]

    /// libxml2's other warnings (`XML_WAR_*` in `xmlParserErrors`): a document that has only a few of these reads.
    private static let warningCodes: Set<Int> = [27, 93, 97, 98, 102, 106, 107]
    /// How many errors and warnings a document may have before the parse stops.
    private static let errorBudget = 3
    private static let warningBudget = 8
    private var reportedErrors = 0
    private var reportedWarnings = 0

    func parser(_ parser: FoundationXMLParser, didStartMappingPrefix prefix: String, toURI namespaceURI: String) {
        pendingDeclarations[prefix] = namespaceURI
    }

    func parser(
        _ parser: FoundationXMLParser, didStartElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]
    ) {
        guard failure == nil else { return }
        elementCount += 1
        if elementCount > limits.maxElements {
            return limitExceeded(parser, "more than \(limits.maxElements) elements")
        }
        if stack.count >= limits.maxDepth {
            return limitExceeded(parser, "elements nested deeper than \(limits.maxDepth)")
        }
        let declarations = pendingDeclarations
        if !pendingDeclarations.isEmpty { pendingDeclarations = [:] }
        if !Self.isQualifiedName(qName ?? elementName) {
            return notQualified(parser, "<\(qName ?? elementName)>")
        }
        if let qName, qName.contains(":"), namespaceURI?.isEmpty != false {
            // Namespaces in XML: a prefix must be declared (libxml2 only warns and leaves the element in no
            // namespace, where nothing that reads it by namespace would find it).
            return stop(
                parser,
                XMLReadError(
                    code: .malformed,
                    message: "the namespace prefix \(qName.prefix { $0 != ":" }) of <\(qName)> is not declared",
                    line: parser.lineNumber, column: parser.columnNumber))
        }
        var attributes: [XAttribute] = []
        if !attributeDict.isEmpty {
            attributes.reserveCapacity(attributeDict.count)
            for (qualified, value) in attributeDict {
                if qualified == "xmlns" || qualified.hasPrefix("xmlns:") { continue }
                guard Self.isQualifiedName(qualified) else {
                    return notQualified(parser, "the attribute \(qualified) of <\(qName ?? elementName)>")
                }
                guard let attribute = attribute(qualified, value, declarations) else {
                    return stop(
                        parser,
                        XMLReadError(
                            code: .malformed,
                            message:
                                "the namespace prefix \(qualified.prefix { $0 != ":" }) of the attribute \(qualified) "
                                + "of <\(qName ?? elementName)> is not declared",
                            line: parser.lineNumber, column: parser.columnNumber))
                }
                attributes.append(attribute)
            }
            attributes.sort { $0.qualifiedName < $1.qualifiedName }
        }
        stack.append(
            OpenElement(
                name: elementName, namespace: namespaceURI?.isEmpty == false ? namespaceURI : nil,
                qualifiedName: qName ?? elementName, attributes: attributes, declarations: declarations))
    }

    func parser(_ parser: FoundationXMLParser, foundCharacters string: String) {
        addText(parser, string)
    }

    func parser(_ parser: FoundationXMLParser, foundCDATA CDATABlock: Data) {
        addText(parser, String(decoding: CDATABlock, as: UTF8.self))
    }

    func parser(
        _ parser: FoundationXMLParser, didEndElement elementName: String, namespaceURI: String?,
        qualifiedName qName: String?
    ) {
        guard failure == nil, let open = stack.popLast() else { return }
        let text: String
        switch open.pieces.count {
        case 0: text = ""
        case 1: text = open.pieces[0]
        default: text = open.pieces.joined()
        }
        let element = XElement(
            name: open.name, namespace: open.namespace, qualifiedName: open.qualifiedName,
            attributes: open.attributes, namespaceDeclarations: open.declarations, text: text,
            children: open.children)
        if let split, let deliver, element.matches(split.name, split.namespace),
            !split.topLevelOnly || stack.count == 1
        {
            do { try deliver(element) } catch { stop(parser, error) }
        } else if stack.isEmpty {
            root = element
        } else {
            stack[stack.count - 1].children.append(element)
        }
    }

    // MARK: Helpers

    private func addText(_ parser: FoundationXMLParser, _ string: String) {
        guard failure == nil, !stack.isEmpty else { return }
        let top = stack.count - 1
        stack[top].textBytes += string.utf8.count
        if stack[top].textBytes > limits.maxTextLength {
            return limitExceeded(
                parser, "text of <\(stack[top].qualifiedName)> longer than \(limits.maxTextLength) bytes")
        }
        stack[top].pieces.append(string)
    }

    /// Namespaces in XML §3: a name, or a prefix and a local name, each without a colon. libxml2 only warns about
    /// `<:>` or `<a:b:c>` and passes them on; written back with a generated prefix they no longer read.
    static func isQualifiedName(_ name: String) -> Bool {
        let parts = name.utf8.split(separator: UInt8(ascii: ":"), maxSplits: 2, omittingEmptySubsequences: false)
        return parts.count <= 2 && parts.allSatisfy { !$0.isEmpty }
    }

    private func notQualified(_ parser: FoundationXMLParser, _ what: String) {
        stop(
            parser,
            XMLReadError(
                code: .malformed,
                message: "\(what) is not a qualified name: at most one colon, with a name on each side",
                line: parser.lineNumber, column: parser.columnNumber))
    }

    /// Resolves an attribute's prefix against the declarations in scope (XMLParser gives qualified names only).
    /// The attribute, or nil when its prefix is not declared (libxml2 only warns, as for elements).
    private func attribute(_ qualified: String, _ value: String, _ declarations: [String: String]) -> XAttribute? {
        guard let colon = qualified.firstIndex(of: ":") else {
            return XAttribute(name: qualified, qualifiedName: qualified, value: value)
        }
        let prefix = String(qualified[..<colon])
        let local = String(qualified[qualified.index(after: colon)...])
        guard let namespace = namespaceURI(for: prefix, declarations) else { return nil }
        return XAttribute(name: local, namespace: namespace, qualifiedName: qualified, value: value)
    }

    private func namespaceURI(for prefix: String, _ declarations: [String: String]) -> String? {
        if prefix == "xml" { return XNamespace.xml }
        if let uri = declarations[prefix] { return uri }
        for open in stack.reversed() {
            if let uri = open.declarations[prefix] { return uri }
        }
        return nil
    }
}
