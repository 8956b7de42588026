import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelJSON
import SatchelServerTestSupport
import SatchelTestSupport
import Testing

@testable import SatchelGateway

/// `satchel serve` as a gateway: a second `satchel serve` is the back-end, mounted as repository `docs`, and the
/// CMIS client talks to the gateway over each binding while the gateway talks to the back-end over the other.
@Suite("satchel serve as a gateway to a back-end CMIS repository", .serialized)
struct GatewayTests {
    /// The back-end and the gateway, both real servers on loopback.
    struct Pair {
        let backend: LiveServer
        let gateway: LiveServer

        func stop() async {
            await gateway.stop()
            await backend.stop()
        }

        /// A Browser-binding GET on the gateway, answered as it is (no status check, no retries).
        func get(_ path: String, user: String) async throws -> HTTPClient.Response {
            let client = HTTPClient(
                configuration: HTTPClient.Configuration(retry: .never),
                auth: [BasicAuth(user: user, password: "pw-\(user)")])
            var request = HTTPClient.Request(.get, url: URL(string: gateway.baseURL.absoluteString + path)!)
            request.validatesStatus = false
            return try await client.send(request)
        }

        func session(
            _ user: String, binding: SessionParameters.Binding = .browser, repository: String = "docs",
            password: String? = nil
        ) async throws -> CMISSession {
            try await CMISSession.connect(
                SessionParameters(
                    binding: binding, url: gateway.baseURL.appendingPathComponent(GatewayTests.path(binding)),
                    repositoryId: repository, auth: [BasicAuth(user: user, password: password ?? "pw-\(user)")],
                    http: HTTPClient.Configuration(retry: .never)))
        }
    }

    static func path(_ binding: SessionParameters.Binding) -> String {
        binding == .browser ? "cmis/browser" : "cmis/atom"
    }

    static func mount(
        _ backend: URL, binding: SessionParameters.Binding, users: GatewayConfiguration.Users,
        myDocuments: String? = nil, timeout: Duration = .seconds(30)
    ) -> GatewayConfiguration.Mount {
        GatewayConfiguration.Mount(
            id: "docs", name: "Back-end documents", url: backend.appendingPathComponent(path(binding)),
            binding: binding == .browser ? .browser : .atomPub, repositoryId: "shared", users: users,
            myDocuments: myDocuments, timeout: timeout)
    }

    /// A back-end with users alice, bob and svc, and a gateway (users alice and bob) mounting its shared
    /// repository as `docs` over `binding`.
    static func start(
        backendBinding binding: SessionParameters.Binding,
        users: GatewayConfiguration.Users = .serviceAccount(user: "svc", password: "pw-svc"),
        myDocuments: String? = nil, provisioner: GatewayConfiguration.Account? = nil
    ) async throws -> Pair {
        let backend = try await LiveServer.start(users: ["alice", "bob", "svc"], administrators: ["svc"])
        do {
            var mount = Self.mount(backend.baseURL, binding: binding, users: users, myDocuments: myDocuments)
            mount.provisioner = provisioner
            let gateway = try await LiveServer.start(
                users: ["alice", "bob"], gateway: GatewayConfiguration(mounts: [mount]))
            return Pair(backend: backend, gateway: gateway)
        } catch {
            await backend.stop()
            throw error
        }
    }

    /// The session's error, or a failure when there was none.
    static func error(_ body: () async throws -> Void) async -> CMISError? {
        do {
            try await body()
            Issue.record("expected a CMIS error")
            return nil
        } catch let error as CMISError {
            return error
        } catch {
            Issue.record("expected a CMIS error, got \(error)")
            return nil
        }
    }

