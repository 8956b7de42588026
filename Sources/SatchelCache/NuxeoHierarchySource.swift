import Foundation
import SatchelJSON
import SatchelNuxeo

/// A hierarchy from a Nuxeo server: the document at `rootPath` and everything under it, read with one NXQL query
/// page by page (`ecm:path STARTSWITH`, plus the app's own `condition`), rather than a request per folder.
///
/// ```swift
/// let source = NuxeoHierarchySource(session: session, rootPath: "/default-domain/workspaces/Sales")
/// try await cache.load("sales", from: source)
/// ```
public struct NuxeoHierarchySource: HierarchySource {
    public let session: NuxeoSession
    public let rootPath: String
    /// An NXQL condition ANDed to the query (`dc:title LIKE 'Q%'`); nil: everything under the root.
    public let condition: String?
    public let pageSize: Int

    public init(session: NuxeoSession, rootPath: String, condition: String? = nil, pageSize: Int = 500) {
        self.session = session
        self.rootPath = rootPath
        self.condition = condition
        self.pageSize = max(1, pageSize)
    }

    public var description: String {
        "nuxeo \(session.configuration.serverURL.absoluteString) \(rootPath)"
            + (condition.map { " where \($0)" } ?? "")
    }

    /// The query: everything strictly under the root (NXQL literal quoting: `\` and `'` escaped).
    var nxql: String {
        let root = rootPath == "/" ? "/" : rootPath.hasSuffix("/") ? String(rootPath.dropLast()) : rootPath
        let literal = root.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
        var text = "SELECT * FROM Document WHERE ecm:path STARTSWITH '\(literal)'"
        if let condition { text += " AND \(condition)" }
        return text
    }

    public func nodes() -> AsyncThrowingStream<[HierarchyNode], any Error> {
        .producing { [self] continuation in
            let root = try await session.document(path: rootPath)
            guard var rootNode = Self.node(root) else {
                throw CacheError(.invalidSource, "the root \(rootPath) has no path")
            }
            rootNode.parentID = nil
            continuation.yield([rootNode])
            for try await page in session.queryPages(nxql, pageSize: pageSize) {
                continuation.yield(page.entries.compactMap(Self.node))
            }
        }
    }

    public func download(_ node: HierarchyNode, to file: URL) async throws {
        try await session.downloadBlob(id: node.id, to: file)
    }

    /// A document as a node; nil for one without a path (a placeless document is in no tree).
    static func node(_ document: NuxeoDocument) -> HierarchyNode? {
        guard let path = document.path, path.hasPrefix("/") else { return nil }
        let name = path == "/" ? "/" : String(path.split(separator: "/").last ?? "")
        var content: HierarchyNode.Content?
        if let blob = document.blob {
            let digest = ContentDigest(algorithm: blob.digestAlgorithm ?? "MD5", hex: blob.digest)
            let version = document.changeToken ?? document.lastModified.map { "\($0.timeIntervalSince1970)" } ?? ""
            content = HierarchyNode.Content(
                key: digest.map(\.description) ?? "nuxeo:\(document.uid)@\(version)", digest: digest,
                fileName: blob.name, mimeType: blob.mimeType, length: blob.length)
        }
        return HierarchyNode(
            id: document.uid, parentID: document.parentRef, path: path, name: name, title: document.title,
            type: document.type, isFolder: document.facets.contains("Folderish"), lastModified: document.lastModified,
            changeToken: document.changeToken, content: content)
    }
}
