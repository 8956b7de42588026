import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServerTestSupport
import SatchelTestSupport
import Testing

@testable import SatchelGateway

/// The gateway in front of what the CMIS reference server sends (``ReferenceBackend`` replays its captured
/// answers): each finding of the reference server's conformance run through a mount, on the wire. What needs a live
/// repository behind the mount is in ``GatewayTests``.
@Suite("a gateway mount in front of the CMIS reference server's answers", .serialized)
struct GatewayReferenceBackendTests {
    /// A gateway (users alice and bob, and admin, its administrator) mounting the reference back-end's `A1` as `docs`
    /// over `binding`.
    static func gateway(
        _ backend: ReferenceBackend, binding: GatewayConfiguration.Binding,
        users: GatewayConfiguration.Users = .serviceAccount(user: "svc", password: "pw-svc")
    ) async throws -> LiveServer {
        let mount = GatewayConfiguration.Mount(
            id: "docs", name: nil, url: binding == .browser ? backend.browserURL : backend.atomPubURL,
            binding: binding, repositoryId: "A1", users: users)
        return try await LiveServer.start(
            users: ["alice", "bob", "admin"], administrators: ["admin"], gateway: GatewayConfiguration(mounts: [mount]))
    }

    /// Runs `body` with a reference back-end and a gateway mounting it over `binding`, stopping both after.
    static func withMount(
        _ binding: GatewayConfiguration.Binding,
        users: GatewayConfiguration.Users = .serviceAccount(user: "svc", password: "pw-svc"),
        _ body: (ReferenceBackend, LiveServer) async throws -> Void
    ) async throws {
        try await withBackend { backend in
            let gateway = try await Self.gateway(backend, binding: binding, users: users)
            try await withCleanup {
                try await body(backend, gateway)
            } cleanup: {
                await gateway.stop()
            }
        }
    }

    /// Runs `body` with a reference back-end, stopping it after.
    static func withBackend(_ body: (ReferenceBackend) async throws -> Void) async throws {
        let backend = try await ReferenceBackend.start()
        try await withCleanup {
            try await body(backend)
        } cleanup: {
            await backend.stop()
        }
    }

    static func session(
        _ gateway: LiveServer, binding: SessionParameters.Binding, repository: String = "docs"
    ) async throws -> CMISSession {
        try await CMISSession.connect(
            SessionParameters(
                binding: binding,
                url: gateway.baseURL.appendingPathComponent(binding == .browser ? "cmis/browser" : "cmis/atom"),
                repositoryId: repository, auth: [BasicAuth(user: "alice", password: "pw-alice")],
                http: HTTPClient.Configuration(retry: .never)))
    }

    /// A request on the gateway, answered as it is.
    static func send(
        _ gateway: LiveServer, _ pathAndQuery: String, method: HTTPClient.Method = .get, body: HTTPClient.Body? = nil,
        user: String = "alice"
    ) async throws -> HTTPClient.Response {
        let client = HTTPClient(
            configuration: HTTPClient.Configuration(retry: .never),
            auth: [BasicAuth(user: user, password: "pw-\(user)")])
        var request = HTTPClient.Request(
            method, url: URL(string: gateway.baseURL.absoluteString + pathAndQuery)!, body: body)
        request.validatesStatus = false
        return try await client.send(request)
    }

