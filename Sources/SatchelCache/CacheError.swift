/// Why the content cache could not do something.
public struct CacheError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The kind of failure.
    public enum Code: String, Sendable, Hashable {
        /// No hierarchy of that name has been loaded.
        case unknownHierarchy
        /// No node with that id or path in the hierarchy.
        case unknownNode
        /// The source answered something that is not a tree (no root, two roots, a node outside it).
        case invalidSource
        /// A blob's bytes do not match its digest.
        case digestMismatch
        /// The node has no content.
        case noContent
        /// The content is not cached and no source was given to fetch it.
        case notCached
        /// Another load replaced or discarded this one.
        case superseded
    }

    /// The kind of failure.
    public var code: Code
    /// What happened, naming the hierarchy, node or key concerned.
    public var message: String

    /// An error of this kind with this message.
    public init(_ code: Code, _ message: String) {
        self.code = code
        self.message = message
    }

    /// `SatchelCache: ` followed by the message.
    public var description: String { "SatchelCache: \(message)" }
}
