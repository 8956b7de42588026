import Foundation
import SatchelServerTestSupport
import SatchelCMIS
import SatchelCMISCore
import SatchelCache
import SatchelHTTP
import SatchelServer
import SatchelStore
import SatchelTestSupport
import Testing
import GRDB
import SatchelText

/// A tree for the cache tests, made over CMIS: `/<root>` with `folders` folders of `perFolder` small documents.
enum CacheTestTree {
    static func make(
        _ server: LiveServer, root: String, folders: Int, perFolder: Int
    ) async throws {
        let cmis = try await CMISSession.connect(
            SessionParameters(
                url: server.baseURL.appendingPathComponent("cmis/browser"), repositoryId: "shared",
                auth: [BasicAuth(user: "alice", password: "pw-alice")]))
        let top = try await cmis.createFolder(named: root, in: cmis.repositoryInfo.rootFolderId)
        for index in 0..<folders {
            let folder = try await cmis.createFolder(named: "f\(index)", in: top.id ?? "")
            try await withThrowingTaskGroup(of: Void.self) { group in
                for document in 0..<perFolder {
                    if document >= 8 { try await group.next() }
                    group.addTask {
                        let bytes = Data("document \(index)/\(document)\n".utf8)
                        _ = try await cmis.createDocument(
                            named: "d\(document).txt", in: folder.id ?? "",
                            content: .data(bytes, filename: "d\(document).txt", mimeType: "text/plain"))
                    }
                }
                try await group.waitForAll()
            }
        }
    }
}

extension SatchelCLITests {
    /// `satchel nuxeo sync`, `satchel cmis sync`, then `satchel cache` with the server stopped.
    @Suite struct CacheCommandTests {
        @Test func syncThenBrowseOffline() async throws {
            let server = try await LiveServer.start(users: ["alice"])
            var stopped = false
            try await withCleanup { () async throws in
                try await CacheTestTree.make(server, root: "Tree", folders: 2, perFolder: 3)
                // Outside the server's folder, which goes when the server stops.
                let cacheURL = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-cache-\(UUID())")
                defer { try? FileManager.default.removeItem(at: cacheURL) }
                let cacheFolder = cacheURL.path
                let keyHex = String(repeating: "ab", count: 32)
                let environment = ["SATCHEL_PASSWORD": "pw-alice", "SATCHEL_CACHE_KEY": keyHex]
                let base = server.baseURL.absoluteString
                let nuxeo = try await SatchelProcess.run(
                    [
                        "nuxeo", "sync", "nx", "/Tree", "--content", "--page-size", "4", "--url", base + "/nuxeo",
                        "--user", "alice", "--cache", cacheFolder, "-q",
                    ], environment: environment)
                #expect(nuxeo.status == 0, "\(nuxeo.stderr) \(nuxeo.stdoutText)")
                #expect(nuxeo.stdoutText.contains("nx: 3 folders, 6 documents"), "\(nuxeo.stdoutText)")
                #expect(nuxeo.stdoutText.contains("6 blobs fetched, 6 cached"), "\(nuxeo.stdoutText)")
                let cmis = try await SatchelProcess.run(
                    [
                        "cmis", "sync", "cm", "/Tree/f1", "--url", base + "/cmis/browser", "--repository", "shared",
                        "--user", "alice", "--cache", cacheFolder, "-q",
                    ], environment: environment)
                #expect(cmis.status == 0, "\(cmis.stderr)")
                #expect(cmis.stdoutText.contains("cm: 1 folders, 3 documents"), "\(cmis.stdoutText)")
                await server.stop()
                stopped = true

                func cache(_ arguments: String...) async throws -> SatchelResult {
                    try await SatchelProcess.run(
                        ["cache"] + arguments + ["--cache", cacheFolder, "-q"],
                        environment: ["SATCHEL_CACHE_KEY": keyHex])
                }
                let listed = try await cache("ls", "nx")
                #expect(listed.status == 0, "\(listed.stderr)")
                #expect(
                    listed.stdoutText.split(separator: "\n").map { $0.split(separator: " ").last ?? "" }
                        == ["f0", "f1"])
                let inner = try await cache("ls", "nx", "/Tree/f0", "--long")
                #expect(inner.stdoutText.split(separator: "\n").count == 3 && inner.stdoutText.contains("● d0.txt"))
                let cmisListed = try await cache("ls", "cm")
                #expect(
                    cmisListed.stdoutText.contains("○ d2.txt"),
                    "CMIS synced without --content: \(cmisListed.stdoutText)")
                let got = try await cache("get", "nx", "/Tree/f1/d2.txt")
                #expect(got.status == 0 && got.stdoutText == "document 1/2\n", "\(got.stderr)")
                let notCached = try await cache("get", "cm", "/Tree/f1/d2.txt")
                #expect(notCached.status == 5 && notCached.stderr.contains("not cached"), "\(notCached.stderr)")
                let missing = try await cache("ls", "nope")
                #expect(missing.status == 5, "\(missing.stderr)")
                let status = try await cache("status")
                #expect(status.stdoutText.contains("(encrypted)") && status.stdoutText.contains("blobs: 6 (limit 100)"))
                let evicted = try await cache("evict", "--max-files", "2")
                #expect(evicted.stdoutText.hasPrefix("evicted 4; 2 blobs"), "\(evicted.stdoutText)")
                #expect(try await cache("status").stdoutText.contains("blobs: 2 (limit 2)"), "the limit is kept")
                let wrongKey = try await SatchelProcess.run(
                    ["cache", "status", "--cache", cacheFolder, "-q"],
                    environment: ["SATCHEL_CACHE_KEY": String(repeating: "cd", count: 32)])
                #expect(wrongKey.status != 0 && wrongKey.stderr.contains("key"), "\(wrongKey.stderr)")
                let noKey = try await SatchelProcess.run(["cache", "status", "--cache", cacheFolder, "-q"])
                #expect(noKey.status == 2 && noKey.stderr.contains("SATCHEL_CACHE_PASSPHRASE"))
                #expect(try await cache("clear", "--hierarchy", "cm").status == 0)
                #expect(try await cache("ls", "cm").status == 5)
                #expect(try await cache("clear").status == 0)
                #expect(try await cache("status").stdoutText.contains("blobs: 0"))
            } cleanup: {
                if !stopped { await server.stop() }
            }
        }
    }
}

