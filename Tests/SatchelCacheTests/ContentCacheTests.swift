import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelCache
import SatchelCacheCMIS
import SatchelCacheNuxeo
import SatchelHTTP
import SatchelNuxeo
import SatchelServerTestSupport
import SatchelStore
import SatchelTestSupport
import Synchronization
import Testing
import GRDB

/// The offline content cache against a live `satchel serve`: a tree made over CMIS is loaded over Nuxeo REST and
/// over CMIS into encrypted caches, then browsed and opened with the server stopped. Failed and hostile loads leave
/// the previous tree; blobs are checked, evicted least recently used first, kept across a reopen, and refused when
/// tampered with.
@Suite("Content cache", .serialized)
struct ContentCacheTests {
    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("cache-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    /// `/Offline` with `Docs` (a.txt, b.txt), `Docs/Deep` (c.txt), `Empty`, and `top.txt`.
    static func makeTree(_ harness: LiveServer) async throws -> [String: Data] {
        let cmis = try await CMISSession.connect(
            SessionParameters(
                url: harness.url("/cmis/browser"), repositoryId: "shared",
                auth: [BasicAuth(user: "alice", password: "pw-alice")]))
        let root = try await cmis.createFolder(named: "Offline", in: cmis.repositoryInfo.rootFolderId)
        let docs = try await cmis.createFolder(named: "Docs", in: root.id ?? "")
        let deep = try await cmis.createFolder(named: "Deep", in: docs.id ?? "")
        _ = try await cmis.createFolder(named: "Empty", in: root.id ?? "")
        var contents: [String: Data] = [:]
        for (name, parent, path) in [
            ("b.txt", docs, "/Offline/Docs/b.txt"), ("a.txt", docs, "/Offline/Docs/a.txt"),
            ("c.txt", deep, "/Offline/Docs/Deep/c.txt"), ("top.txt", root, "/Offline/top.txt"),
        ] {
            let bytes = Data("content of \(name) ".utf8 + Data(repeating: UInt8(name.utf8.first!), count: 70_000))
            _ = try await cmis.createDocument(
                named: name, in: parent.id ?? "", content: .data(bytes, filename: name, mimeType: "text/plain"))
            contents[path] = bytes
        }
        return contents
    }

    static func sources(_ harness: LiveServer) async throws -> [(String, any HierarchySource)] {
        let nuxeo = NuxeoSession(
            configuration: .init(
                serverURL: harness.url("/nuxeo"), repository: "default", http: HTTPClient.Configuration(retry: .never),
                auth: [BasicAuth(user: "alice", password: "pw-alice")]))
        let cmis = try await CMISSession.connect(
            SessionParameters(
                url: harness.url("/cmis/browser"), repositoryId: "shared",
                auth: [BasicAuth(user: "alice", password: "pw-alice")],
                http: HTTPClient.Configuration(retry: .never)))
        return [
            ("nuxeo", NuxeoHierarchySource(session: nuxeo, rootPath: "/Offline", pageSize: 2)),
            ("cmis", CMISHierarchySource(session: cmis, rootPath: "/Offline", pageSize: 2)),
        ]
    }

    @Test(
        "a digest as Nuxeo names it is read whatever the spelling; other algorithms and bad hex are none",
        arguments: [
            ("MD5", "5D41402ABC4B2A76B9719D911017C592", "MD5:5d41402abc4b2a76b9719d911017c592"),
            ("sha-256", String(repeating: "a", count: 64), "SHA-256:" + String(repeating: "a", count: 64)),
            ("Sha1", String(repeating: "0", count: 40), "SHA-1:" + String(repeating: "0", count: 40)),
            ("md5", "5d41402abc4b2a76b9719d911017c59", nil),
            ("md5", "5d41402abc4b2a76b9719d911017c59g", nil),
            ("md5", "5d41402abc4b2a76b9719d911017c59\u{00E9}", nil),
            ("crc32", "5d41402a", nil),
            ("MD-5-", "5d41402abc4b2a76b9719d911017c592", "MD5:5d41402abc4b2a76b9719d911017c592"),
        ] as [(String, String, String?)])
    func digestNames(name: String, hex: String, expected: String?) {
        #expect(ContentDigest(algorithm: name, hex: hex)?.description == expected)
    }

    @Test("loaded over Nuxeo REST and over CMIS, browsed and opened with the server stopped")
    func browseOffline() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let harness = try await LiveServer.start(users: ["alice", "bob", "admin"], administrators: ["admin"])
        let contents = try await Self.makeTree(harness)
        let sources = try await Self.sources(harness)
        let key = StoreKey.random()
        var caches: [(String, ContentCache, any HierarchySource)] = []
        for (name, source) in sources {
            let cache = try await ContentCache.open(at: folder.appendingPathComponent(name), key: key)
            let progress = ProgressLog()
            let summary = try await cache.load("offline", from: source) { progress.record($0.nodes) }
            #expect(summary.folders == 4 && summary.documents == 4, "\(name): \(summary)")
            #expect(progress.values.count > 3, "\(name): pages of two")
            // Two blobs opened while online: cached.
            let hierarchy = try await cache.hierarchy("offline")
            for path in ["/Offline/Docs/a.txt", "/Offline/top.txt"] {
                #expect(try await cache.data(of: try await hierarchy.node(path: path), from: source) == contents[path])
            }
            caches.append((name, cache, source))
        }
        await harness.stop()

        for (name, cache, source) in caches {
            let hierarchy = try await cache.hierarchy("offline")
            #expect(try await hierarchy.root().path == "/Offline")
            #expect(try await hierarchy.childrenOfRoot().map(\.name) == ["Docs", "Empty", "top.txt"], "\(name)")
            let docs = try await hierarchy.node(path: "/Offline/Docs")
            #expect(try await hierarchy.children(of: docs.id).map(\.name) == ["Deep", "a.txt", "b.txt"], "\(name)")
            #expect(try await hierarchy.documents(of: docs.id).map(\.name) == ["a.txt", "b.txt"])
            #expect(
                try await hierarchy.children(ofPath: "/Offline/Docs/Deep").map(\.path) == ["/Offline/Docs/Deep/c.txt"])
            #expect(try await hierarchy.hasContent(under: docs.id))
            #expect(try await !hierarchy.hasContent(under: try await hierarchy.node(path: "/Offline/Empty").id))
            #expect(try await hierarchy.hasContent(under: try await hierarchy.root().id))
            let a = try await hierarchy.node(path: "/Offline/Docs/a.txt")
            #expect(try await hierarchy.siblings(of: a.id).map(\.name) == ["Deep", "a.txt", "b.txt"])
            #expect(a.content?.length == Int64(contents[a.path]?.count ?? -1))
            #expect(a.content?.mimeType == "text/plain" && !a.isFolder && a.lastModified != nil)
            if name == "nuxeo" { #expect(a.content?.digest?.algorithm == .sha256, "the facade's digest, checked") }
            // Cached blobs open offline; the others cannot be fetched.
            #expect(try await cache.data(of: a) == contents[a.path])
            let opened = folder.appendingPathComponent("\(name)-top.txt")
            try await cache.writeContent(
                of: try await hierarchy.node(path: "/Offline/top.txt"), to: opened, from: source)
            #expect(try Data(contentsOf: opened) == contents["/Offline/top.txt"])
            let b = try await hierarchy.node(path: "/Offline/Docs/b.txt")
            await #expect(throws: (any Error).self) { _ = try await cache.data(of: b, from: source) }
            await #expect(throws: CacheError.self) { _ = try await cache.data(of: b) }
            // A reload that fails (the server is gone) keeps the tree, and says why.
            let (kept, why) = try await cache.hierarchy("offline", refreshingFrom: source, maxAge: .zero)
            #expect(why != nil)
            #expect(try await kept.childrenOfRoot().count == 3)
            #expect(try await cache.hierarchies().map(\.name) == ["offline"])
            #expect(try await cache.blobs.status().isEncrypted)
            try await cache.close()
        }
        // The database and blobs hold no plaintext.
        let blobFolder = folder.appendingPathComponent("cmis/blobs")
        for file in try FileManager.default.contentsOfDirectory(atPath: blobFolder.path) {
            let stored = try Data(contentsOf: blobFolder.appendingPathComponent(file))
            #expect(stored.range(of: Data("content of".utf8)) == nil)
        }
        let database = try Data(contentsOf: folder.appendingPathComponent("cmis/cache.sqlite"))
        #expect(database.range(of: Data("top.txt".utf8)) == nil)
        // The wrong key opens nothing.
        await #expect(throws: StoreError.self) {
            _ = try await ContentCache.open(at: folder.appendingPathComponent("cmis"), key: .random())
        }
    }

    @Test("a load that fails or is hostile leaves the tree as it was; a reload replaces it whole")
    func failedLoads() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try await ContentCache.open(at: folder, key: nil)
        let good = ScriptedSource(pages: [[Self.folderNode("r", nil, "/r")], [Self.doc("d1", "r", "/r/one")]])
        try await cache.load("t", from: good)
        let failing = ScriptedSource(
            pages: [[Self.folderNode("r", nil, "/r")], [Self.doc("d2", "r", "/r/two")]], failAfter: 1)
        await #expect(throws: ScriptedSource.Dropped.self) { try await cache.load("t", from: failing) }
        #expect(try await cache.hierarchy("t").childrenOfRoot().map(\.name) == ["one"])
        for (pages, reason) in [
            ([[Self.doc("d3", "r", "/r/three")]], "no root"),
            ([[Self.folderNode("r", nil, "/r"), Self.folderNode("s", nil, "/s")]], "two roots"),
        ] {
            await #expect(throws: CacheError.self, "\(reason)") {
                try await cache.load("t", from: ScriptedSource(pages: pages))
            }
            #expect(try await cache.hierarchy("t").childrenOfRoot().map(\.name) == ["one"], "\(reason)")
        }
        // An orphan (its parent never came) and what is under it are not kept.
        let replaced = try await cache.load(
            "t",
            from: ScriptedSource(pages: [
                [Self.folderNode("r", nil, "/r"), Self.doc("d4", "r", "/r/four")],
                [Self.folderNode("lost", "nowhere", "/x/lost"), Self.doc("d5", "lost", "/x/lost/five")],
            ]))
        #expect(replaced.documents == 1 && replaced.folders == 1)
        #expect(try await cache.hierarchy("t").childrenOfRoot().map(\.name) == ["four"])
        // Folders in a cycle (each the other's parent) hang from nothing: not kept.
        let cyclic = try await cache.load(
            "c",
            from: ScriptedSource(pages: [
                [Self.folderNode("r", nil, "/r"), Self.doc("d6", "r", "/r/six")],
                [
                    Self.folderNode("a", "b", "/r/a"), Self.folderNode("b", "a", "/r/a/b"),
                    Self.doc("d7", "b", "/r/a/b/x"),
                ],
            ]))
        #expect(cyclic.folders == 1 && cyclic.documents == 1)
        await #expect(throws: CacheError.self) { _ = try await cache.hierarchy("none") }
        try await cache.remove("t")
        await #expect(throws: CacheError.self) { _ = try await cache.hierarchy("t") }
        // Of everything loaded, only the rows of "c" (a root and a document) remain.
        let rows = try await cache.store.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM node") }
        #expect(rows == 2)
        try await cache.close()
    }

    @Test("a load in progress survives another opening of the cache; a dead process's load is discarded")
    func concurrentOpen() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let cache = try await ContentCache.open(at: folder, key: nil)
        let gate = Gate()
        let slow = ScriptedSource(
            pages: [[Self.folderNode("r", nil, "/r")], [Self.doc("d1", "r", "/r/one")]], gate: gate)
        let load = Task { try await cache.load("slow", from: slow) }
        try await gate.reached()
        // Another opening (as `satchel cache ls` in another process would) while the load waits between pages.
        let other = try await ContentCache.open(at: folder, key: nil)
        try await other.close()
        gate.open()
        #expect(try await load.value.documents == 1)
        // A load whose process died: its generation row names a lease nobody holds.
        try await cache.store.database.write { db in
            try db.execute(
                sql: "INSERT INTO generation(hierarchy, started, complete, lease) VALUES ('dead', 0, 0, 'gone')")
            try db.execute(
                sql: """
                    INSERT INTO node(generation, path, id, name, sort_key, type, is_folder)
                    VALUES (last_insert_rowid(), '/x', 'x', 'x', 'x', 'Folder', 1)
                    """)
        }
        try await cache.close()
        let reopened = try await ContentCache.open(at: folder, key: nil)
        let rows = try await reopened.store.database.read { db in
            try Int.fetchOne(db, sql: "SELECT count(*) FROM generation WHERE complete = 0")
        }
        #expect(rows == 0)
        #expect(try await reopened.hierarchy("slow").childrenOfRoot().map(\.name) == ["one"])
        try await reopened.close()
    }

    @Test("a Nuxeo sync with a condition keeps every folder, fetches within the limits, each blob once")
    func nuxeoCondition() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let harness = try await LiveServer.start(users: ["alice", "bob", "admin"], administrators: ["admin"])
        try await withCleanup { () async throws in
            _ = try await Self.makeTree(harness)
            let nuxeo = NuxeoSession(
                configuration: .init(
                    serverURL: harness.url("/nuxeo"), http: HTTPClient.Configuration(retry: .never),
                    auth: [BasicAuth(user: "alice", password: "pw-alice")]))
            let source = NuxeoHierarchySource(
                session: nuxeo, rootPath: "/Offline", condition: "dc:title LIKE 'c%' OR dc:title = 'x'", pageSize: 2)
            let cache = try await ContentCache.open(
                at: folder, key: .random(), blobLimits: BlobCache.Limits(maximumCount: 1))
            // OR is not served by this facade: refused, never widened.
            await #expect(throws: NuxeoError.self) { try await cache.load("q", from: source) }
            let narrowed = NuxeoHierarchySource(
                session: nuxeo, rootPath: "/Offline", condition: "(dc:title LIKE 'c%')", pageSize: 2)
            let summary = try await cache.load("q", from: narrowed)
            #expect(summary.folders == 4 && summary.documents == 1, "every folder, only c.txt: \(summary)")
            #expect(try await cache.hierarchy("q").children(ofPath: "/Offline/Docs/Deep").map(\.name) == ["c.txt"])
            let everything = NuxeoHierarchySource(session: nuxeo, rootPath: "/Offline")
            let all = try await cache.load("all", from: everything)
            #expect(all.documents == 4)
            let fetched = try await cache.fetchContent(of: "all", from: everything)
            #expect(fetched.fetched == 1 && fetched.overLimits == 3, "\(fetched)")
            try await cache.close()
        } cleanup: {
            await harness.stop()
        }
    }

    @Test("blobs: digests checked, least recently used evicted, order kept across a reopen, tampering refused")
    func blobs() async throws {
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = StoreKey.random()
        var cache = try await ContentCache.open(
            at: folder, key: key, blobLimits: BlobCache.Limits(maximumCount: 3, maximumBytes: 10_000))
        let source = folder.appendingPathComponent("source")
        func put(_ name: String, _ size: Int, digest: ContentDigest? = nil) async throws {
            try Data(repeating: UInt8(name.utf8.first!), count: size).write(to: source)
            try await cache.blobs.save(name, file: source, digest: digest)
        }
        try Data("hello".utf8).write(to: source)
        await #expect(throws: CacheError.self) {
            try await cache.blobs.save(
                "bad", file: source,
                digest: ContentDigest(algorithm: .sha256, hex: String(repeating: "0", count: 64)))
        }
        #expect(try await !cache.blobs.contains("bad"))
        try await cache.blobs.save(
            "md5", file: source, digest: ContentDigest(algorithm: "MD5", hex: "5d41402abc4b2a76b9719d911017c592"))
        try await put("a", 100)
        try await put("b", 100)
        _ = try await cache.blobs.data(for: "md5")  // used: now "a" is the least recent
        try await put("c", 100)
        #expect(try await !cache.blobs.contains("a"), "count limit: a went")
        #expect(try await cache.blobs.contains("md5"), "count limit: a went")
        try await cache.close()

        cache = try await ContentCache.open(
            at: folder, key: key, blobLimits: BlobCache.Limits(maximumCount: 3, maximumBytes: 10_000))
        // Used before the reopen: md5, then b, md5 again, c. Four over a limit of three: b goes; md5 b c d are
        // 10,005 bytes, over 10,000: md5 goes next (used before c).
        try await put("d", 9_900)
        #expect(try await cache.blobs.contains("d"))
        #expect(try await cache.blobs.contains("c"))
        #expect(try await !cache.blobs.contains("b"))
        #expect(try await !cache.blobs.contains("md5"))
        try await put("huge", 50_000)  // over the limit alone: kept, everything else goes
        #expect(try await cache.blobs.status().count == 1)

        // A sealed blob changed on disk: refused with the reason, and forgotten.
        let blobFolder = folder.appendingPathComponent("blobs")
        let file = try #require(try FileManager.default.contentsOfDirectory(atPath: blobFolder.path).first)
        var bytes = try Data(contentsOf: blobFolder.appendingPathComponent(file))
        bytes[bytes.count / 2] ^= 0x40
        try bytes.write(to: blobFolder.appendingPathComponent(file))
        await #expect(throws: SealedContent.Failure.self) { _ = try await cache.blobs.data(for: "huge") }
        #expect(try await !cache.blobs.contains("huge"))

        // Two sealed blobs' files swapped: each is refused, not answered with the other's bytes.
        try await cache.blobs.setLimits(BlobCache.Limits(maximumCount: 10))
        try await put("x", 100)
        try await put("y", 100)
        let names = try FileManager.default.contentsOfDirectory(atPath: blobFolder.path).sorted()
        #expect(names.count == 2)
        let first = blobFolder.appendingPathComponent(names[0])
        let second = blobFolder.appendingPathComponent(names[1])
        let swap = blobFolder.appendingPathComponent("swap")
        try FileManager.default.moveItem(at: first, to: swap)
        try FileManager.default.moveItem(at: second, to: first)
        try FileManager.default.moveItem(at: swap, to: second)
        await #expect(throws: SealedContent.Failure.self) { _ = try await cache.blobs.data(for: "x") }
        await #expect(throws: SealedContent.Failure.self) { _ = try await cache.blobs.data(for: "y") }
        // A destination that cannot be written costs nothing cached.
        try await put("z", 100)
        await #expect(throws: (any Error).self) {
            _ = try await cache.blobs.write("z", to: URL(fileURLWithPath: "/nonexistent-\(UUID())/out"))
        }
        #expect(try await cache.blobs.contains("z"))
        // What a killed process leaves in the blob folder goes at the next open.
        for junk in [".incoming-1234", ".abc.partial", "0123456789abcdef"] {
            try Data("junk".utf8).write(to: blobFolder.appendingPathComponent(junk))
        }
        try await cache.close()
        cache = try await ContentCache.open(at: folder, key: key)
        #expect(try FileManager.default.contentsOfDirectory(atPath: blobFolder.path).count == 1)
        #expect(try await cache.blobs.data(for: "z")?.count == 100)

        // Many tasks at once.
        try await cache.blobs.setLimits(BlobCache.Limits(maximumCount: 10))
        let shared = cache
        let folder = folder
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<24 {
                group.addTask {
                    let file = folder.appendingPathComponent("concurrent-\(index)")
                    try Data("blob \(index)".utf8).write(to: file)
                    try await shared.blobs.save("k\(index)", file: file)
                    _ = try await shared.blobs.data(for: "k\(index)")
                }
            }
            try await group.waitForAll()
        }
        let status = try await cache.blobs.status()
        #expect(status.count == 10)
        #expect(try FileManager.default.contentsOfDirectory(atPath: blobFolder.path).count == 10)
        try await cache.blobs.clear()
        #expect(try await cache.blobs.status().count == 0)
        try await cache.close()
    }

    static func folderNode(_ id: String, _ parent: String?, _ path: String) -> HierarchyNode {
        HierarchyNode(
            id: id, parentID: parent, path: path, name: String(path.split(separator: "/").last ?? ""),
            type: "Folder", isFolder: true)
    }

    static func doc(_ id: String, _ parent: String, _ path: String) -> HierarchyNode {
        HierarchyNode(
            id: id, parentID: parent, path: path, name: String(path.split(separator: "/").last ?? ""), type: "File",
            isFolder: false, content: .init(key: "k-\(id)"))
    }
}

