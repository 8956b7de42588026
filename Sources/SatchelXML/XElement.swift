/// One XML element: its name and namespace, attributes, direct text and child elements, in document order.
///
/// A plain `Sendable` value. Named `XElement` (not `XMLElement`) because Foundation already has
/// `XMLElement`, `XMLDocument` and `XMLNode`; the short `X` names follow LINQ to XML.
///
/// ```swift
/// let entry = try XDocument.parse(data: data).root
/// let title = entry.textOf(child: "title", namespace: XNamespace.atom)
/// let kind = entry.child("content", namespace: XNamespace.cmisRestAtom)?.attribute("type")
/// ```
public struct XElement: Sendable, Hashable {
    /// The local name, without prefix: `entry` for `<atom:entry>`.
    public var name: String
    /// The namespace URI, or `nil` when the element is in no namespace.
    public var namespace: String?
    /// The name as written, with its prefix: `atom:entry`.
    public var qualifiedName: String
    /// The attributes (namespace declarations excluded), sorted by qualified name.
    public var attributes: [XAttribute]
    /// Namespace declarations made on this element: prefix (`""` for the default namespace) to URI.
    public var namespaceDeclarations: [String: String]
    /// The element's own character data, CDATA sections included, entities decoded and whitespace kept;
    /// text inside child elements is not part of it.
    public var text: String
    /// The child elements, in document order.
    public var children: [XElement]

    /// Creates an element; used by the reader and handy in tests.
    ///
    /// ```swift
    /// let id = XElement(name: "id", namespace: XNamespace.atom, qualifiedName: "atom:id", text: "42")
    /// ```
    public init(
        name: String, namespace: String? = nil, qualifiedName: String? = nil, attributes: [XAttribute] = [],
        namespaceDeclarations: [String: String] = [:], text: String = "", children: [XElement] = []
    ) {
        self.name = name
        self.namespace = namespace
        self.qualifiedName = qualifiedName ?? name
        self.attributes = attributes
        self.namespaceDeclarations = namespaceDeclarations
        self.text = text
        self.children = children
    }
}

/// One attribute of an element.
///
/// ```swift
/// let kind = link.attributes.first { $0.name == "renditionKind" }?.value
/// ```
public struct XAttribute: Sendable, Hashable {
    /// The local name, without prefix.
    public var name: String
    /// The namespace URI of a prefixed attribute; unprefixed attributes are in no namespace (`nil`).
    public var namespace: String?
    /// The name as written: `cmisra:renditionKind`.
    public var qualifiedName: String
    /// The value, entities decoded.
    public var value: String

    /// Creates an attribute.
    ///
    /// ```swift
    /// let rel = XAttribute(name: "rel", value: "self")
    /// ```
    public init(name: String, namespace: String? = nil, qualifiedName: String? = nil, value: String) {
        self.name = name
        self.namespace = namespace
        self.qualifiedName = qualifiedName ?? name
        self.value = value
    }
}

/// Namespace URIs the SDK's XML formats use, to avoid typos at call sites.
///
/// ```swift
/// let entries = feed.children("entry", namespace: XNamespace.atom)
/// ```
public enum XNamespace: Sendable {
    /// Atom, RFC 4287.
    public static let atom = "http://www.w3.org/2005/Atom"
    /// Atom Publishing Protocol, RFC 5023.
    public static let app = "http://www.w3.org/2007/app"
    /// CMIS 1.x core.
    public static let cmis = "http://docs.oasis-open.org/ns/cmis/core/200908/"
    /// CMIS 1.x RESTful AtomPub binding.
    public static let cmisRestAtom = "http://docs.oasis-open.org/ns/cmis/restatom/200908/"
    /// The `xml:` prefix, bound by definition.
    public static let xml = "http://www.w3.org/XML/1998/namespace"
}
