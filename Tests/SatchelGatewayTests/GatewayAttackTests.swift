import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelJSON
import SatchelServerTestSupport
import SatchelTestSupport
import Testing

@testable import SatchelGateway

/// Attacks on `satchel serve --gateway`, by a hostile user and by a hostile back-end. Each performs the attack
/// against live servers on loopback and checks the answer and what reached the back-end.
@Suite("Attacks on the gateway", .serialized)
struct GatewayAttackTests {
    /// An AtomPub entry creating a document whose `cmisra:mediatype` carries a line break and a header of its own.
    static func injectedEntry(name: String) -> Data {
        Data(
            """
            <?xml version="1.0" encoding="UTF-8"?>
            <atom:entry xmlns:atom="http://www.w3.org/2005/Atom" \
            xmlns:cmisra="http://docs.oasis-open.org/ns/cmis/restatom/200908/" \
            xmlns:cmis="http://docs.oasis-open.org/ns/cmis/core/200908/"><atom:title>\(name)</atom:title>\
            <cmisra:content><cmisra:mediatype>text/plain&#13;&#10;Content-Disposition: form-data; \
            name="cmisaction"&#13;&#10;&#13;&#10;createFolder</cmisra:mediatype><cmisra:base64>aGVsbG8=</cmisra:base64>\
            </cmisra:content><cmisra:object><cmis:properties>\
            <cmis:propertyId propertyDefinitionId="cmis:objectTypeId"><cmis:value>cmis:document</cmis:value>\
            </cmis:propertyId><cmis:propertyString propertyDefinitionId="cmis:name"><cmis:value>\(name)</cmis:value>\
            </cmis:propertyString></cmis:properties></cmisra:object></atom:entry>
            """.utf8)
    }

    @Test(
        "a media type with CR LF is refused where it arrives, for a mount and for the local repository alike",
        arguments: ["docs", "shared"])
    func mediaTypeHeaderInjection(repository: String) async throws {
        let pair = try await GatewayTests.start(backendBinding: .browser)
        try await withCleanup { () async throws in
            let session = try await pair.session("alice", repository: repository)
            let root = session.repositoryInfo.rootFolderId
            let client = HTTPClient(
                configuration: HTTPClient.Configuration(retry: .never),
                auth: [BasicAuth(user: "alice", password: "pw-alice")])
            var request = HTTPClient.Request(
                .post,
                url: URL(
                    string: pair.gateway.baseURL.absoluteString
                        + "/cmis/atom/\(repository)/children?id="
                        + "\(root.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? root)"
                )!,
                body: .data(Self.injectedEntry(name: "injected"), contentType: "application/atom+xml;type=entry"))
            request.validatesStatus = false
            let response = try await client.send(request)
            let body = String(decoding: response.body, as: UTF8.self)
            #expect(response.status == 400, "\(body)")
            #expect(body.contains("media type"), "\(body)")
            // Nothing was made, neither a document nor the folder the injected part asked for.
            let children = try await session.childrenPage(of: root, maxItems: 1000)
            #expect(!children.objects.contains { $0.object.name == "injected" })
        } cleanup: {
            await pair.stop()
        }
    }

    @Test("a back-end's redirect is not followed: the gateway answers 502 and fetches nothing elsewhere")
    func redirectsAreNotFollowed() async throws {
        let target = try await LiveServer.start(users: ["svc"], administrators: ["svc"])
        let location = target.baseURL.absoluteString + "/cmis/browser"
        let redirector = try RawTCPServer(
            response: Array(
                "HTTP/1.1 302 Found\r\nLocation: \(location)\r\nContent-Length: 0\r\nConnection: close\r\n\r\n".utf8))
        let mount = GatewayTests.mount(
            URL(string: "http://127.0.0.1:\(redirector.port)")!, binding: .browser,
            users: .serviceAccount(user: "svc", password: "pw-svc"))
        let gateway = try await LiveServer.start(users: ["alice"], gateway: GatewayConfiguration(mounts: [mount]))
        defer {
            Task {
                await gateway.stop()
                redirector.stop()
                await target.stop()
            }
        }
        let pair = GatewayTests.Pair(backend: target, gateway: gateway)
        for path in ["/cmis/browser/docs?cmisselector=repositoryInfo", "/cmis/browser/docs/root?cmisselector=children"]
        {
            let response = try await pair.get(path, user: "alice")
            let body = String(decoding: response.body, as: UTF8.self)
            #expect(response.status == 502, "\(path): \(body)")
            #expect(!body.contains("repositoryId"), "\(path): \(body)")
            #expect(!body.contains("\(target.port)") && !body.contains("\(redirector.port)"), "\(body)")
        }
    }

    @Test("a back-end that is down is named by its mount id: its address is logged, never shown")
    func backendAddressIsNotShown() async throws {
        let pair = try await GatewayTests.start(backendBinding: .browser)
        try await withCleanup { () async throws in
            let port = pair.backend.port
            await pair.backend.stop()
            let response = try await pair.get("/cmis/browser/docs/root?cmisselector=children", user: "alice")
            let body = String(decoding: response.body, as: UTF8.self)
            #expect(response.status == 503, "\(body)")
            #expect(body.contains("back-end docs unreachable"), "\(body)")
            #expect(!body.contains("127.0.0.1") && !body.contains("\(port)"), "\(body)")
        } cleanup: {
            await pair.stop()
        }
    }