    @Test(
        "finding 1: a back-end rendition's stream is served through the mount on both front doors, with and without a length",
        arguments: [SessionParameters.Binding.browser, .atomPub])
    func renditions(client: SessionParameters.Binding) async throws {
        try await Self.withMount(.browser) { backend, gateway in
            let session = try await Self.session(gateway, binding: client)
            let folder = try await session.object(id: "138", context: OperationContext(renditionFilter: "*"))
            #expect(folder.renditions.map(\.streamId) == ["138-rendition"])
            let thumbnail = try await session.renditionContent(of: "138", streamId: "138-rendition")
            #expect([UInt8](thumbnail) == ReferenceBackend.thumbnail)
            // Asked of the back-end with its stream id, read as the back-end sent it.
            #expect(
                backend.log.contains { $0.contains("cmisselector=content") && $0.contains("streamId=138-rendition") })
            // A rendition sent without a Content-Length (chunked) is measured, then served whole (an AtomPub client
            // reaches only the streams an entry links).
            if client == .browser {
                let chunked = try await session.renditionContent(of: "138", streamId: "138-chunked")
                #expect([UInt8](chunked) == ReferenceBackend.thumbnail)
            }
            // A range of it.
            let part = try await session.renditionContent(of: "138", streamId: "138-rendition", range: .bytes(8...15))
            #expect([UInt8](part) == Array(ReferenceBackend.thumbnail[8...15]))
        }
    }

    @Test("finding 1 over AtomPub: the front door writes a folder's rendition as an alternate link clients can follow")
    func renditionLinks() async throws {
        try await Self.withMount(.atomPub) { backend, gateway in
            let entry = try await Self.send(gateway, "/cmis/atom/docs/entry?id=138&renditionFilter=*")
            let text = String(decoding: entry.body, as: UTF8.self)
            #expect(entry.status == 200, "\(text.prefix(400))")
            #expect(
                text.contains(#"rel="alternate""#) && text.contains("streamId=138-rendition"), "\(text.prefix(2000))")
            // The AtomPub back-end's rendition is found by its alternate link and streamed.
            let content = try await Self.send(gateway, "/cmis/atom/docs/content?id=138&streamId=138-rendition")
            #expect(content.status == 200)
            #expect([UInt8](content.body) == ReferenceBackend.thumbnail)
            #expect(content.headers["Content-Type"] == "image/png")
        }
    }

    @Test("finding 2: query results through a mount keep each column's property id, query name and type")
    func queryNames() async throws {
        try await Self.withMount(.browser) { backend, gateway in
            let statement = "SELECT cmis:objectId AS oid, cmis:name AS n, cmis:creationDate FROM cmis:document"
            let q = statement.addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
            func firstResult(_ body: Data, _ key: String) throws -> [String: Any]? {
                let object = try JSONSerialization.jsonObject(with: body) as? [String: Any]
                return ((object?["results"] as? [Any])?.first as? [String: Any])?[key] as? [String: Any]
            }
            // Full form: keyed by query name, with the property id and type inside.
            let full = try await Self.send(gateway, "/cmis/browser/docs?cmisselector=query&q=\(q)&succinct=false")
            let properties = try firstResult(full.body, "properties")
            let oid = properties?["oid"] as? [String: Any]
            #expect(oid?["id"] as? String == "cmis:objectId", "\(String(decoding: full.body, as: UTF8.self))")
            #expect(oid?["queryName"] as? String == "oid")
            #expect(oid?["type"] as? String == "id")
            #expect((properties?["n"] as? [String: Any])?["value"] as? String == "Schriftstück.txt")
            #expect((properties?["cmis:creationDate"] as? [String: Any])?["type"] as? String == "datetime")
            // Succinct: keyed by query name.
            let succinct = try await Self.send(gateway, "/cmis/browser/docs?cmisselector=query&q=\(q)&succinct=true")
            let values = try firstResult(succinct.body, "succinctProperties")
            #expect(values?["oid"] as? String == "139", "\(String(decoding: succinct.body, as: UTF8.self))")
            // The back-end was asked for the full form, where the alias does not hide the property.
            #expect(backend.log.contains { $0.contains("cmisselector=query") && !$0.contains("succinct=true") })
            // A client looks values up by query name.
            let session = try await Self.session(gateway, binding: .browser)
            let row = try #require(try await session.query(statement).objects.first)
            #expect(row.properties.property(queryName: "oid")?.id == "cmis:objectId")
            #expect(row.properties.property(queryName: "oid")?.type == .id)
            #expect(row.properties.property(queryName: "oid")?.values == [.id("139")])
        }
    }

    @Test("finding 4: an AtomPub back-end's change log token, only in <chemistry:changeLogToken>, reaches the client")
    func changeLogToken() async throws {
        try await Self.withMount(.atomPub) { backend, gateway in
            for client in [SessionParameters.Binding.browser, .atomPub] {
                let session = try await Self.session(gateway, binding: client)
                let changes = try await session.contentChanges(maxItems: 5)
                #expect(changes.changeLogToken == "token-4", "\(client)")
                #expect(!changes.objects.isEmpty)
            }
        }
    }

    @Test("finding 5: an AtomPub entry read with a filter through a mount keeps the links clients cache")
    func filteredEntryLinks() async throws {
        try await Self.withMount(.browser) { backend, gateway in
            let entry = try await Self.send(gateway, "/cmis/atom/docs/entry?id=138&filter=cmis:objectId")
            let text = String(decoding: entry.body, as: UTF8.self)
            #expect(entry.status == 200, "\(text.prefix(400))")
            for rel in [#"rel="describedby""#, #"rel="down""#, "foldertree"] {
                #expect(text.contains(rel), "\(rel) missing: \(text.prefix(3000))")
            }
            // What the links were made of was asked of the back-end, and is not written as properties.
            let asked = try #require(backend.log.last { $0.contains("cmisselector=object") })
            #expect(asked.contains("cmis%3AbaseTypeId") || asked.contains("cmis:baseTypeId"), "\(asked)")
            #expect(!text.contains(#"propertyDefinitionId="cmis:parentId""#))
            #expect(text.contains(#"propertyDefinitionId="cmis:objectId""#))
        }
    }

    @Test("finding 6: type changes go to a mount's back-end; the local repository refuses them as notSupported")
    func typeMutability() async throws {
        try await Self.withMount(.browser) { backend, gateway in
            let type =
                #"{"id":"my:invoice","baseId":"cmis:document","parentId":"cmis:document","localName":"invoice","queryName":"my:invoice","displayName":"Invoice","creatable":true,"fileable":true,"queryable":true,"controllableACL":false,"controllablePolicy":false,"fulltextIndexed":false,"includedInSupertypeQuery":true,"versionable":false,"contentStreamAllowed":"allowed"}"#
            let form = HTTPClient.Body.form([("cmisaction", "createType"), ("type", type)])
            // Through the service account, a user who is not this server's administrator may not reshape the
            // back-end: nothing reaches it.
            let refused = try await Self.send(gateway, "/cmis/browser/docs", method: .post, body: form)
            #expect(refused.status == 403, "\(String(decoding: refused.body, as: UTF8.self))")
            #expect(!backend.log.contains { $0.hasPrefix("POST") })
            let created = try await Self.send(gateway, "/cmis/browser/docs", method: .post, body: form, user: "admin")
            #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
            let posted = try #require(backend.log.last { $0.hasPrefix("POST") })
            #expect(posted.contains("cmisaction=createType") && posted.contains("my%3Ainvoice"), "\(posted)")
            // AtomPub's types collection reaches the same place.
            let entry =
                #"<?xml version="1.0" encoding="UTF-8"?><atom:entry xmlns:atom="http://www.w3.org/2005/Atom" xmlns:cmisra="http://docs.oasis-open.org/ns/cmis/restatom/200908/" xmlns:cmis="http://docs.oasis-open.org/ns/cmis/core/200908/"><atom:title>Invoice</atom:title><cmisra:type><cmis:id>my:invoice</cmis:id><cmis:localName>invoice</cmis:localName><cmis:queryName>my:invoice</cmis:queryName><cmis:displayName>Invoice</cmis:displayName><cmis:baseId>cmis:document</cmis:baseId><cmis:parentId>cmis:document</cmis:parentId><cmis:creatable>true</cmis:creatable><cmis:fileable>true</cmis:fileable><cmis:queryable>true</cmis:queryable><cmis:fulltextIndexed>false</cmis:fulltextIndexed><cmis:includedInSupertypeQuery>true</cmis:includedInSupertypeQuery><cmis:controllablePolicy>false</cmis:controllablePolicy><cmis:controllableACL>false</cmis:controllableACL><cmis:versionable>false</cmis:versionable><cmis:contentStreamAllowed>allowed</cmis:contentStreamAllowed></cmisra:type></atom:entry>"#
            let atom = try await Self.send(
                gateway, "/cmis/atom/docs/types", method: .post,
                body: .data(Data(entry.utf8), contentType: "application/atom+xml;type=entry"), user: "admin")
            #expect(atom.status == 201, "\(String(decoding: atom.body, as: UTF8.self))")
            #expect(backend.log.filter { $0.hasPrefix("POST") && $0.contains("createType") }.count == 2)

            let local = try await Self.send(gateway, "/cmis/browser/shared", method: .post, body: form)
            let body = String(decoding: local.body, as: UTF8.self)
            #expect(local.status == 405, "\(body)")
            #expect(body.contains("notSupported") && body.contains("fixed set of types"), "\(body)")
        }
    }

    @Test("a type changed through a pass-through mount is read again by every user, not from another user's cache")
    func typeChangeClearsEveryUsersTypes() async throws {
        try await Self.withMount(.browser, users: .passThrough) { backend, gateway in
            let typeReads = { backend.log.filter { $0.contains("cmisselector=typeDefinition") }.count }
            let read = "/cmis/browser/docs?cmisselector=typeDefinition&typeId=cmis:document"
            #expect(try await Self.send(gateway, read).status == 200)
            #expect(try await Self.send(gateway, read).status == 200)
            #expect(typeReads() == 1, "alice's second read comes from her binding's type cache")
            // bob changes the type with his own credentials, through his own binding.
            let definition = try await Self.send(gateway, read, user: "bob")
            #expect(typeReads() == 2)
            let update = HTTPClient.Body.form([
                ("cmisaction", "updateType"), ("type", String(decoding: definition.body, as: UTF8.self)),
            ])
            let updated = try await Self.send(gateway, "/cmis/browser/docs", method: .post, body: update, user: "bob")
            #expect(updated.status == 200, "\(String(decoding: updated.body, as: UTF8.self))")
            #expect(backend.log.contains { $0.hasPrefix("POST") && $0.contains("cmisaction=updateType") })
            // alice's next read asks the back-end: the definition she had cached may be the old one.
            #expect(try await Self.send(gateway, read).status == 200)
            #expect(typeReads() == 3)
        }
    }

    @Test("finding 7: includeRelativePathSegment=false reaches the back-end as false")
    func relativePathSegment() async throws {
        try await Self.withMount(.browser) { backend, gateway in
            let answer = try await Self.send(
                gateway, "/cmis/browser/docs/root?objectId=138&cmisselector=parents&includeRelativePathSegment=false")
            #expect(answer.status == 200, "\(String(decoding: answer.body, as: UTF8.self))")
            let asked = try #require(backend.log.last { $0.contains("cmisselector=parents") })
            #expect(asked.contains("includeRelativePathSegment=false"), "\(asked)")
        }
    }

    @Test("finding 7: a document of a type without versions has itself as its one version over AtomPub")
    func versionsWithoutHistory() async throws {
        try await Self.withBackend { backend in
            let binding = backend.atomPubBinding()
            let versions = try await binding.allVersions(
                repositoryId: "A1", objectId: "133", context: OperationContext())
            #expect(versions.map(\.id) == ["133"])
            let folder = await GatewayTests.error {
                _ = try await binding.allVersions(repositoryId: "A1", objectId: "138", context: OperationContext())
            }
            #expect(folder?.code == .invalidArgument)
        }
    }

    @Test(
        "finding 3: a non-ASCII name and file name reach a Browser back-end through a mount as UTF-8 it is told about",
        arguments: [SessionParameters.Binding.browser, .atomPub])
    func nonASCIINames(client: SessionParameters.Binding) async throws {
        try await Self.withMount(.browser) { backend, gateway in
            let session = try await Self.session(gateway, binding: client)
            _ = try await session.createDocument(
                named: "Schriftstück.txt", in: "138",
                content: .data(Data("Grüße".utf8), filename: "Schriftstück.txt", mimeType: "text/plain"))
            let posted = try #require(backend.log.last { $0.hasPrefix("POST") && $0.contains("createDocument") })
            // The form says it is UTF-8 (CMIS 1.1 Browser binding, RFC 7578 4.6), each text part beyond ASCII says
            // its charset, and the file name goes as RFC 5987's filename* beside an ASCII one.
            #expect(posted.contains("name=\"_charset_\"") && posted.contains("UTF-8"), "\(posted.prefix(3000))")
            #expect(posted.contains("charset=utf-8"), "\(posted.prefix(3000))")
            #expect(posted.contains("filename*=UTF-8''Schriftst%C3%BCck.txt"), "\(posted.prefix(3000))")
            #expect(posted.contains("Schriftstück.txt"))
        }
    }

    @Test("an AtomPub content link to another host is not followed with the repository's credentials")
    func contentLinkToAnotherHost() async throws {
        try await Self.withBackend { backend in
            let binding = backend.atomPubBinding()
            let refused = await GatewayTests.error {
                _ = try await binding.contentStream(repositoryId: "A1", objectId: "666", range: nil)
            }
            #expect(refused?.code == .invalidResponse)
            #expect(refused?.message.contains("another host (localhost)") == true, "\(String(describing: refused))")
            // The same host is followed.
            let content = try await binding.contentStream(
                repositoryId: "A1", objectId: "138", streamId: "138-rendition", range: nil)
            #expect([UInt8](content) == ReferenceBackend.thumbnail)
        }
    }

    @Test("the repository list's memory: answers per user and session, a down mark, and no late answer undoing it")
    func listMemory() {
        var memory = ListMemory(memory: .seconds(30))
        let alice = ListMemory.Key(user: "alice", session: "s1")
        let bob = ListMemory.Key(user: "bob", session: nil)
        let start = ContinuousClock.now
        var info = RepositoryInfo(id: "docs", name: "Docs", rootFolderId: "100")
        info.productName = "for alice"
        memory.remember(info, for: alice, askedAt: start, now: start)
        guard case .info(let known) = memory.answer(for: alice, now: start + .seconds(1)) else {
            Issue.record("alice's answer is remembered")
            return
        }
        #expect(known.productName == "for alice")
        // Another user's answer is never served to bob.
        guard case .unknown = memory.answer(for: bob, now: start + .seconds(1)) else {
            Issue.record("bob has no answer of his own")
            return
        }
        // Found unreachable: every answer goes, and lists leave the mount out until the mark ends.
        memory.markDown(at: start + .seconds(2))
        guard case .down = memory.answer(for: alice, now: start + .seconds(3)) else {
            Issue.record("the mount is down")
            return
        }
        // An answer to a request asked before the mark does not undo it.
        memory.remember(info, for: alice, askedAt: start + .seconds(1), now: start + .seconds(4))
        guard case .down = memory.answer(for: alice, now: start + .seconds(4)) else {
            Issue.record("a late answer undid the mark")
            return
        }
        guard case .unknown = memory.answer(for: alice, now: start + .seconds(33)) else {
            Issue.record("the mark ends")
            return
        }
        // A fresh answer after the mark is remembered again.
        memory.remember(info, for: alice, askedAt: start + .seconds(33), now: start + .seconds(33))
        guard case .info = memory.answer(for: alice, now: start + .seconds(34)) else {
            Issue.record("a fresh answer is remembered")
            return
        }
        // Kept for as long as it was given.
        guard case .unknown = memory.answer(for: alice, now: start + .seconds(64)) else {
            Issue.record("answers expire")
            return
        }
    }

    @Test("one user's answer too large for the mount does not hide the mount from everyone's repository list")
    func oversizedAnswerKeepsTheMountListed() async throws {
        try await Self.withMount(.browser) { _, gateway in
            let refused = try await Self.send(gateway, "/cmis/browser/docs?cmisselector=query&q=SELECT%20HUGE")
            #expect(refused.status != 200, "\(String(decoding: refused.body.prefix(400), as: UTF8.self))")
            // Bob has not listed before, so nothing of alice's is remembered for him: the mount is asked, and listed.
            let list = try await Self.send(gateway, "/cmis/browser", user: "bob")
            let ids = try JSONSerialization.jsonObject(with: list.body) as? [String: Any]
            #expect(ids?["docs"] != nil, "\(String(decoding: list.body.prefix(400), as: UTF8.self))")
        }
    }

    @Test("an AtomPub workspace is asked of the mount's back-end every time, not taken from the list's memory")
    func workspaceReachesTheBackend() async throws {
        try await Self.withMount(.atomPub) { backend, gateway in
            func serviceDocuments() -> Int { backend.log.filter { $0.hasPrefix("GET /inmemory/atom11") }.count }
            // The list remembers the mount's answer…
            #expect(try await Self.send(gateway, "/cmis/atom").status == 200)
            let listed = serviceDocuments()
            #expect(try await Self.send(gateway, "/cmis/atom").status == 200)
            #expect(serviceDocuments() == listed)
            // …but the mount's own workspace is the back-end's answer now.
            let workspace = try await Self.send(gateway, "/cmis/atom/docs")
            #expect(workspace.status == 200)
            #expect(serviceDocuments() > listed)
        }
    }
}
