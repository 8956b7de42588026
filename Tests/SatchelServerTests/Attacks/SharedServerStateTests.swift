import Foundation
import SatchelHTTP
import SatchelJSON
import SatchelNuxeo
import SatchelServer
import SatchelTestSupport
import Testing

extension Attacks {
    /// Two `satchel serve` processes on one PostgreSQL database, as behind a load balancer: a lock, a trash mark and
    /// a token made through one are honoured by the other. Before, each kept them in files of its own, so Bob
    /// changed through the second server what Alice locked through the first, a document trashed through one stayed
    /// in the other's searches, and a token worked on one server only.
    @Suite("Server state shared through PostgreSQL")
    struct SharedServerState {
        @Test("a lock, a trash mark and a token made through one server hold on the other")
        func twoServersOnOneDatabase() async throws {
            let postgres = try await TemporaryPostgres.start()
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-shared-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            var servers: [ServerProcess] = []
            do {
                let users = folder.appendingPathComponent("users.json")
                try UsersFile(
                    entries: [
                        "alice": try PasswordHash.make(password: "pw-alice", rounds: 1_000),
                        "bob": try PasswordHash.make(password: "pw-bob", rounds: 1_000),
                    ]
                ).save(to: users)
                let database = try postgres.createDatabase()
                for name in ["first", "second"] {
                    servers.append(
                        try await ServerProcess.start(
                            try ServerProcess.satchelBinary(),
                            arguments: [
                                "--data", folder.appendingPathComponent(name).path, "--users", users.path,
                                "--postgres", database,
                            ]))
                }
                try await exercise(first: servers[0].url, second: servers[1].url)
            } catch {
                for server in servers { await server.stop() }
                await postgres.stop()
                try? FileManager.default.removeItem(at: folder)
                throw error
            }
            for server in servers { await server.stop() }
            await postgres.stop()
            try? FileManager.default.removeItem(at: folder)
        }

        func session(_ server: URL, _ auth: any HTTPAuthProvider) -> NuxeoSession {
            NuxeoSession(
                configuration: .init(
                    serverURL: server.appendingPathComponent("nuxeo"), repository: "default",
                    http: HTTPClient.Configuration(retry: .never), auth: [auth]))
        }

        func exercise(first: URL, second: URL) async throws {
            let aliceOnFirst = session(first, BasicAuth(user: "alice", password: "pw-alice"))
            let bobOnSecond = session(second, BasicAuth(user: "bob", password: "pw-bob"))
            let base = "shared-\(UUID().uuidString.prefix(8))"
            let folder = try await aliceOnFirst.create(in: "/", type: "Folder", name: base)
            let note = try await aliceOnFirst.create(in: "/" + base, type: "Note", name: "locked")
            let other = try await aliceOnFirst.create(in: "/" + base, type: "Note", name: "trashed")

            // The lock: taken through the first server, it stops Bob on the second.
            _ = try await aliceOnFirst.lock(note.uid)
            #expect(try await bobOnSecond.lockStatus(of: note.uid)?.owner == "alice")
            let update = await #expect(throws: NuxeoError.self) {
                _ = try await bobOnSecond.update(note, properties: ["dc:title": "bob's"])
            }
            #expect(update?.status == 409, "\(String(describing: update))")
            let unlock = await #expect(throws: NuxeoError.self) { _ = try await bobOnSecond.unlock(note.uid) }
            #expect(unlock?.status == 403, "\(String(describing: unlock))")
            let relock = await #expect(throws: NuxeoError.self) { _ = try await bobOnSecond.lock(note.uid) }
            #expect(relock?.status == 409, "\(String(describing: relock))")
            #expect(try await aliceOnFirst.document(id: note.uid).title == "locked")

            // The trash: out of the second server's live searches, in its trash searches, in one folder or across.
            _ = try await aliceOnFirst.trash(other.uid)
            func titles(_ nxql: String) async throws -> [String] {
                var result: [String] = []
                for try await document in bobOnSecond.query(nxql) { result.append(document.title ?? "") }
                return result.sorted()
            }
            let inFolder = "SELECT * FROM Document WHERE ecm:parentId = '\(folder.uid)'"
            #expect(try await titles(inFolder + " AND ecm:isTrashed = 0") == ["locked"])
            #expect(try await titles(inFolder + " AND ecm:isTrashed = 1") == ["trashed"])
            let byName = "SELECT * FROM Note WHERE ecm:path STARTSWITH '/\(base)'"
            #expect(try await titles(byName + " AND ecm:isTrashed = 0") == ["locked"])
            #expect(try await titles(byName + " AND ecm:isTrashed = 1") == ["trashed"])
            var children: [String] = []
            for try await child in bobOnSecond.children(ofPath: "/" + base) { children.append(child.title ?? "") }
            #expect(children == ["locked"])
            #expect(try await bobOnSecond.document(id: other.uid).isTrashed == true)

            // The token: issued by the first server, accepted by the second; revoked there, refused by the first.
            let token = try await aliceOnFirst.acquireToken(application: "shared-test", device: "phone")
            let tokenOnSecond = session(second, NuxeoSession.tokenAuth(token))
            #expect(try await tokenOnSecond.document(id: note.uid).lockOwner == "alice")
            _ = try await tokenOnSecond.unlock(note.uid)
            #expect(try await aliceOnFirst.lockStatus(of: note.uid) == nil, "unlocked through the second server")
            try await session(second, BasicAuth(user: "alice", password: "pw-alice"))
                .revokeToken(application: "shared-test", device: "phone")
            let revoked = await #expect(throws: NuxeoError.self) {
                _ = try await session(first, NuxeoSession.tokenAuth(token)).document(id: note.uid)
            }
            #expect(revoked?.status == 401, "\(String(describing: revoked))")

            // Deleting through one server forgets the marks for both: the folder goes, with what is locked by Alice.
            _ = try await aliceOnFirst.lock(note.uid)
            try await aliceOnFirst.delete(id: folder.uid)
            await #expect(throws: NuxeoError.self) { _ = try await bobOnSecond.lockStatus(of: note.uid) }
        }
    }
}