/// `satchel cmis sync` and `satchel nuxeo sync` killed with SIGKILL at random moments while they load a tree of
/// 1,000 documents: every time, the cache shows the last complete tree or none, never part of one.
@Suite("Offline cache: killed while loading")
struct CacheKillLoopTests {
    @Test("kills during sync never leave a partial tree")
    func killedWhileSyncing() async throws {
        let binary = try #require(SatchelProcess.binary, "the satchel binary was not built")
        let server = try await LiveServer.start(users: ["alice"])
        try await withCleanup { () async throws in
            try await CacheTestTree.make(server, root: "Big", folders: 10, perFolder: 100)
            let folder = server.directory.appendingPathComponent("cache")
            let keyHex = String(repeating: "5a", count: 32)
            let key = try StoreKey.raw(Data(repeating: 0x5a, count: 32))
            let environment = ["SATCHEL_PASSWORD": "pw-alice", "SATCHEL_CACHE_KEY": keyHex]
            let base = server.baseURL.absoluteString
            func sync(_ protocolName: String, _ name: String) -> [String] {
                protocolName == "cmis"
                    ? [
                        "cmis", "sync", name, "/Big", "--page-size", "50", "--url", base + "/cmis/browser",
                        "--repository", "shared", "--user", "alice", "--cache", folder.path, "-q",
                    ]
                    : [
                        "nuxeo", "sync", name, "/Big", "--page-size", "50", "--url", base + "/nuxeo", "--user", "alice",
                        "--cache", folder.path, "-q",
                    ]
            }
            // One complete load of "kept" first: the tree every later kill must leave intact.
            let started = ContinuousClock.now
            let first = try await ChildProcess.run(binary, sync("cmis", "kept"), environment: environment)
            #expect(first.status == 0, "\(first.output)")
            // Kills land anywhere from start-up to just after a whole load takes.
            let whole = Int((ContinuousClock.now - started).timeInterval * 1000)

            var kills = 0
            var completed = 0
            var absent = 0
            let deadline = ContinuousClock.now + .seconds(120)
            for round in 0..<24 {
                guard ContinuousClock.now < deadline else {
                    Issue.record("only \(round) rounds within 120 s")
                    break
                }
                let protocolName = round % 2 == 0 ? "cmis" : "nuxeo"
                // A reload of the complete tree, or a first load of a new one.
                let name = round % 3 == 0 ? "fresh-\(round)" : "kept"
                let run = try await ChildProcess.run(
                    binary, sync(protocolName, name),
                    killAfter: .milliseconds(Int.random(in: 20...max(40, whole + whole / 5))),
                    environment: environment)
                if run.signalled { kills += 1 }
                let cache = try await ContentCache.open(at: folder, key: key)
                for candidate in Set(["kept", name]) {
                    guard let hierarchy = try? await cache.hierarchy(candidate) else {
                        #expect(candidate != "kept", "the complete tree disappeared")
                        absent += 1
                        continue
                    }
                    let summary = try await hierarchy.summary()
                    #expect(summary.folders == 11 && summary.documents == 1000, "\(candidate): \(summary)")
                    // Walked from the root, the whole tree is there.
                    var documents = 0
                    for child in try await hierarchy.childrenOfRoot() {
                        documents += try await hierarchy.documents(of: child.id).count
                    }
                    #expect(documents == 1000, "\(candidate) after round \(round)")
                    if candidate == name { completed += 1 }
                }
                try await cache.close()
            }
            #expect(kills >= 8, "kills: \(kills)")
            #expect(absent > 0 || completed > 0)
            print(
                "cache kill loop: a whole load \(whole) ms; \(kills) kills, \(completed) loads completed, "
                    + "\(absent) absent")
            let nodes = try await {
                let cache = try await ContentCache.open(at: folder, key: key)
                let count = try await cache.store.database.read { db in
                    try Int.fetchOne(db, sql: "SELECT count(*) FROM node")
                }
                try await cache.close()
                return count
            }()
            let complete = try await {
                let cache = try await ContentCache.open(at: folder, key: key)
                let count = try await cache.hierarchies().count
                try await cache.close()
                return count
            }()
            #expect(nodes == complete * 1011, "no rows of killed loads remain")
        } cleanup: {
            await server.stop()
        }
    }
}
