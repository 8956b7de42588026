import Foundation
import SatchelHTTP
import SatchelJSON
import SatchelNuxeo
import SatchelRepository
import SatchelServer
import Testing

/// Nuxeo's token authentication in `satchel serve`, through `NuxeoSession`: a password buys a token once, the
/// token then stands for it (over Nuxeo REST and CMIS alike), a read-only token cannot change anything, a token
/// cannot buy more tokens, and a revoked, replaced or invented token is refused.
@Suite("Nuxeo tokens", .serialized)
struct NuxeoTokenTests {
    static let server = Task { try await ServerHarness.start() }

    static func session(_ harness: ServerHarness, auth: [any HTTPAuthProvider]) -> NuxeoSession {
        NuxeoSession(
            configuration: .init(
                serverURL: harness.url("/nuxeo"), repository: "default",
                http: HTTPClient.Configuration(retry: .never), auth: auth))
    }

    static func withPassword(_ harness: ServerHarness, _ user: String) -> NuxeoSession {
        session(harness, auth: [BasicAuth(user: user, password: "pw-\(user)")])
    }

    static func status(_ body: () async throws -> Void) async -> Int? {
        do {
            try await body()
            return nil
        } catch let error as NuxeoError {
            return error.status
        } catch {
            return -1
        }
    }

    @Test("a token acquired with the password stands for it, until revoked")
    func tokenLifecycle() async throws {
        let harness = try await Self.server.value
        let alice = Self.withPassword(harness, "alice")
        let token = try await alice.acquireToken(
            application: "Field app", device: "phone-1", deviceDescription: "Alice's phone")
        #expect(token.count >= 40)

        let byToken = Self.session(harness, auth: [NuxeoSession.tokenAuth(token)])
        #expect(try await byToken.login().username == "alice")
        let made = try await byToken.create(
            in: "/", type: "Folder", name: "token-made", properties: ["dc:title": "token-made"])
        #expect(try await byToken.document(id: made.uid).path == "/token-made")
        // The same token over CMIS: who made the folder is alice.
        let cmis = try await harness.send(
            .get, "/cmis/browser/shared/root/token-made?cmisselector=object", user: nil,
            headers: [("X-Authentication-Token", token)])
        #expect(cmis.status == 200 && String(decoding: cmis.body, as: UTF8.self).contains("\"alice\""))

        // Listed (without the token itself).
        let listed = try await harness.send(.get, "/nuxeo/api/v1/token", user: "alice")
        let text = String(decoding: listed.body, as: UTF8.self)
        #expect(text.contains("\"Field app\"") && text.contains("Alice's phone") && !text.contains(token))
        // Bob sees none of alice's.
        let bobs = try await harness.send(.get, "/nuxeo/api/v1/token", user: "bob")
        #expect(!String(decoding: bobs.body, as: UTF8.self).contains("Field app"))

        try await alice.revokeToken(application: "Field app", device: "phone-1")
        #expect(await Self.status { _ = try await byToken.login() } == 401)
        #expect(try await alice.document(id: made.uid).uid == made.uid)
    }

