package import Foundation
import SatchelJSON
public import SatchelXML
import SatchelText

/// Pure functions from AtomPub (CMIS RestAtom 1.1) XML to the binding-neutral model, as `BrowserParser` does
/// for JSON. Malformed input and missing required parts throw `CMISError` with code `.invalidResponse`.
public enum AtomPubParser {
    /// Looks up a type definition by type id; the parsers use it to find the cardinality of properties.
    public typealias TypeLookup = (String) -> TypeDefinition?

    /// The limits every body is read with: `XMLReadLimits.default`.
    public static let limits = XMLReadLimits.default

    static let cmis = XNamespace.cmis
    package static let cmisra = XNamespace.cmisRestAtom
    package static let atom = XNamespace.atom
    static let app = XNamespace.app

    /// Parses the document and checks its root element.
    package static func root(
        _ data: Data, expecting names: [(String, String)], limits: XMLReadLimits = AtomPubParser.limits
    ) throws -> XElement {
        let root = try readingXML { try XDocument.parse(data: data, limits: limits).root }
        try check(root, isOneOf: names)
        return root
    }

    /// Runs an XML read, turning the reader's failures into `.invalidResponse` (errors of our own pass through).
    static func readingXML<T>(_ read: () throws -> T) throws -> T {
        do {
            return try read()
        } catch let error as XMLReadError {
            throw CMISError(
                .invalidResponse, "invalid AtomPub XML: \(error)", path: "line \(error.line)", underlying: error)
        } catch let error as CMISError {
            throw error
        } catch {
            throw CMISError(.invalidResponse, "invalid AtomPub XML: \(error)", underlying: error)
        }
    }

    static func check(_ root: XElement, isOneOf names: [(String, String)]) throws {
        guard names.contains(where: { root.name == $0.0 && root.namespace == $0.1 }) else {
            let expected = names.map { "{\($0.1)}\($0.0)" }.joined(separator: " or ")
            throw CMISError(
                .invalidResponse,
                "unexpected root element \(root.qualifiedName) (\(root.namespace ?? "no namespace")), expected \(expected)",
                path: "/" + root.qualifiedName)
        }
    }

    static func missing(_ what: String, in path: String) -> CMISError {
        CMISError(.invalidResponse, "missing \(what)", path: path)
    }

    // MARK: Scalars

    package static func text(_ element: XElement, _ name: String, _ namespace: String = cmis) -> String? {
        element.child(name, namespace: namespace)?.trimmedText
    }

    static func texts(_ element: XElement, _ name: String, _ namespace: String = cmis) -> [String] {
        element.children(name, namespace: namespace).map(\.trimmedText)
    }

    static func bool(_ element: XElement, _ name: String, path: String) throws -> Bool? {
        guard let text = text(element, name) else { return nil }
        return try boolValue(text, path: path + "/cmis:" + name)
    }

    static func boolValue(_ text: String, path: @autoclosure () -> String) throws -> Bool {
        switch text.lowercased() {
        case "true", "1": return true
        case "false", "0": return false
        default: throw CMISError(.invalidResponse, "expected a boolean, found \"\(text)\"", path: path())
        }
    }

    static func int64(_ element: XElement, _ name: String, _ namespace: String = cmis, path: String) throws -> Int64? {
        guard let text = text(element, name, namespace) else { return nil }
        return try int64Value(text, path: path + "/" + name)
    }

    static func int64Value(_ text: String, path: @autoclosure () -> String) throws -> Int64 {
        guard let value = Int64(text.hasPrefix("+") ? String(text.dropFirst()) : text) else {
            throw CMISError(.invalidResponse, "expected an integer, found \"\(text)\"", path: path())
        }
        return value
    }

    static func capability<Value: CapabilityValue>(_ element: XElement, _ name: String) -> Value? {
        text(element, name).map(Value.init(rawValue:))
    }

    static func enumValue<Value: RawRepresentable>(_: Value.Type, _ text: String, path: String) throws -> Value
    where Value.RawValue == String {
        guard let value = Value(rawValue: text) else {
            throw CMISError(.invalidResponse, "unexpected value \"\(text)\"", path: path)
        }
        return value
    }

    /// `xsd:dateTime`: ISO 8601 with or without fractional seconds (of any length), with a zone (none: UTC).
    static func dateValue(_ text: String, path: @autoclosure () -> String) throws -> Date {
        guard let date = ISO8601Timestamp.date(from: text.trimmingCharacters(in: .whitespacesAndNewlines)) else {
            throw CMISError(.invalidResponse, "invalid datetime \"\(text)\"", path: path())
        }
        return date
    }

    static func decimalValue(_ text: String, path: @autoclosure () -> String) throws -> Decimal {
        guard let value = Decimal(string: text, locale: Locale(identifier: "en_US_POSIX")),
            !text.isEmpty, text.allSatisfy({ $0.isNumber || "+-.eE".contains($0) })
        else { throw CMISError(.invalidResponse, "expected a decimal, found \"\(text)\"", path: path()) }
        return value
    }

    // MARK: Links and extensions

    static func links(of element: XElement) -> AtomPubLinks {
        let content = element.child("content", namespace: atom)
        return AtomPubLinks(
            links: element.children("link", namespace: atom).compactMap { link in
                guard let rel = link.attribute("rel"), let href = link.attribute("href") else { return nil }
                return AtomPubLink(
                    rel: rel, href: href, type: link.attribute("type"),
                    attributes: Dictionary(
                        link.attributes.map { ($0.qualifiedName, $0.value) }, uniquingKeysWith: { first, _ in first }))
            },
            contentSource: content?.attribute("src"), contentType: content?.attribute("type"))
    }

    /// Children of foreign namespaces (neither CMIS nor Atom/AtomPub) as extension trees.
    static func extensions(of element: XElement) -> [CMISExtension] {
        let known: Set<String?> = [cmis, cmisra, atom, app]
        return element.children.filter { !known.contains($0.namespace) }.map { extensionElement($0, depth: 0) }
    }

    static func extensionElement(_ element: XElement, depth: Int) -> CMISExtension {
        // The XML reader bounds depth already; this keeps the recursion finite regardless.
        let children = depth < 256 ? element.children.map { extensionElement($0, depth: depth + 1) } : []
        let value = element.trimmedText
        return CMISExtension(
            namespace: element.namespace, name: element.name,
            value: children.isEmpty || !value.isEmpty ? value : nil,
            attributes: Dictionary(
                element.attributes.map { ($0.qualifiedName, $0.value) }, uniquingKeysWith: { first, _ in first }),
            children: children)
    }
}

extension CMISError {
    /// The XML line of a malformed AtomPub response, when the XML reader reported one.
    public var xmlLine: Int? { (underlying as? XMLReadError)?.line }
}
