import Foundation

/// A node of getTypeDescendants.
public struct TypeTreeNode: Sendable, Hashable {
    public var type: TypeDefinition
    public var children: [TypeTreeNode]

    public init(type: TypeDefinition, children: [TypeTreeNode] = []) {
        self.type = type
        self.children = children
    }
}
