import Foundation
import SatchelXML

/// SatchelXML's reader (`XDocument.parse`) and writer (``XMLWriter``).
///
/// - A document that does not parse throws an ``XMLReadError``; a syntax error says at which line.
/// - The limits hold: no element deeper, no text longer, no more elements than allowed.
/// - What parses, written again by ``XMLWriter``, parses to the same tree: the same names and namespaces, the same
///   attributes and values (in any order: XML gives attributes none, and the reader sorts them by the prefixed name,
///   whose prefix the writer may change), the same text and children, in the same order.
enum XMLFuzzTarget {
    static let target = FuzzTarget(
        name: "xml", summary: "XML: XDocument.parse and XMLWriter",
        seedFolders: [
            "Tests/SatchelCMISCoreTests/Fixtures/cmis-opencmis", "Tests/SatchelODataTests/Fixtures",
            "Tests/SatchelODataGenTests/Fixtures", "Tests/Peers",
        ],
        seedExtensions: ["xml", "atom", "edmx"], check: check)

    static let limits: XMLReadLimits = {
        var limits = XMLReadLimits()
        limits.maxDepth = 32
        limits.maxElements = 2_000
        limits.maxTextLength = 8_192
        limits.maxDocumentSize = 256 * 1024
        return limits
    }()

    static func check(_ bytes: [UInt8]) throws(FuzzViolation) {
        func violation(_ message: String) -> FuzzViolation { FuzzViolation("xml", "\(message): \(bytes.excerpt())") }
        let document: XDocument
        do {
            document = try XDocument.parse(data: Data(bytes), limits: limits)
        } catch let error as XMLReadError {
            if error.code == .malformed || error.code == .unexpectedEnd, error.line <= 0 {
                throw violation("a syntax error without a line: \(error)")
            }
            return
        } catch {
            throw violation("the reader threw something other than an XMLReadError: \(error)")
        }
        var elements = 0
        try checkLimits(document.root, depth: 1, elements: &elements, violation: violation)

        var writer = XMLWriter()
        write(document.root, into: &writer, depth: 0)
        let written = writer.finish()
        let again: XDocument
        do {
            again = try XDocument.parse(data: Data(written), limits: limits)
        } catch {
            throw violation("written as \(written.excerpt(400)), it no longer parses: \(error)")
        }
        if let difference = difference(document.root, again.root) {
            throw violation("written as \(written.excerpt(400)), it parses to another tree: \(difference)")
        }
    }

    static func checkLimits(
        _ element: XElement, depth: Int, elements: inout Int, violation: (String) -> FuzzViolation
    ) throws(FuzzViolation) {
        elements += 1
        guard depth <= limits.maxDepth else { throw violation("an element deeper than the depth limit") }
        guard elements <= limits.maxElements else { throw violation("more elements than the limit") }
        guard element.text.utf8.count <= limits.maxTextLength else { throw violation("a text longer than the limit") }
        for child in element.children {
            try checkLimits(child, depth: depth + 1, elements: &elements, violation: violation)
        }
    }

    /// Writes `element` with its own namespaces: the writer picks element prefixes; an attribute in a namespace gets
    /// a prefix declared on its element.
    static func write(_ element: XElement, into writer: inout XMLWriter, depth: Int) {
        var attributes: [(String, String)] = []
        for (index, attribute) in element.attributes.enumerated() {
            if let namespace = attribute.namespace {
                if namespace == XNamespace.xml {
                    attributes.append(("xml:" + attribute.name, attribute.value))
                } else {
                    let prefix = "fz\(depth)x\(index)"
                    attributes.append(("xmlns:" + prefix, namespace))
                    attributes.append((prefix + ":" + attribute.name, attribute.value))
                }
            } else {
                attributes.append((attribute.name, attribute.value))
            }
        }
        writer.start(element.name, namespace: element.namespace, attributes: attributes)
        writer.text(element.text)
        for child in element.children { write(child, into: &writer, depth: depth + 1) }
        writer.end()
    }

    /// The first difference between two trees that prefixes do not explain, or nil.
    static func difference(_ a: XElement, _ b: XElement, path: String = "") -> String? {
        let here = path + "/" + a.qualifiedName
        guard a.name == b.name, a.namespace == b.namespace else {
            return "\(here): element \(a.namespace ?? "")|\(a.name) became \(b.namespace ?? "")|\(b.name)"
        }
        let attributesA = a.attributes.map { "\($0.namespace ?? "")|\($0.name)=\($0.value.debugDescription)" }.sorted()
        let attributesB = b.attributes.map { "\($0.namespace ?? "")|\($0.name)=\($0.value.debugDescription)" }.sorted()
        guard attributesA == attributesB else { return "\(here): attributes \(attributesA) became \(attributesB)" }
        guard a.text == b.text else {
            return "\(here): text \(a.text.debugDescription) became \(b.text.debugDescription)"
        }
        guard a.children.count == b.children.count else {
            return "\(here): \(a.children.count) children became \(b.children.count)"
        }
        for (childA, childB) in zip(a.children, b.children) {
            if let difference = difference(childA, childB, path: here) { return difference }
        }
        return nil
    }
}
