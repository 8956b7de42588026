/// A small streaming XML writer: elements in, UTF-8 bytes out, with correct escaping and namespace prefixes.
///
/// Namespaces given to ``init(namespaces:declaration:)`` are declared on the first element with their prefixes; any other
/// namespace gets a generated prefix (`ns1`, `ns2`, …) declared on the element that first uses it. Text and
/// attribute values are escaped, and characters XML 1.0 cannot carry (control characters other than tab, line
/// feed and carriage return) are written as U+FFFD, so the output is always well-formed.
///
/// The writer holds only what has not been taken yet: call ``takeBytes()`` between parts of a large document to
/// stream it.
///
/// ```swift
/// var writer = XMLWriter(namespaces: [("atom", XNamespace.atom), ("cmisra", XNamespace.cmisRestAtom)])
/// writer.start("entry", namespace: XNamespace.atom)
/// writer.element("title", namespace: XNamespace.atom, text: "Report & notes")
/// writer.element("link", namespace: XNamespace.atom, attributes: [("rel", "self"), ("href", url)])
/// writer.end()
/// let bytes = writer.finish()
/// ```
public struct XMLWriter: Sendable {
    private var buffer: [UInt8] = []
    /// Namespace bindings in scope, innermost last; a lookup walks back from the end (documents use a handful).
    private var bindings: [(uri: String, prefix: String)] = [(XNamespace.xml, "xml")]
    /// For each open element, how many ``bindings`` were in scope before it started.
    private var bindingMarks: [Int] = []
    private var open: [String] = []
    private var pending: [(prefix: String, uri: String)]
    private var generated = 0
    /// True while the last start tag is not yet closed with `>` (so an empty element can become `<a/>`).
    private var tagOpen = false

    /// A writer that declares `namespaces` (prefix, URI) on the root element; an empty prefix declares the
    /// default namespace. Writes the XML declaration when `declaration` is true.
    public init(namespaces: [(prefix: String, uri: String)] = [], declaration: Bool = true) {
        pending = namespaces
        if declaration { append("<?xml version=\"1.0\" encoding=\"UTF-8\"?>") }
    }

    /// The number of bytes written so far and not yet taken.
    public var byteCount: Int { buffer.count }

    /// The elements opened and not yet ended.
    public var depth: Int { open.count }

    /// Opens an element; attributes are (name, value) pairs, a name may carry a prefix of a declared namespace.
    public mutating func start(
        _ name: String, namespace: String? = nil, attributes: [(String, String)] = []
    ) {
        closeTag()
        bindingMarks.append(bindings.count)
        var declarations = open.isEmpty ? pending : []
        if open.isEmpty { pending = [] }
        for declaration in declarations { bindings.append((declaration.uri, declaration.prefix)) }
        var qualified = name
        if let namespace {
            if let prefix = prefix(of: namespace) {
                if !prefix.isEmpty { qualified = prefix + ":" + name }
            } else {
                generated += 1
                let prefix = "ns\(generated)"
                bindings.append((namespace, prefix))
                declarations.append((prefix, namespace))
                qualified = prefix + ":" + name
            }
        }
        append("<" + qualified)
        for declaration in declarations {
            let attribute = declaration.prefix.isEmpty ? "xmlns" : "xmlns:" + declaration.prefix
            appendAttribute(attribute, declaration.uri)
        }
        for (name, value) in attributes { appendAttribute(name, value) }
        open.append(qualified)
        tagOpen = true
    }

    /// Writes character data, escaped.
    public mutating func text(_ text: String) {
        guard !text.isEmpty else { return }
        closeTag()
        appendEscaped(text, attribute: false)
    }

    /// Ends the innermost open element (as `<a/>` when it has no content); does nothing when none is open.
    public mutating func end() {
        guard let name = open.popLast() else { return }
        if let mark = bindingMarks.popLast() { bindings.removeSubrange(mark...) }
        if tagOpen {
            append("/>")
            tagOpen = false
        } else {
            append("</" + name + ">")
        }
    }

    /// An element with text content (`nil` text writes an empty element).
    public mutating func element(
        _ name: String, namespace: String? = nil, attributes: [(String, String)] = [],
        text: String? = nil
    ) {
        start(name, namespace: namespace, attributes: attributes)
        if let text { self.text(text) }
        end()
    }

    /// The bytes written since the last call, leaving the writer empty but still open.
    public mutating func takeBytes() -> [UInt8] {
        // A start tag still open must be closed now: its bytes leave the writer.
        closeTag()
        defer { buffer.removeAll(keepingCapacity: true) }
        return buffer
    }

    /// Ends every open element and returns the remaining bytes.
    public mutating func finish() -> [UInt8] {
        while !open.isEmpty { end() }
        return takeBytes()
    }

    // MARK: Output

    private mutating func closeTag() {
        if tagOpen {
            append(">")
            tagOpen = false
        }
    }

    /// The prefix bound to `uri` in the current scope (`""` for the default namespace).
    private func prefix(of uri: String) -> String? {
        for binding in bindings.reversed() where binding.uri == uri { return binding.prefix }
        return nil
    }

    private mutating func append(_ text: String) {
        buffer.append(contentsOf: text.utf8)
    }

    private mutating func appendAttribute(_ name: String, _ value: String) {
        append(" " + name + "=\"")
        appendEscaped(value, attribute: true)
        append("\"")
    }

    private mutating func appendEscaped(_ text: String, attribute: Bool) {
        // Most values (ids, names, URLs, dates) are printable ASCII with nothing to escape: copy them whole.
        let plain = text.utf8.allSatisfy { byte in
            byte >= 0x20 && byte < 0x80 && byte != UInt8(ascii: "&") && byte != UInt8(ascii: "<")
                && byte != UInt8(ascii: ">") && byte != UInt8(ascii: "\"")
        }
        if plain {
            buffer.append(contentsOf: text.utf8)
            return
        }
        for scalar in text.unicodeScalars {
            switch scalar {
            case "&": append("&amp;")
            case "<": append("&lt;")
            case ">": append("&gt;")
            case "\"" where attribute: append("&quot;")
            case "\t" where attribute: append("&#9;")
            case "\n" where attribute: append("&#10;")
            case "\r": append("&#13;")
            case "\t", "\n": buffer.append(UInt8(scalar.value))
            default:
                if Self.isAllowed(scalar) {
                    UTF8.encode(scalar) { buffer.append($0) }
                } else {
                    append("\u{FFFD}")
                }
            }
        }
    }

    /// XML 1.0 `Char`: tab, line feed, carriage return, and everything from U+0020 except U+FFFE and U+FFFF
    /// (surrogates cannot occur in a Swift string).
    private static func isAllowed(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value >= 0x20 && scalar.value != 0xFFFE && scalar.value != 0xFFFF
    }
}
