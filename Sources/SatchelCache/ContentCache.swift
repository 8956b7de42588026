public import Foundation
public import GRDB
public import SatchelStore
import SatchelText

/// Content browsable offline (docs/nuxeo.md, "SatchelCache"): named hierarchies of folders and documents loaded from
/// a Nuxeo server or a CMIS repository, and their blobs, in one folder — `cache.sqlite` (a `SatchelStore` store,
/// encrypted when opened with a key) and `blobs/` (content files, sealed with a key kept inside the encrypted store).
///
/// A load writes a new generation of rows and switches to it in one transaction at the end: a load that fails or is
/// killed leaves the previous tree as it was, never half a tree.
///
/// ```swift
/// let cache = try await ContentCache.open(at: folder, key: .passphrase(secret))
/// let source = NuxeoHierarchySource(session: session, rootPath: "/ws/Sales")
/// try await cache.load("sales", from: source)
/// let sales = try await cache.hierarchy("sales")
/// for child in try await sales.childrenOfRoot() { print(child.isFolder ? "📁" : "📄", child.name) }
/// let bytes = try await cache.data(of: try await sales.node(path: "/ws/Sales/q3.pdf"), from: source)  // then cached
/// ```
public final class ContentCache: Sendable {
    /// The cache's database, `cache.sqlite`.
    public let store: LocalStore<DatabasePool>
    /// The folder the cache lives in.
    public let folder: URL
    /// The content files, in `blobs/`.
    public let blobs: BlobCache

    /// Progress of a load.
    public struct LoadProgress: Sendable, Hashable {
        /// Pages received from the source so far.
        public var pages: Int
        /// Nodes received so far (before nodes that hang from no parent are dropped at the end).
        public var nodes: Int
    }

    /// Where loads in progress hold their leases (``LoadLease``).
    let leases: URL
    /// A load stops with ``CacheError/Code/invalidSource`` past this many nodes (a server answering without end).
    public static let maximumNodes = 5_000_000

    private init(store: LocalStore<DatabasePool>, folder: URL, blobs: BlobCache, leases: URL) {
        self.store = store
        self.folder = folder
        self.blobs = blobs
        self.leases = leases
    }