/// Pages given in advance; `failAfter` drops the connection after that many pages; with a `gate`, the source
/// waits after its first page until the gate opens.
struct ScriptedSource: HierarchySource {
    struct Dropped: Error {}
    var pages: [[HierarchyNode]]
    var failAfter: Int?
    var gate: Gate?
    var description: String { "scripted" }

    func nodes() -> AsyncThrowingStream<[HierarchyNode], any Error> {
        AsyncThrowingStream { continuation in
            let task = Task {
                for (index, page) in pages.enumerated() {
                    if index == failAfter {
                        continuation.finish(throwing: Dropped())
                        return
                    }
                    continuation.yield(page)
                    if index == 0, let gate { await gate.wait() }
                }
                continuation.finish()
            }
            continuation.onTermination = { _ in task.cancel() }
        }
    }

    func download(_ node: HierarchyNode, to file: URL) async throws { throw Dropped() }
}

/// One side waits until the other opens it; the other can wait until the first is waiting.
final class Gate: Sendable {
    private let state = Mutex<(waiting: Bool, open: Bool)>((false, false))

    func wait() async {
        state.withLock { $0.waiting = true }
        while !state.withLock({ $0.open }) { try? await Task.sleep(for: .milliseconds(5)) }
    }

    func reached() async throws {
        let deadline = ContinuousClock.now + .seconds(10)
        while !state.withLock({ $0.waiting }) {
            guard ContinuousClock.now < deadline else { throw CancellationError() }
            try await Task.sleep(for: .milliseconds(5))
        }
    }

    func open() { state.withLock { $0.open = true } }
}

final class ProgressLog: Sendable {
    private let box = Mutex<[Int]>([])
    func record(_ value: Int) { box.withLock { $0.append(value) } }
    var values: [Int] { box.withLock { $0 } }
}

extension LiveServer {
    /// `pathAndQuery` on this server.
    func url(_ pathAndQuery: String) -> URL { URL(string: baseURL.absoluteString + pathAndQuery)! }
}
