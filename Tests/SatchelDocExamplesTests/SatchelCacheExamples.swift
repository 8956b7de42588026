import Foundation
import SatchelCMIS
import SatchelCache
import SatchelCacheCMIS
import SatchelCacheNuxeo
import SatchelNuxeo
import SatchelStore

enum SatchelCacheExamples {
    /// GettingStarted.md: open a cache and load a hierarchy from Nuxeo.
    static func loadFromNuxeo(
        folder: URL, passphrase: String, session: NuxeoSession
    ) async throws -> ContentCache {
        let cache = try await ContentCache.open(at: folder, key: .passphrase(passphrase))
        let source = NuxeoHierarchySource(session: session, rootPath: "/default-domain/workspaces/Sales")
        let summary = try await cache.load("sales", from: source)
        _ = (summary.folders, summary.documents, summary.loadedAt)
        return cache
    }

    /// GettingStarted.md: load a hierarchy from a CMIS repository.
    static func loadFromCMIS(cache: ContentCache, session: CMISSession) async throws -> HierarchySummary {
        let source = CMISHierarchySource(session: session, rootPath: "/Sales")
        return try await cache.load("sales", from: source) { progress in
            _ = (progress.pages, progress.nodes)
        }
    }

    /// GettingStarted.md: browse with the network off.
    static func browse(cache: ContentCache) async throws -> [String] {
        let sales = try await cache.hierarchy("sales")
        var lines: [String] = []
        for node in try await sales.childrenOfRoot() {
            lines.append("\(node.isFolder ? "folder" : "document") \(node.name) \(node.content?.length ?? 0)")
        }
        let reports = try await sales.children(ofPath: "/Sales/Reports")
        lines += reports.map(\.path)
        return lines
    }

    /// GettingStarted.md: reload when stale, or answer the cached tree.
    static func refresh(cache: ContentCache, source: any HierarchySource) async throws -> Hierarchy {
        let (sales, refreshError) = try await cache.hierarchy(
            "sales", refreshingFrom: source, maxAge: .seconds(3600))
        if let refreshError { _ = refreshError }  // offline: the tree as last loaded
        return sales
    }

    /// GettingStarted.md: content through the blob cache.
    static func content(cache: ContentCache, source: any HierarchySource, destination: URL) async throws -> Data {
        let sales = try await cache.hierarchy("sales")
        let report = try await sales.node(path: "/Sales/Reports/q3.pdf")
        let bytes = try await cache.data(of: report, from: source)  // downloaded once, then from the cache
        try await cache.writeContent(of: report, to: destination)  // no source: only what is cached
        let fetched = try await cache.fetchContent(of: "sales", from: source)  // every document, for offline use
        _ = (fetched.fetched, fetched.alreadyCached, fetched.overLimits)
        return bytes
    }

    /// GettingStarted.md: the blob cache's limits.
    static func limits(cache: ContentCache) async throws -> BlobCache.Status {
        try await cache.blobs.setLimits(BlobCache.Limits(maximumCount: 500, maximumBytes: 2 << 30))
        let status = try await cache.blobs.status()  // status.count, status.bytes
        return status
    }

    /// GettingStarted.md: errors.
    static func errors(cache: ContentCache, node: HierarchyNode) async throws -> Data? {
        do {
            return try await cache.data(of: node)
        } catch let error as CacheError where error.code == .notCached {
            return nil  // not downloaded yet, and no source to fetch it from
        }
    }
}
