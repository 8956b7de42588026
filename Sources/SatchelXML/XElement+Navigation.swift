extension XElement {
    /// The first child element called `name`; `namespace: nil` matches any namespace.
    ///
    /// ```swift
    /// let content = entry.child("content", namespace: XNamespace.cmisRestAtom)
    /// ```
    public func child(_ name: String, namespace: String? = nil) -> XElement? {
        children.first { $0.matches(name, namespace) }
    }

    /// All child elements called `name`, in order; `namespace: nil` matches any namespace.
    ///
    /// ```swift
    /// let links = entry.children("link", namespace: XNamespace.atom)
    /// ```
    public func children(_ name: String, namespace: String? = nil) -> [XElement] {
        children.filter { $0.matches(name, namespace) }
    }

    /// The first element called `name` below this one, depth first in document order (this element excluded).
    ///
    /// ```swift
    /// let objectId = entry.firstDescendant("value", namespace: XNamespace.cmis)?.text
    /// ```
    public func firstDescendant(_ name: String, namespace: String? = nil) -> XElement? {
        for child in children {
            if child.matches(name, namespace) { return child }
            if let found = child.firstDescendant(name, namespace: namespace) { return found }
        }
        return nil
    }

    /// Every element called `name` below this one, depth first in document order (this element excluded).
    ///
    /// ```swift
    /// let values = properties.descendants("value", namespace: XNamespace.cmis).map(\.text)
    /// ```
    public func descendants(_ name: String, namespace: String? = nil) -> [XElement] {
        var found: [XElement] = []
        collectDescendants(name, namespace, into: &found)
        return found
    }

    /// The text of the first child called `name`, or `nil` when there is no such child.
    ///
    /// ```swift
    /// let title = entry.textOf(child: "title", namespace: XNamespace.atom)
    /// ```
    public func textOf(child name: String, namespace: String? = nil) -> String? {
        child(name, namespace: namespace)?.text
    }

    /// An attribute's value. With `namespace: nil`, `name` is matched against the qualified name first
    /// (`"cmisra:renditionKind"`), then against the local name of an unprefixed attribute (`"href"`); with a
    /// namespace, against local name and namespace URI.
    ///
    /// ```swift
    /// let href = link.attribute("href")
    /// let kind = link.attribute("renditionKind", namespace: XNamespace.cmisRestAtom)
    /// ```
    public func attribute(_ name: String, namespace: String? = nil) -> String? {
        if let namespace {
            return attributes.first { $0.name == name && $0.namespace == namespace }?.value
        }
        return (attributes.first { $0.qualifiedName == name } ?? attributes.first { $0.name == name })?.value
    }

    /// The text with leading and trailing whitespace and newlines removed.
    ///
    /// ```swift
    /// let id = element.trimmedText
    /// ```
    public var trimmedText: String {
        let isSpace: (Character) -> Bool = { $0.isWhitespace }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) })
        else { return "" }
        return String(text[first...last])
    }

    /// The prefix of the qualified name, or `nil` for an unprefixed element.
    ///
    /// ```swift
    /// entry.prefix  // "atom"
    /// ```
    public var prefix: String? {
        guard let colon = qualifiedName.firstIndex(of: ":") else { return nil }
        return String(qualifiedName[..<colon])
    }

    func matches(_ name: String, _ namespace: String?) -> Bool {
        self.name == name && (namespace == nil || self.namespace == namespace)
    }

    private func collectDescendants(_ name: String, _ namespace: String?, into found: inout [XElement]) {
        for child in children {
            if child.matches(name, namespace) { found.append(child) }
            child.collectDescendants(name, namespace, into: &found)
        }
    }
}