    @Test("asking again for the same application and device replaces the token")
    func replaced() async throws {
        let harness = try await Self.server.value
        let bob = Self.withPassword(harness, "bob")
        let first = try await bob.acquireToken(application: "app", device: "d")
        let second = try await bob.acquireToken(application: "app", device: "d")
        let other = try await bob.acquireToken(application: "app", device: "e")
        #expect(first != second)
        #expect(
            await Self.status { _ = try await Self.session(harness, auth: [NuxeoSession.tokenAuth(first)]).login() }
                == 401)
        #expect(try await Self.session(harness, auth: [NuxeoSession.tokenAuth(second)]).login().username == "bob")
        #expect(try await Self.session(harness, auth: [NuxeoSession.tokenAuth(other)]).login().username == "bob")
    }

    @Test("attack: a read-only token changes nothing, a token buys no tokens, an invented token gets nothing")
    func attacks() async throws {
        let harness = try await Self.server.value
        let alice = Self.withPassword(harness, "alice")
        let folder = try await alice.create(in: "/", type: "Folder", name: "ro-target")
        let readOnly = try await alice.acquireToken(application: "viewer", device: "tv", permission: .read)
        let viewer = Self.session(harness, auth: [NuxeoSession.tokenAuth(readOnly)])
        #expect(try await viewer.document(id: folder.uid).title == "ro-target")
        #expect(await Self.status { _ = try await viewer.create(in: "/ro-target", type: "Note", name: "x") } == 403)
        #expect(await Self.status { try await viewer.delete(id: folder.uid) } == 403)
        let cmisDelete = try await harness.send(
            .post, "/cmis/browser/shared/root?objectId=\(folder.uid)", user: nil,
            headers: [("X-Authentication-Token", readOnly), ("Content-Type", "application/x-www-form-urlencoded")],
            body: .data(Data("cmisaction=delete".utf8)))
        #expect(cmisDelete.status == 403)
        // Automation is all POST: the reads run, the changes are refused.
        guard case .document(let fetched)? = try await viewer.execute("Document.Fetch", params: ["value": "/ro-target"])
        else { throw NuxeoError(.invalidResponse, "Document.Fetch answered no document") }
        #expect(fetched.uid == folder.uid)
        #expect(try await viewer.login().username == "alice")
        #expect(
            await Self.status { try await viewer.execute("Document.Delete", input: "/ro-target") } == 403)
        #expect(
            await Self.status {
                try await viewer.execute("Document.Create", input: "/ro-target", params: ["type": "Note"])
            } == 403)
        let smuggled = try await harness.send(
            .post, "/nuxeo/api/v1/repo/default/%61utomation/Document.Delete", user: nil,
            headers: [("X-Authentication-Token", readOnly), ("Content-Type", "application/json")],
            body: .data(Data("{\"input\":\"/ro-target\"}".utf8)))
        #expect(smuggled.status == 403)
        #expect(try await alice.document(id: folder.uid).uid == folder.uid, "still there")

        let writer = try await alice.acquireToken(application: "writer", device: "pc")
        let byToken = Self.session(harness, auth: [NuxeoSession.tokenAuth(writer)])
        #expect(await Self.status { _ = try await byToken.acquireToken(application: "more", device: "pc") } == 403)

        for invented in ["", String(repeating: "A", count: 43), writer + "x", String(repeating: "z", count: 5000)] {
            let answer = try await harness.send(
                .get, "/nuxeo/api/v1/path/", user: nil, headers: [("X-Authentication-Token", invented)])
            #expect(answer.status == 401, "token \(invented.prefix(10))…")
        }
        // A token beside a good password is still the credential: a wrong one is refused.
        let both = try await harness.send(
            .get, "/nuxeo/api/v1/path/", user: "alice", headers: [("X-Authentication-Token", "nope")])
        #expect(both.status == 401)

        // A browser session cannot be made to fetch (or revoke) tokens by another site: it needs its XSRF token.
        let login = try await harness.send(
            .post, "/login", user: nil, headers: [("Content-Type", "application/x-www-form-urlencoded")],
            body: .data(Data("user=alice&password=pw-alice".utf8)))
        let cookie = try #require(login.headers["Set-Cookie"]?.split(separator: ";").first.map(String.init))
        let xsrf = try #require(
            try JSONValue(parsing: login.body)["token"]?.stringValue)
        let forged = try await harness.send(
            .get, "/nuxeo/authentication/token?applicationName=evil&deviceId=x", user: nil,
            headers: [("Cookie", cookie)])
        #expect(forged.status == 403)
        let asked = try await harness.send(
            .get, "/nuxeo/authentication/token?applicationName=app&deviceId=x", user: nil,
            headers: [("Cookie", cookie), ("X-CSRF-Token", xsrf)])
        #expect(asked.status == 200)

        // Parameters are checked.
        for query in [
            "deviceId=x", "applicationName=x", "applicationName=x&deviceId=y&permission=admin",
            "applicationName=\(String(repeating: "a", count: 300))&deviceId=y",
        ] {
            let answer = try await harness.send(.get, "/nuxeo/authentication/token?\(query)", user: "alice")
            #expect(answer.status == 400, "\(query.prefix(40))")
        }
    }

    @Test("grants are kept as digests in the store; an earlier version's tokens.json moves in once")
    func stored() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("tokens-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("db/metadata.sqlite").path
        let tokens = AccessTokens(store: try SQLiteMetadataStore(path: database))
        let token = try await tokens.issue(
            user: "alice", application: "a", device: "d", deviceDescription: nil, permission: "r")
        let written = try Data(contentsOf: URL(fileURLWithPath: database))
        #expect(written.range(of: Data(token.utf8)) == nil, "only the token's digest is kept")

        let reopened = AccessTokens(store: try SQLiteMetadataStore(path: database))
        #expect(try await reopened.grant(for: token)?.user == "alice")
        #expect(try await reopened.grant(for: token)?.permission == .read)
        #expect(try await reopened.grant(for: token + "x") == nil)

        // A file of an earlier version: its grants move into the store, and the token it stood for still works.
        let old = "old-token-\(UUID())"
        let file = folder.appendingPathComponent("tokens.json")
        try Data(
            """
            {"tokens": [{"sha256": "\(AccessTokens.digest(old))", "user": "bob", "application": "a",
                         "device": "d", "permission": "read", "created": 1700000000000}]}
            """.utf8
        ).write(to: file)
        #expect(try await AccessTokens.importFile(file, into: reopened.store) == 1)
        #expect(try await reopened.grant(for: old)?.user == "bob")
        #expect(try await reopened.grant(for: old)?.permission == .read, "a read-only grant stays read-only")
        #expect(FileManager.default.fileExists(atPath: file.path + ".imported"))

        try Data("{\"tokens\":[{\"user\":1}]}".utf8).write(to: file)
        await #expect(throws: AuthError.self) { try await AccessTokens.importFile(file, into: reopened.store) }

        let many = AccessTokens()
        for index in 0..<AccessTokens.maximumPerUser {
            _ = try await many.issue(
                user: "u", application: "a", device: "\(index)", deviceDescription: nil, permission: "rw")
        }
        await #expect(throws: AccessTokens.Refusal.self) {
            try await many.issue(
                user: "u", application: "a", device: "one more", deviceDescription: nil, permission: "rw")
        }
    }
}