    @Test(
        "every common operation reaches the back-end and comes back: folders, content, Range, paging, query, change tokens",
        arguments: [
            (SessionParameters.Binding.browser, SessionParameters.Binding.atomPub),
            (.atomPub, .browser), (.browser, .browser),
        ])
    func operations(client: SessionParameters.Binding, backend: SessionParameters.Binding) async throws {
        let pair = try await Self.start(backendBinding: backend)
        try await withCleanup { () async throws in
            let session = try await pair.session("alice", binding: client)
            #expect(session.repositoryInfo.id == "docs")
            #expect(session.repositoryInfo.name == "Back-end documents")
            let root = session.repositoryInfo.rootFolderId

            let folder = try await session.createFolder(named: "Reports-\(client)", in: root)
            let folderId = try #require(folder.id)
            var bytes = [UInt8](repeating: 0, count: 3 * 1024 * 1024 + 17)
            for index in bytes.indices { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 9) }
            let document = try await session.createDocument(
                named: "big.bin", in: folderId, content: .data(Data(bytes), filename: "big.bin"))
            let documentId = try #require(document.id)
            for index in 0..<5 {
                _ = try await session.createDocument(
                    named: "note-\(index).txt", in: folderId, content: .data(Data("n\(index)".utf8), filename: "n.txt"))
            }

            // What the back-end holds is what went through the gateway.
            let direct = try await CMISSession.connect(
                SessionParameters(
                    url: pair.backend.baseURL.appendingPathComponent("cmis/browser"), repositoryId: "shared",
                    auth: [BasicAuth(user: "svc", password: "pw-svc")]))
            #expect(try await direct.content(of: documentId) == Data(bytes))
            #expect(try await direct.object(id: folderId).name == "Reports-\(client)")

            // Content back through the gateway, whole and in part.
            #expect(try await session.content(of: documentId) == Data(bytes))
            let part = try await session.content(of: documentId, range: .bytes(1_000_000...1_000_099))
            #expect(part == Data(bytes[1_000_000...1_000_099]))

            // Paging passes through.
            let page = try await session.childrenPage(of: folderId, skipCount: 2, maxItems: 3)
            #expect(page.objects.count == 3)
            #expect(page.hasMoreItems)
            #expect(page.numItems == 6)

            let found = try await session.query(
                "SELECT cmis:objectId FROM cmis:document WHERE cmis:name = 'note-3.txt'")
            #expect(found.objects.count == 1)

            // A stale change token is refused by the back-end, with its own exception.
            let fresh = try await session.object(id: documentId, useCache: false)
            _ = try await session.rename(documentId, to: "renamed.bin")
            let conflict = await Self.error {
                _ = try await session.updateProperties(
                    of: documentId, [CMISProperty(id: "cmis:name", type: .string, values: [.string("again.bin")])],
                    changeToken: fresh.changeToken)
            }
            #expect(conflict?.code == .updateConflict)

            // The back-end's not-found, with its message.
            let missing = await Self.error { _ = try await session.object(id: "no-such-object", useCache: false) }
            #expect(missing?.code == .objectNotFound)
            #expect(missing?.status == 404)

            _ = try await session.deleteTree(folderId)
            let gone = await Self.error { _ = try await direct.object(id: folderId, useCache: false) }
            #expect(gone?.code == .objectNotFound)

            // The local repositories are still there beside the mount.
            let infos = try await CMISSession.repositories(
                SessionParameters(
                    binding: client, url: pair.gateway.baseURL.appendingPathComponent(Self.path(client)),
                    auth: [BasicAuth(user: "alice", password: "pw-alice")]))
            #expect(Set(infos.map(\.id)) == ["shared", "mydocs-alice", "docs"])
        } cleanup: {
            await pair.stop()
        }
    }

    @Test(
        "names beyond ASCII survive every write path through a mount: form, multipart, AtomPub entries, file names",
        arguments: [
            (SessionParameters.Binding.browser, SessionParameters.Binding.atomPub),
            (.atomPub, .browser), (.browser, .browser), (.atomPub, .atomPub),
        ])
    func nonASCIINames(client: SessionParameters.Binding, backend: SessionParameters.Binding) async throws {
        let pair = try await Self.start(backendBinding: backend)
        try await withCleanup { () async throws in
            let session = try await pair.session("alice", binding: client)
            let folder = try await session.createFolder(
                named: "Ordner Äöü \(client)", in: session.repositoryInfo.rootFolderId)
            let folderId = try #require(folder.id)
            let file = FileManager.default.temporaryDirectory.appendingPathComponent("Grüße-\(UUID()).txt")
            try Data("Grüße aus Köln".utf8).write(to: file)
            defer { try? FileManager.default.removeItem(at: file) }
            let fromFile = try await session.createDocument(
                named: "Schriftstück.txt", in: folderId,
                content: .file(file, filename: "Schriftstück.txt", mimeType: "text/plain"))
            let inMemory = try await session.createDocument(
                named: "Übersicht €.txt", in: folderId,
                content: .data(Data("€".utf8), filename: "Übersicht €.txt", mimeType: "text/plain"))
            let renamed = try await session.rename(try #require(inMemory.id), to: "Straße ß – 東京.txt")

            let direct = try await CMISSession.connect(
                SessionParameters(
                    url: pair.backend.baseURL.appendingPathComponent("cmis/browser"), repositoryId: "shared",
                    auth: [BasicAuth(user: "svc", password: "pw-svc")]))
            #expect(try await direct.object(id: folderId, useCache: false).name == "Ordner Äöü \(client)")
            let stored = try await direct.object(id: try #require(fromFile.id), useCache: false)
            #expect(stored.name == "Schriftstück.txt")
            #expect(stored.contentStreamFileName == "Schriftstück.txt")
            #expect(try await direct.content(of: try #require(fromFile.id)) == Data("Grüße aus Köln".utf8))
            let again = try await direct.object(id: try #require(renamed.id), useCache: false)
            #expect(again.name == "Straße ß – 東京.txt")
        } cleanup: {
            await pair.stop()
        }
    }

    @Test("finding 7: over an AtomPub back-end, a folder of a document type or a document of a folder type is refused")
    func baseTypeChecked() async throws {
        let pair = try await Self.start(backendBinding: .atomPub)
        try await withCleanup { () async throws in
            let session = try await pair.session("alice")
            let root = session.repositoryInfo.rootFolderId
            let folder = await Self.error {
                _ = try await session.createFolder(named: "not-a-folder", in: root, typeId: "cmis:document")
            }
            #expect(folder?.code == .constraint, "\(String(describing: folder))")
            #expect(
                folder?.message.contains("needs a type based on cmis:folder") == true, "\(String(describing: folder))")
            let document = await Self.error {
                _ = try await session.createDocument(named: "not-a-document", in: root, typeId: "cmis:folder")
            }
            #expect(document?.code == .constraint, "\(String(describing: document))")
            // Nothing reached the back-end's repository.
            let direct = try await CMISSession.connect(
                SessionParameters(
                    binding: .browser, url: pair.backend.baseURL.appendingPathComponent("cmis/browser"),
                    repositoryId: "shared", auth: [BasicAuth(user: "alice", password: "pw-alice")]))
            var names: [String] = []
            for try await child in direct.children(of: direct.repositoryInfo.rootFolderId) {
                names.append(child.object.name ?? "")
            }
            #expect(!names.contains("not-a-folder") && !names.contains("not-a-document"), "\(names)")
            // The base types themselves still create what they say.
            let made = try await session.createFolder(named: "a-folder", in: root)
            #expect(made.baseType == .folder)
        } cleanup: {
            await pair.stop()
        }
    }

    @Test("a back-end that is down answers each request with 503 naming it; the gateway and its local store carry on")
    func backendDown() async throws {
        let pair = try await Self.start(backendBinding: .browser)
        try await withCleanup { () async throws in
            let session = try await pair.session("alice")
            await pair.backend.stop()

            let failure = await Self.error { _ = try await session.object(id: session.repositoryInfo.rootFolderId) }
            #expect(failure?.status == 503)
            #expect(failure?.message.contains("back-end docs unreachable") == true, "\(String(describing: failure))")

            let local = try await pair.session("alice", repository: "shared")
            let folder = try await local.createFolder(named: "still-here", in: local.repositoryInfo.rootFolderId)
            #expect(folder.name == "still-here")
            let infos = try await CMISSession.repositories(
                SessionParameters(
                    url: pair.gateway.baseURL.appendingPathComponent("cmis/browser"),
                    auth: [BasicAuth(user: "alice", password: "pw-alice")]))
            #expect(Set(infos.map(\.id)) == ["shared", "mydocs-alice"])
        } cleanup: {
            await pair.stop()
        }
    }

    @Test("a back-end that refuses the service account gives permissionDenied naming the account, not a 401")
    func refusedServiceAccount() async throws {
        let pair = try await Self.start(
            backendBinding: .browser, users: .serviceAccount(user: "svc", password: "wrong"))
        try await withCleanup { () async throws in
            let response = try await pair.get("/cmis/browser/docs?cmisselector=repositoryInfo", user: "alice")
            let body = String(decoding: response.body, as: UTF8.self)
            #expect(response.status == 403, "\(body)")
            #expect(body.contains("permissionDenied") && body.contains("refused the service account svc"), "\(body)")
            // alice herself is signed in: her own repositories answer.
            #expect(try await pair.get("/cmis/browser/shared?cmisselector=repositoryInfo", user: "alice").status == 200)
        } cleanup: {
            await pair.stop()
        }
    }

    @Test("a back-end slower than the mount's timeout gives a clear error in bounded time")
    func slowBackend() async throws {
        let backend = try await LiveServer.start(users: ["svc"], administrators: ["svc"])
        let proxy = try FaultyTCPProxy(upstreamPort: backend.port)
        let mount = Self.mount(
            proxy.url, binding: .browser, users: .serviceAccount(user: "svc", password: "pw-svc"),
            timeout: .seconds(1))
        let gateway = try await LiveServer.start(users: ["alice"], gateway: GatewayConfiguration(mounts: [mount]))
        defer {
            Task {
                await gateway.stop()
                proxy.stop()
                await backend.stop()
            }
        }
        let session = try await Pair(backend: backend, gateway: gateway).session("alice")
        proxy.setFaults(FaultyTCPProxy.Faults(latency: .seconds(4)))
        let start = ContinuousClock.now
        let failure = await Self.error { _ = try await session.object(id: session.repositoryInfo.rootFolderId) }
        #expect(ContinuousClock.now - start < .seconds(4))
        #expect(failure?.status == 503)
        #expect(failure?.message.contains("back-end docs unreachable") == true, "\(String(describing: failure))")
    }

    @Test(
        "passed through: each user acts as themself, gets a MyDocuments folder of their own, and cannot reach another's"
    )
    func passThroughAndMyDocuments() async throws {
        let pair = try await Self.start(
            backendBinding: .atomPub, users: .passThrough, myDocuments: "/Users",
            provisioner: GatewayConfiguration.Account(user: "svc", password: "pw-svc"))
        try await withCleanup { () async throws in
            // The back-end's administrator closes its root (whose ACEs reach everything below it) and makes /Users.
            let admin = try await CMISSession.connect(
                SessionParameters(
                    url: pair.backend.baseURL.appendingPathComponent("cmis/browser"), repositoryId: "shared",
                    auth: [BasicAuth(user: "svc", password: "pw-svc")]))
            let root = admin.repositoryInfo.rootFolderId
            _ = try await admin.applyACL(
                to: root, removing: [ACE(principalId: "cmis:anyone", permissions: ["cmis:write"])])
            let users = try await admin.createFolder(named: "Users", in: root)
            // Someone made alice's folder before her first use, and gave bob a right on it: her first use takes it
            // back.
            let early = try await admin.createFolder(named: "alice", in: try #require(users.id))
            _ = try await admin.applyACL(
                to: try #require(early.id), adding: [ACE(principalId: "bob", permissions: ["cmis:write"])])

            let info = try await pair.get("/cmis/browser/docs?cmisselector=repositoryInfo", user: "alice")
            #expect(info.status == 200, "\(String(decoding: info.body, as: UTF8.self))")
            let alice = try await pair.session("alice")
            let aliceFolder = try #require(alice.myDocumentsFolderId)
            #expect(aliceFolder == early.id)
            let locked = try await admin.acl(of: aliceFolder)
            #expect(!locked.aces.contains { $0.isDirect && $0.principalId == "bob" }, "\(locked)")
            #expect(locked.aces.contains { $0.isDirect && $0.principalId == "alice" && $0.permissions == ["cmis:all"] })
            #expect(alice.xsrfToken != nil)

            // Notes (the Mobile Documents sample) keep to alice's folder.
            let notes = MobileDocumentsNotes(session: alice)
            #expect(notes.folderId == aliceFolder)
            let note = try await notes.create(named: "todo.txt", text: Data("milk".utf8))
            #expect(try await notes.text(of: note) == Data("milk".utf8))
            // Created on the back-end by alice herself.
            #expect(try await admin.object(id: try #require(note.id)).createdBy == "alice")

            let bob = try await pair.session("bob")
            let bobFolder = try #require(bob.myDocumentsFolderId)
            #expect(bobFolder != aliceFolder)
            let denied = await Self.error { _ = try await bob.object(id: try #require(note.id), useCache: false) }
            #expect(
                denied?.code == .permissionDenied || denied?.code == .objectNotFound, "\(String(describing: denied))")

            // A wrong password at Satchel never reaches the back-end; the back-end refusing a right one is explained.
            let wrong = await Self.error { _ = try await pair.session("bob", password: "nope") }
            #expect(wrong?.code == .unauthorized)
        } cleanup: {
            await pair.stop()
        }
    }

    @Test("a gateway file: checked, no passwords in it, secrets from the environment or a private file")
    func configurationFile() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("gateway-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("gateway.json")
        func write(_ text: String, mode: Int = 0o600) throws {
            try Data(text.utf8).write(to: file)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: file.path)
        }
        func failure(_ text: String, environment: [String: String] = [:], mode: Int = 0o600) throws -> String {
            try write(text, mode: mode)
            do {
                _ = try GatewayConfiguration.load(from: file, environment: environment)
                return "accepted"
            } catch let error as GatewayError {
                return error.message
            }
        }
        let good = #"""
            {"repositories": [{"id": "docs", "url": "http://127.0.0.1:9/cmis/browser", "repositoryId": "A1",
              "users": {"serviceAccount": {"user": "svc", "passwordEnv": "DOCS_PW"}}, "timeoutSeconds": 5}]}
            """#
        try write(good)
        let configuration = try GatewayConfiguration.load(from: file, environment: ["DOCS_PW": "secret"])
        #expect(configuration.mounts.first?.users == .serviceAccount(user: "svc", password: "secret"))
        #expect(configuration.mounts.first?.timeout == .seconds(5))

        #expect(try failure(good).contains("DOCS_PW"))
        #expect(try failure(good, environment: ["DOCS_PW": "x"], mode: 0o666).contains("changed by others"))
        #expect(
            try failure(
                #"{"repositories": [{"id": "d", "url": "http://h/", "repositoryId": "A", "users": {"serviceAccount": {"user": "s", "password": "p"}}}]}"#
            ).contains("may not be written in the file"))
        #expect(
            try failure(
                #"{"repositories": [{"id": "d", "url": "http://h/", "repositoryId": "A", "users": {"serviceAccount": {"user": "s", "passwordEnv": "P"}}, "myDocuments": "/Users"}]}"#,
                environment: ["P": "x"]
            ).contains("needs \"users\": \"passThrough\""))
        #expect(
            try failure(
                #"{"repositories": [{"id": "mydocs-x", "url": "http://h/", "repositoryId": "A", "users": "passThrough"}]}"#
            )
            .contains("MyDocuments"))
        #expect(
            try failure(
                #"{"repositories": [{"id": "d", "url": "file:///etc", "repositoryId": "A", "users": "passThrough"}]}"#
            )
            .contains("not an http or https URL"))

        #expect(
            try failure(
                #"{"repositories": [{"id": "shared", "url": "http://127.0.0.1/", "repositoryId": "A", "users": "passThrough"}]}"#
            )
            .contains("own shared repository"))
        #expect(
            try failure(
                #"{"repositories": [{"id": "d", "url": "https://u:p@h/", "repositoryId": "A", "users": "passThrough"}]}"#
            )
            .contains("holds credentials"))
        #expect(
            try failure(
                #"{"repositories": [{"id": "d", "url": "http://cmis.example.com/", "repositoryId": "A", "users": "passThrough"}]}"#
            )
            .contains("must be https"))

        let secret = folder.appendingPathComponent("pw")
        try Data("from-file\n".utf8).write(to: secret)
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: secret.path)
        let fromFile = #"""
            {"repositories": [{"id": "docs", "url": "https://cmis.example.com/atom", "binding": "atomPub",
              "repositoryId": "A1", "users": {"serviceAccount": {"user": "svc", "passwordFile": "pw"}}}]}
            """#
        #expect(try failure(fromFile).contains("may be read by others"))
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: secret.path)
        try write(fromFile)
        let loaded = try GatewayConfiguration.load(from: file, environment: [:])
        #expect(loaded.mounts.first?.users == .serviceAccount(user: "svc", password: "from-file"))
        #expect(loaded.mounts.first?.binding == .atomPub)
    }

    @Test("a range through the gateway: a whole answer is skipped forward, a 206 that starts later is refused")
    func rangeAnswers() throws {
        #expect(try RemoteRepository.bytesToSkip(asked: nil, status: 200, contentRange: nil, mount: "docs") == 0)
        #expect(
            try RemoteRepository.bytesToSkip(asked: 100...199, status: 200, contentRange: nil, mount: "docs") == 100)
        #expect(
            try RemoteRepository.bytesToSkip(
                asked: 150...199, status: 206, contentRange: "bytes 100-199/1000", mount: "docs") == 50)
        #expect(
            try RemoteRepository.bytesToSkip(
                asked: 150...199, status: 206, contentRange: "bytes 150-199/1000", mount: "docs") == 0)
        #expect(throws: CMISError.self) {
            try RemoteRepository.bytesToSkip(
                asked: 150...199, status: 206, contentRange: "bytes 200-299/1000", mount: "docs")
        }
        #expect(throws: CMISError.self) {
            try RemoteRepository.bytesToSkip(asked: 150...199, status: 206, contentRange: nil, mount: "docs")
        }
    }

    /// The Nuxeo API over a mount places documents through the one-at-a-time ``CMISService/placements``: a document
    /// read by id, and a folder's children, come with their paths and parents from the back-end.
    @Test("the Nuxeo API over a mount: paths and parents of documents come from the back-end")
    func nuxeoOverAMount() async throws {
        let pair = try await Self.start(backendBinding: .browser)
        try await withCleanup { () async throws in
            let session = try await pair.session("alice")
            let folder = try await session.createFolder(named: "placed", in: session.repositoryInfo.rootFolderId)
            let folderId = try #require(folder.id)
            let document = try await session.createDocument(
                named: "a.txt", in: folderId, content: .data(Data("alpha".utf8), filename: "a.txt"))
            let documentId = try #require(document.id)
            let read = try await pair.get("/nuxeo/api/v1/repo/docs/id/\(documentId)", user: "alice")
            #expect(read.status == 200, "\(String(decoding: read.body, as: UTF8.self))")
            let entity = try read.json()
            #expect(entity["path"]?.stringValue == "/placed/a.txt")
            #expect(entity["parentRef"]?.stringValue == folderId)
            let children = try await pair.get("/nuxeo/api/v1/repo/docs/path/placed/@children", user: "alice")
            #expect(children.status == 200, "\(String(decoding: children.body, as: UTF8.self))")
            let entries = try children.json()["entries"]?.arrayValue ?? []
            #expect(entries.map { $0["path"]?.stringValue } == ["/placed/a.txt"])
            #expect(entries.first?["properties"]?["file:content"]?["length"]?.stringValue == "5")
        } cleanup: {
            await pair.stop()
        }
    }
}
