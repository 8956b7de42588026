public import Foundation

/// Where a hierarchy comes from: a Nuxeo query (`NuxeoHierarchySource` in SatchelCacheNuxeo), a CMIS folder tree
/// (`CMISHierarchySource` in SatchelCacheCMIS), or an app's own.
public protocol HierarchySource: Sendable {
    /// What the source is, for status lines (`nuxeo https://host/nuxeo /ws`).
    var description: String { get }
    /// The hierarchy's nodes, page by page as the server answers, in any order: exactly one of them is the root (no
    /// parent id), every other names its parent. A page that fails ends the sequence with the error.
    func nodes() -> AsyncThrowingStream<[HierarchyNode], any Error>
    /// Streams a document's content into `file` (replaced only when the download succeeds).
    func download(_ node: HierarchyNode, to file: URL) async throws
}
