import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServer
import SatchelTestSupport
import Testing
import SatchelJSON
import Logging

/// Rendered object reads are kept while their repository is unchanged: every kind of change must show in the
/// very next read, by id and by path, for the user who made it and for another.
@Suite("Cached object reads never go stale")
struct ResponseCacheTests {
    @Test(arguments: [false, true])
    func everyChangeShowsInTheNextRead(sqlite: Bool) async throws {
        let harness = try await ServerHarness.start(sqlite: sqlite)
        try await withCleanup { () async throws in
            let alice = try await harness.session("alice", binding: .browser)
            let root = alice.repositoryInfo.rootFolderId
            let folder = try #require(try await alice.createFolder(named: "cached", in: root).id)
            let document = try #require(try await alice.createDocument(named: "a.txt", in: folder).id)
            let byId = "/cmis/browser/shared/root?objectId=\(document)&cmisselector=object&succinct=true"
            let byPath = "/cmis/browser/shared/root/cached/a.txt?cmisselector=object&succinct=true"
            func name(_ path: String, _ user: String = "bob") async throws -> String? {
                let response = try await harness.send(.get, path, user: user)
                guard response.status == 200 else { return "status \(response.status)" }
                return try response.json()["succinctProperties"]?["cmis:name"]?.stringValue
            }
            for _ in 0..<2 {  // the second read is a cache hit
                #expect(try await name(byId) == "a.txt")
                #expect(try await name(byPath) == "a.txt")
            }
            _ = try await alice.rename(document, to: "b.txt")
            #expect(try await name(byId) == "b.txt")
            #expect(try await name(byPath) == "status 404")
            // An ACL change on the folder above: bob loses read (alice, the folder's creator, takes it away).
            let admin = try await harness.session("admin", binding: .browser)
            _ = try await admin.applyACL(
                to: root, adding: [ACE(principalId: "alice", permissions: ["cmis:write"])],
                removing: [ACE(principalId: "cmis:anyone", permissions: ["cmis:write"])])
            #expect(try await name(byId) == "status 403")
            #expect(try await name(byId, "alice") == "b.txt")
            try await alice.delete(document)
            #expect(try await name(byId, "alice") == "status 404")
        } cleanup: {
            await harness.stop()
        }
    }

    @Test func aSecondServerCannotOpenTheSameSQLiteFolder() async throws {
        let harness = try await ServerHarness.start(sqlite: true)
        try await withCleanup { () async throws in
            let configuration = ServerConfiguration(
                port: 0, dataDirectory: harness.dataDirectory,
                usersFile: harness.dataDirectory.appendingPathComponent("users.json"),
                logLevel: .critical)
            await #expect(throws: ServerError.self) {
                _ = try await SatchelServerApp(configuration: configuration).start()
            }
            // Nor a server keeping metadata in memory, whose start-up would collect the SQLite server's blobs; and a
            // memory server keeps its blobs apart anyway.
            var memory = configuration
            memory.store = .memory
            await #expect(throws: ServerError.self) { _ = try await SatchelServerApp(configuration: memory).start() }
            #expect(memory.blobDirectory.lastPathComponent == "memory-blobs")
        } cleanup: {
            await harness.stop()
        }
    }
}
