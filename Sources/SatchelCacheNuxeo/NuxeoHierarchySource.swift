public import Foundation
import SatchelJSON
public import SatchelCache
public import SatchelNuxeo
import SatchelText

/// A hierarchy from a Nuxeo server: the document at `rootPath` and everything under it, read with one NXQL query
/// page by page (`ecm:path STARTSWITH`, plus the app's own `condition`), rather than a request per folder.
///
/// ```swift
/// let source = NuxeoHierarchySource(session: session, rootPath: "/default-domain/workspaces/Sales")
/// try await cache.load("sales", from: source)
/// ```
public struct NuxeoHierarchySource: HierarchySource {
    /// The session the tree is read with.
    public let session: NuxeoSession
    /// The path of the root document on the server (`/default-domain/workspaces/Sales`).
    public let rootPath: String
    /// An NXQL condition ANDed to the query (`dc:title LIKE 'Q%'`); nil: everything under the root.
    public let condition: String?
    /// Documents asked for per query page; at least 1.
    public let pageSize: Int

    /// A source for everything under `rootPath`, optionally narrowed by `condition`; `pageSize` (500 by default)
    /// is raised to 1 when lower.
    public init(session: NuxeoSession, rootPath: String, condition: String? = nil, pageSize: Int = 500) {
        self.session = session
        self.rootPath = rootPath
        self.condition = condition
        self.pageSize = max(1, pageSize)
    }

    /// `nuxeo <server URL> <root path>`, followed by ` where <condition>` when there is one.
    public var description: String {
        "nuxeo \(session.configuration.serverURL.absoluteString) \(rootPath)"
            + (condition.map { " where \($0)" } ?? "")
    }

    /// The queries: everything strictly under the root that is live (not trashed, not a version, not a proxy),
    /// in a stable order so offset paging neither skips nor repeats. With a condition, folders are read apart from
    /// it (a condition on documents must not cut whole branches off) and documents with it, in parentheses so an
    /// `OR` in it cannot widen the query beyond the root. NXQL literal quoting: `\` and `'` escaped.
    var queries: [String] {
        let root = rootPath == "/" ? "/" : rootPath.hasSuffix("/") ? String(rootPath.dropLast()) : rootPath
        let live =
            "ecm:path STARTSWITH \(root.singleQuoted(.backslash)) AND ecm:isTrashed = 0 AND ecm:isVersion = 0 AND ecm:isProxy = 0"
        guard let condition else { return ["SELECT * FROM Document WHERE \(live) ORDER BY ecm:uuid"] }
        return [
            "SELECT * FROM Folderish WHERE \(live) ORDER BY ecm:uuid",
            "SELECT * FROM Document WHERE ecm:mixinType != 'Folderish' AND \(live) AND (\(condition)) ORDER BY ecm:uuid",
        ]
    }

    /// The root document first (fetched by path, then made the root), then the query pages. A document without a
    /// path is left out; a folder is a document with the `Folderish` facet.
    public func nodes() -> AsyncThrowingStream<[HierarchyNode], any Error> {
        .producing { [self] continuation in
            let root = try await session.document(path: rootPath)
            guard var rootNode = node(root) else {
                throw CacheError(.invalidSource, "the root \(rootPath) has no path")
            }
            rootNode.parentID = nil
            continuation.yield([rootNode])
            for query in queries {
                for try await page in session.queryPages(query, pageSize: pageSize) {
                    // Only the root has no parent: another such node (its parent unknown to the caller) hangs
                    // nowhere.
                    continuation.yield(
                        page.entries.compactMap(node).filter { $0.parentID != nil && $0.id != rootNode.id })
                }
            }
        }
    }

    /// Downloads the document's main blob (`file:content`) into `file`.
    public func download(_ node: HierarchyNode, to file: URL) async throws {
        try await session.downloadBlob(id: node.id, to: file)
    }

    /// A document as a node; nil for one without a path (a placeless document is in no tree). Content is keyed by
    /// its digest, or else by this server, the uid and the change token (a new version is a new key).
    func node(_ document: NuxeoDocument) -> HierarchyNode? {
        guard let path = document.path, path.hasPrefix("/") else { return nil }
        let name = path == "/" ? "/" : String(path.split(separator: "/").last ?? "")
        var content: HierarchyNode.Content?
        if let blob = document.blob {
            let digest = ContentDigest(algorithm: blob.digestAlgorithm ?? "MD5", hex: blob.digest)
            // Without anything that changes with the content, a key of this load only: fetched again after a reload.
            let version =
                document.changeToken ?? document.lastModified.map { "\($0.timeIntervalSince1970)" }
                ?? "load-\(UUID().uuidString)"
            let server = session.configuration.serverURL.absoluteString
            content = HierarchyNode.Content(
                key: digest.map(\.description)
                    ?? "nuxeo:\(server)#\(session.configuration.repository ?? "")#\(document.uid)@\(version)",
                digest: digest,
                fileName: blob.name, mimeType: blob.mimeType, length: blob.length)
        }
        return HierarchyNode(
            id: document.uid, parentID: document.parentRef, path: path, name: name, title: document.title,
            type: document.type, isFolder: document.facets.contains("Folderish"), lastModified: document.lastModified,
            changeToken: document.changeToken, content: content)
    }
}
