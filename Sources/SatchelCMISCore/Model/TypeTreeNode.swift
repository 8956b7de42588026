import Foundation

/// A node of getTypeDescendants.
public struct TypeTreeNode: Sendable, Hashable {
    /// The type at this node.
    public var type: TypeDefinition
    /// The node's subtypes, as far as the requested depth reaches.
    public var children: [TypeTreeNode]

    /// A node with its subtypes (none by default).
    public init(type: TypeDefinition, children: [TypeTreeNode] = []) {
        self.type = type
        self.children = children
    }
}
