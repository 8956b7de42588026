import Foundation

/// A piece of repository-specific data CMIS lets servers add: a tree of named values.
///
/// In AtomPub these are foreign namespaced XML elements; in the Browser binding, unknown keys of a JSON
/// object (nested objects become children, arrays become repeated children with the same name).
///
/// ```swift
/// let myDocuments = info.extensionValue(named: "myDocuments")   // SAP Mobile Documents' root folder id
/// ```
public struct CMISExtension: Sendable, Hashable {
    /// The namespace URI, when the binding has one (AtomPub).
    public var namespace: String?
    /// The element or key name.
    public var name: String
    /// The text value; `nil` for elements with children only, or JSON `null`.
    public var value: String?
    /// XML attributes (always empty in the Browser binding).
    public var attributes: [String: String]
    /// Nested extensions.
    public var children: [CMISExtension]

    /// An extension element.
    public init(
        namespace: String? = nil, name: String, value: String? = nil, attributes: [String: String] = [:],
        children: [CMISExtension] = []
    ) {
        self.namespace = namespace
        self.name = name
        self.value = value
        self.attributes = attributes
        self.children = children
    }
}

extension Array where Element == CMISExtension {
    /// The first extension named `name`, searching depth-first (top-level elements first).
    public func first(named name: String, namespace: String? = nil) -> CMISExtension? {
        func matches(_ element: CMISExtension) -> Bool {
            element.name == name && (namespace == nil || element.namespace == namespace)
        }
        if let hit = first(where: matches) { return hit }
        for element in self {
            if let hit = element.children.first(named: name, namespace: namespace) { return hit }
        }
        return nil
    }
}
