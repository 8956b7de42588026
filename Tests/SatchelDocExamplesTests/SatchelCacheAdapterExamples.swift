import Foundation
import SatchelCacheCMIS
import SatchelCacheNuxeo

/// The getting-started articles of SatchelCacheNuxeo and SatchelCacheCMIS.
enum SatchelCacheAdapterExamples {
    /// SatchelCacheNuxeo's GettingStarted.md: a Nuxeo tree, narrowed, loaded and read back.
    static func nuxeo(session: NuxeoSession, cache: ContentCache) async throws -> Int {
        let source = NuxeoHierarchySource(
            session: session, rootPath: "/default-domain/workspaces/Sales", condition: "dc:title LIKE 'Q%'")
        let summary = try await cache.load("sales", from: source)
        let sales = try await cache.hierarchy("sales")
        let top = try await sales.childrenOfRoot()
        return summary.documents + top.count
    }

    /// SatchelCacheCMIS's GettingStarted.md: a CMIS folder tree loaded and read back.
    static func cmis(session: CMISSession, cache: ContentCache) async throws -> Int {
        let source = CMISHierarchySource(session: session, rootPath: "/Sales")
        let summary = try await cache.load("sales", from: source)
        let sales = try await cache.hierarchy("sales")
        let top = try await sales.childrenOfRoot()
        return summary.documents + top.count
    }
}