    /// Opens (or creates) the cache in `folder`; `key` encrypts the database and the blobs (nil: neither).
    /// `blobLimits` are kept for the next opens; nil: the limits kept, or the defaults. Rows of loads that never
    /// finished (a killed process) are removed.
    public static func open(
        at folder: URL, key: StoreKey?, blobLimits: BlobCache.Limits? = nil
    ) async throws -> ContentCache {
        try FileManager.default.createDirectory(
            at: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        var configuration = Configuration()
        // Another process may be writing (a sync beside a `cache ls`): wait for it rather than fail at once.
        configuration.busyMode = .timeout(30)
        let store = try await StoreFile(path: folder.appendingPathComponent("cache.sqlite").path)
            .openPoolDetached(key: key, configuration: configuration)
        let leases = folder.appendingPathComponent("loads", isDirectory: true)
        try FileManager.default.createDirectory(
            at: leases, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        do {
            let (contentKey, limits) = try await store.database.write { db -> ([UInt8]?, BlobCache.Limits) in
                try Schema.create(db)
                try Schema.discardUnfinishedLoads(db) { lease in !LoadLease.isHeld(lease, in: leases) }
                let limits = try Schema.blobLimits(replacingWith: blobLimits, db)
                guard store.isEncrypted else { return (nil, limits) }
                if let existing = try Data.fetchOne(db, sql: "SELECT value FROM cache_meta WHERE key = 'content-key'") {
                    return ([UInt8](existing), limits)
                }
                let fresh = SealedContent.randomKey()
                try db.execute(
                    sql: "INSERT INTO cache_meta(key, value) VALUES ('content-key', ?)", arguments: [Data(fresh)])
                return (fresh, limits)
            }
            let sealer = try contentKey.map { try SealedContent(key: $0) }
            let blobs = try await BlockingWork.shared.run { [database = store.database] in
                try BlobCache(
                    database: database, directory: folder.appendingPathComponent("blobs", isDirectory: true),
                    sealer: sealer, limits: limits)
            }
            return ContentCache(store: store, folder: folder, blobs: blobs, leases: leases)
        } catch {
            try? store.close()
            throw error
        }
    }

    /// Closes the database (on a dispatch thread: closing waits for SQLite).
    public func close() async throws {
        try await BlockingWork.shared.run { [store] in try store.close() }
    }

    // MARK: Hierarchies

    /// Loads (or reloads) the hierarchy `name` from `source`, following its pages; the new tree replaces the old one
    /// only when the load completes.
    @discardableResult
    public func load(
        _ name: String, from source: any HierarchySource, progress: (@Sendable (LoadProgress) -> Void)? = nil
    ) async throws -> HierarchySummary {
        let database = store.database
        // The lease first: whoever opens the cache meanwhile sees a load alive, not one to discard.
        let lease = try LoadLease(in: leases)
        let generation: Int64
        do {
            generation = try await database.write { db -> Int64 in
                try db.execute(
                    sql: "INSERT INTO generation(hierarchy, started, complete, lease) VALUES (?, ?, 0, ?)",
                    arguments: [name, Date().timeIntervalSince1970, lease.name])
                return db.lastInsertedRowID
            }
        } catch {
            lease.end()
            throw error
        }
        var done = false
        defer {
            if !done {
                // Failed or cancelled: its rows go now (or at the next open, if this process dies first).
                Task.detached {
                    try? await database.write { try Schema.discard(generation: generation, $0) }
                    lease.end()
                }
            } else {
                lease.end()
            }
        }
        var counts = LoadProgress(pages: 0, nodes: 0)
        for try await page in source.nodes() {
            counts.pages += 1
            counts.nodes += page.count
            guard counts.nodes <= Self.maximumNodes else {
                throw CacheError(.invalidSource, "\(source.description) gave more than \(Self.maximumNodes) nodes")
            }
            try await database.write { db in try Schema.insert(page, generation: generation, db) }
            progress?(counts)
        }
        let summary = try await database.write { db in
            try Schema.switchTo(generation: generation, name: name, source: source.description, db)
        }
        done = true
        return summary
    }

    /// The hierarchy `name` as last loaded.
    public func hierarchy(_ name: String) async throws -> Hierarchy {
        let found = try await store.database.read { db in try Schema.summary(name, db) }
        guard found != nil else { throw CacheError(.unknownHierarchy, "no hierarchy named '\(name)' was loaded") }
        return Hierarchy(name: name, database: store.database)
    }

    /// The hierarchy `name`, reloaded first from `source` when it was never loaded or is older than `maxAge`. When
    /// the reload fails (offline, the server down) the cached tree is answered if there is one; `refreshError` says
    /// why it is not fresh.
    public func hierarchy(
        _ name: String, refreshingFrom source: any HierarchySource, maxAge: Duration
    ) async throws -> (hierarchy: Hierarchy, refreshError: (any Error)?) {
        let summary = try await store.database.read { db in try Schema.summary(name, db) }
        if let summary, Date().timeIntervalSince(summary.loadedAt) < Double(maxAge.components.seconds) {
            return (Hierarchy(name: name, database: store.database), nil)
        }
        do {
            try await load(name, from: source)
            return (Hierarchy(name: name, database: store.database), nil)
        } catch is CancellationError {
            throw CancellationError()
        } catch {
            guard summary != nil else { throw error }
            return (Hierarchy(name: name, database: store.database), error)
        }
    }

    /// The hierarchies loaded, by name.
    public func hierarchies() async throws -> [HierarchySummary] {
        try await store.database.read { db in try Schema.summaries(db) }
    }

    /// Forgets a hierarchy (its blobs stay in the blob cache until evicted).
    public func remove(_ name: String) async throws {
        try await store.database.write { db in
            if let generation = try Int64.fetchOne(
                db, sql: "SELECT generation FROM hierarchy WHERE name = ?", arguments: [name])
            {
                try Schema.discard(generation: generation, db)
            }
            try db.execute(sql: "DELETE FROM hierarchy WHERE name = ?", arguments: [name])
        }
    }

    // MARK: Content

    /// A document's content: from the blob cache, or fetched from `source` (then cached) when it is not there — or
    /// when the cached copy fails its check, which is then replaced.
    public func data(of node: HierarchyNode, from source: (any HierarchySource)? = nil) async throws -> Data {
        let content = try Self.content(of: node)
        do {
            if let data = try await blobs.data(for: content.key) { return data }
        } catch  where source != nil && Self.isDamage(error) {}
        try await fetch(node, content: content, from: source)
        guard let data = try await blobs.data(for: content.key) else {
            throw CacheError(.notCached, "the content of \(node.path) was evicted while it was read")
        }
        return data
    }

    /// A document's content written to `destination`, replaced only on success (see ``data(of:from:)``).
    public func writeContent(
        of node: HierarchyNode, to destination: URL, from source: (any HierarchySource)? = nil
    ) async throws {
        let content = try Self.content(of: node)
        do {
            if try await blobs.write(content.key, to: destination) { return }
        } catch  where source != nil && Self.isDamage(error) {}
        try await fetch(node, content: content, from: source)
        guard try await blobs.write(content.key, to: destination) else {
            throw CacheError(.notCached, "the content of \(node.path) was evicted while it was read")
        }
    }

    /// A cached copy that failed its check (fetched again when there is a source).
    private static func isDamage(_ error: any Error) -> Bool {
        (error as? SealedContent.Failure).map { $0.reason != .io } ?? false
    }

    /// What ``fetchContent(of:from:concurrency:progress:)`` did.
    public struct ContentFetch: Sendable, Hashable {
        /// Blobs downloaded and kept.
        public var fetched: Int
        /// Documents whose content was cached already.
        public var alreadyCached: Int
        /// Documents left out because the blob cache's limits would not hold them all.
        public var overLimits: Int
    }

    /// Downloads the content of the documents of hierarchy `name` that is not cached yet (as many at once as
    /// `concurrency`) for reading offline, each blob once however many documents share it, and no more than the blob
    /// cache's limits hold (the rest is counted in ``ContentFetch/overLimits``). A document that fails stops the
    /// whole with its error.
    @discardableResult
    public func fetchContent(
        of name: String, from source: any HierarchySource, concurrency: Int = 4,
        progress: (@Sendable (_ done: Int, _ total: Int) -> Void)? = nil
    ) async throws -> ContentFetch {
        let documents = try await store.database.read { db in
            try Row.fetchAll(
                db,
                sql: """
                    SELECT \(Schema.nodeColumns) FROM node
                    WHERE generation = (SELECT generation FROM hierarchy WHERE name = ?) AND content_key IS NOT NULL
                    ORDER BY path
                    """, arguments: [name]
            ).map(Schema.node)
        }
        var seen = Set<String>()
        var missing: [HierarchyNode] = []
        var cached = 0
        for document in documents {
            guard let key = document.content?.key, seen.insert(key).inserted else { continue }
            if try await blobs.contains(key) { cached += 1 } else { missing.append(document) }
        }
        // What the limits hold, counting what is cached already.
        let limits = blobs.limits
        let status = try await blobs.status()
        var room = limits.maximumCount.map { max(0, $0 - status.count) } ?? missing.count
        var bytes = limits.maximumBytes.map { $0 - status.bytes } ?? Int64.max
        var chosen: [HierarchyNode] = []
        for document in missing where room > 0 {
            let length = document.content?.length ?? 0
            guard length <= bytes else { continue }
            chosen.append(document)
            room -= 1
            bytes -= length
        }
        var next = 0
        var done = 0
        try await withThrowingTaskGroup(of: Void.self) { group in
            func start() {
                guard next < chosen.count else { return }
                let node = chosen[next]
                next += 1
                group.addTask { [self] in
                    if let content = node.content { try await fetch(node, content: content, from: source) }
                }
            }
            for _ in 0..<max(1, concurrency) { start() }
            while try await group.next() != nil {
                done += 1
                progress?(done, chosen.count)
                start()
            }
        }
        return ContentFetch(fetched: chosen.count, alreadyCached: cached, overLimits: missing.count - chosen.count)
    }

    /// Whether a document's content is in the blob cache.
    public func isCached(_ node: HierarchyNode) async throws -> Bool {
        guard let key = node.content?.key else { return false }
        return try await blobs.contains(key)
    }

    private static func content(of node: HierarchyNode) throws -> HierarchyNode.Content {
        guard let content = node.content else { throw CacheError(.noContent, "\(node.path) has no content") }
        return content
    }

    /// Downloads into the blob folder (owner-only; swept at the next open if this process dies), then keeps it.
    private func fetch(
        _ node: HierarchyNode, content: HierarchyNode.Content, from source: (any HierarchySource)?
    ) async throws {
        guard let source else {
            throw CacheError(
                .notCached, "the content of \(node.path) is not cached, and there is no source to fetch it")
        }
        let incoming = blobs.incomingFile()
        defer { try? FileManager.default.removeItem(at: incoming) }
        try await source.download(node, to: incoming)
        try await blobs.save(content.key, file: incoming, digest: content.digest)
    }
}

/// What a hierarchy is: its root, where it came from, when it was loaded and what it holds.
public struct HierarchySummary: Sendable, Hashable {
    /// The hierarchy's name.
    public var name: String
    /// The source's description (`nuxeo https://host/nuxeo /ws`), as at the load.
    public var source: String
    /// The id of the root node.
    public var rootID: String
    /// When the last load completed.
    public var loadedAt: Date
    /// How many folders it holds, the root included.
    public var folders: Int
    /// How many documents it holds.
    public var documents: Int
}