    /// A gateway file with one mount; `url`, `id` and `users` vary.
    static func file(id: String = "docs", url: String, users: String = #""passThrough""#) -> Data {
        Data(#"{"repositories": [{"id": "\#(id)", "url": "\#(url)", "repositoryId": "A1", "users": \#(users)}]}"#.utf8)
    }

    static func parse(_ data: Data) -> String? {
        do {
            _ = try GatewayConfiguration.parse(
                data, relativeTo: FileManager.default.temporaryDirectory, environment: ["PW": "secret"])
            return nil
        } catch {
            return "\(error)"
        }
    }

    @Test(
        "plain http passes passwords through only to this machine: a name that starts like 127. is not it",
        arguments: [
            ("http://127.attacker.example/cmis/browser", false), ("http://127.0.0.1.nip.example/b", false),
            ("http://localhost.example/b", false), ("http://0x7f.1/b", false), ("http://127.0.0.1:8080/b", true),
            ("http://127.1.2.3/b", true), ("http://[::1]:9000/b", true), ("http://localhost/b", true),
            ("http://[::ffff:127.0.0.1]/b", false), ("https://127.attacker.example/b", true),
        ])
    func loopbackRule(url: String, accepted: Bool) {
        let refusal = Self.parse(Self.file(url: url))
        #expect((refusal == nil) == accepted, "\(url): \(refusal ?? "accepted")")
        if !accepted { #expect(refusal?.contains("must be https") == true, "\(refusal ?? "")") }
    }

    @Test(
        "a secret in the URL's query, or a mount id that is a path step, is refused",
        arguments: [
            (id: "docs", url: "https://cmis.example/b?password=secret", fault: "query"),
            (id: "docs", url: "https://cmis.example/b?x=1", fault: "query"),
            (id: "docs", url: "https://cmis.example/b#password=secret", fault: "query or fragment"),
            (id: "..", url: "https://cmis.example/b", fault: "starts with a letter or digit"),
            (id: ".", url: "https://cmis.example/b", fault: "starts with a letter or digit"),
            (id: ".hidden", url: "https://cmis.example/b", fault: "starts with a letter or digit"),
            (id: "-x", url: "https://cmis.example/b", fault: "starts with a letter or digit"),
        ])
    func urlAndIdChecks(id: String, url: String, fault: String) {
        let users = #"{"serviceAccount": {"user": "svc", "passwordEnv": "PW"}}"#
        let refusal = Self.parse(Self.file(id: id, url: url, users: users))
        #expect(refusal?.contains(fault) == true, "\(id) \(url): \(refusal ?? "accepted")")
        #expect(refusal?.contains("secret") != true, "the refusal repeats the secret: \(refusal ?? "")")
        #expect(Self.parse(Self.file(id: "docs.v2", url: "https://cmis.example/b", users: users)) == nil)
    }

    @Test("first uses of MyDocuments at once: every request gets the one folder; two mounts on one /Users both list")
    func concurrentFirstUse() async throws {
        let backend = try await LiveServer.start(users: ["alice", "bob", "svc"], administrators: ["svc"])
        let admin = try await CMISSession.connect(
            SessionParameters(
                url: backend.baseURL.appendingPathComponent("cmis/browser"), repositoryId: "shared",
                auth: [BasicAuth(user: "svc", password: "pw-svc")]))
        _ = try await admin.createFolder(named: "Users", in: admin.repositoryInfo.rootFolderId)
        var mounts: [GatewayConfiguration.Mount] = []
        for id in ["docs", "docs2"] {
            var mount = GatewayTests.mount(
                backend.baseURL, binding: .browser, users: .passThrough, myDocuments: "/Users")
            mount.id = id
            mount.provisioner = GatewayConfiguration.Account(user: "svc", password: "pw-svc")
            mounts.append(mount)
        }
        let gateway = try await LiveServer.start(
            users: ["alice", "bob"], gateway: GatewayConfiguration(mounts: mounts))
        defer {
            Task {
                await gateway.stop()
                await backend.stop()
            }
        }
        let pair = GatewayTests.Pair(backend: backend, gateway: gateway)
        // alice's first use: the repository list asks both mounts at once, each making /Users/alice.
        let list = try await pair.get("/cmis/browser", user: "alice")
        let listed = try list.json().objectValue.map { Set($0.keys) } ?? []
        #expect(listed.isSuperset(of: ["docs", "docs2"]), "\(String(decoding: list.body, as: UTF8.self))")

        // bob's first use: six requests at once.
        let statuses = try await withThrowingTaskGroup(of: (Int, String?).self) { group in
            for _ in 0..<6 {
                group.addTask {
                    let response = try await pair.get("/cmis/browser/docs?cmisselector=repositoryInfo", user: "bob")
                    let folder = try? BrowserParser.repositoryInfo(response.body).extensionValue(named: "myDocuments")
                    return (response.status, folder)
                }
            }
            var all: [(Int, String?)] = []
            for try await answer in group { all.append(answer) }
            return all
        }
        #expect(statuses.allSatisfy { $0.0 == 200 }, "\(statuses)")
        #expect(Set(statuses.compactMap(\.1)).count == 1, "\(statuses)")
        let users = try await admin.object(at: "/Users", useCache: false)
        let children = try await admin.childrenPage(of: try #require(users.id), maxItems: 100)
        #expect(children.objects.compactMap(\.object.name).sorted() == ["alice", "bob"])
    }
}
