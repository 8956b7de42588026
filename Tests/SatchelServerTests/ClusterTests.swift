import Crypto
import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelJSON
import SatchelObjectStore
import SatchelRepository
import SatchelServer
import SatchelTestSupport
import Synchronization
import Testing

/// Several `satchel serve` processes on one PostgreSQL database and one bucket, as behind a load balancer: what
/// one of them received, every other one sees.
@Suite("satchel serve on several nodes", .serialized)
struct ClusterTests {
    /// Starts nodes on one new database and one new bucket; `body` gets a function that starts one more (with the
    /// blob grace given), and the bucket's client. Every node and the cluster stop afterwards.
    static func withCluster(
        configure: @escaping @Sendable (inout ServerConfiguration) -> Void = { _ in },
        _ body: (_ node: (Duration?) async throws -> ServerHarness, _ bucket: S3Client) async throws -> Void
    ) async throws {
        let swift = try await TemporarySwiftS3.shared.value
        let postgres = try await TemporaryPostgres.start()
        let nodes = Mutex<[ServerHarness]>([])
        try await withCleanup { () async throws in
            let database = try postgres.createDatabase()
            let credentials = S3Credentials(
                accessKeyID: TemporarySwiftS3.accessKeyID, secretAccessKey: TemporarySwiftS3.secretAccessKey)
            let bucket = String("cluster-" + UUID().uuidString.lowercased().prefix(18))
            let client = S3Client(
                endpoint: swift.endpoint, bucket: bucket, region: TemporarySwiftS3.region, credentials: credentials)
            try await client.createBucket()
            let settings = S3BlobBackend.Configuration(
                endpoint: swift.endpoint, bucket: bucket, prefix: "blobs/", region: TemporarySwiftS3.region,
                credentials: credentials)
            try await body(
                { grace in
                    let node = try await ServerHarness.start(configure: {
                        $0.store = .postgres(url: database)
                        $0.blobs = .s3(settings)
                        $0.blobGrace = grace
                        configure(&$0)
                    })
                    nodes.withLock { $0.append(node) }
                    return node
                }, client)
        } cleanup: {
            for node in nodes.withLock({ $0 }) { await node.stop() }
            await postgres.stop()
        }
    }

    static func sha256Hex(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    static func upload(
        _ node: ServerHarness, batch: String, chunk: Int, of count: Int, _ bytes: Data
    ) async throws
        -> HTTPClient.Response
    {
        try await node.send(
            .post, "/nuxeo/api/v1/upload/\(batch)/0",
            headers: [
                ("X-File-Name", "parts.bin"), ("X-File-Type", "application/octet-stream"),
                ("X-Upload-Type", "chunked"), ("X-Upload-Chunk-Count", String(count)),
                ("X-Upload-Chunk-Index", String(chunk)), ("Content-Type", "application/octet-stream"),
            ], body: .data(bytes, contentType: "application/octet-stream"))
    }

    /// A chunked upload whose chunks reach different nodes completes; another node's start-up collection keeps the
    /// chunks, and takes them once they are attached and the grace has passed.
    @Test("a chunked upload across nodes, and the blob collection of another node")
    func chunkedUploadAcrossNodes() async throws {
        try await Self.withCluster { node, bucket in
            let first = try await node(nil)
            let second = try await node(nil)
            // Some content already there: a start-up collection refuses to remove more than half of a bucket.
            var kept: [String] = []
            for index in 0..<4 {
                let bytes = Data("document \(index)".utf8)
                var form = MultipartFormData(boundary: "doc")
                form.addField("cmisaction", "createDocument")
                form.addField("propertyId[0]", "cmis:name")
                form.addField("propertyValue[0]", "kept-\(index).txt")
                try form.addData("content", data: bytes, filename: "kept.txt", contentType: "text/plain")
                #expect(try await first.send(.post, "/cmis/browser/shared/root", body: .multipart(form)).status == 201)
                kept.append("blobs/" + Self.sha256Hex(bytes))
            }
            let parts = (0..<3).map { index in Data((0..<70_000).map { UInt8(($0 * (index + 3)) % 251) }) }
            let created = try await first.send(.post, "/nuxeo/api/v1/upload")
            #expect(created.status == 201)
            let batch = try #require(try JSONValue(parsing: created.body)["batchId"]?.stringValue)

            // Chunks 0 and 2 go to the first node, chunk 1 to the second: each node sees the others'.
            #expect(try await Self.upload(first, batch: batch, chunk: 0, of: 3, parts[0]).status == 308)
            let middle = try await Self.upload(second, batch: batch, chunk: 1, of: 3, parts[1])
            #expect(middle.status == 308)
            #expect(try JSONValue(parsing: middle.body)["uploadedChunkIds"] == [0, 1])
            #expect(try await Self.upload(first, batch: batch, chunk: 2, of: 3, parts[2]).status == 201)
            let state = try await second.send(.get, "/nuxeo/api/v1/upload/\(batch)/0")
            #expect(state.status == 200, "complete, seen from the node that received one chunk")
            #expect(try await second.send(.get, "/nuxeo/api/v1/upload/\(batch)", user: "bob").status == 404)

            // A third node starts with no grace: its collection removes what nothing refers to, and a chunk is
            // referred to by its batch.
            _ = try await node(.zero)
            #expect(try await bucket.listObjects(prefix: "blobs/").count == 4 + 3)

            // Attached through the second node; read, by id and by content, through the first at once.
            let document = try await first.send(
                .post, "/cmis/browser/shared/root",
                body: .form([
                    ("cmisaction", "createDocument"), ("propertyId[0]", "cmis:name"),
                    ("propertyValue[0]", "parts.bin"), ("propertyId[1]", "cmis:objectTypeId"),
                    ("propertyValue[1]", "cmis:document"), ("succinct", "true"),
                ]))
            #expect(document.status == 201)
            let id = try #require(try BrowserParser.object(document.body).id)
            let attached = try await second.send(
                .post, "/nuxeo/api/v1/upload/\(batch)/0/execute/Blob.AttachOnDocument",
                headers: [("Content-Type", "application/json")],
                body: .data(Data(#"{"params":{"document":"\#(id)"}}"#.utf8), contentType: "application/json"))
            #expect(attached.status == 200, "\(String(decoding: attached.body, as: UTF8.self))")
            let content = try await first.send(.get, "/cmis/browser/shared/root?objectId=\(id)&cmisselector=content")
            #expect(content.status == 200 && content.body == parts[0] + parts[1] + parts[2])
            #expect(try await first.send(.get, "/nuxeo/api/v1/upload/\(batch)/0").status == 404, "used up")

            // The chunks are let go of: a node that starts once the grace has passed (none here) removes them and
            // keeps the content.
            _ = try await node(.zero)
            let left = try await bucket.listObjects(prefix: "blobs/").map(\.key)
            #expect(Set(left) == Set(kept + ["blobs/" + Self.sha256Hex(parts[0] + parts[1] + parts[2])]))
        }
    }

    /// A session started through one node works on the other, with the same XSRF token, and a logout through the
    /// other ends it on both; password guesses sent to two nodes are counted together.
    @Test("sessions, XSRF tokens and login throttling across nodes")
    func signInAcrossNodes() async throws {
        try await Self.withCluster(configure: {
            $0.loginThrottling.perUser = .init(freeFailures: 3, firstDelay: .seconds(60), maximumDelay: .seconds(60))
        }) { node, _ in
            let first = try await node(nil)
            let second = try await node(nil)
            let login = try await first.post(
                "/login", user: nil, fields: [("user", "alice"), ("password", "pw-alice")])
            #expect(login.status == 200)
            let cookie = String(try #require(login.headers["Set-Cookie"]).split(separator: ";")[0])
            let token = try #require(try login.json()["token"]?.stringValue)
            let root = "/mcm/b/json/mydocs-alice/root"
            func folder(_ name: String, on node: ServerHarness, token: String?) async throws -> Int {
                var fields = [
                    ("cmisaction", "createFolder"), ("propertyId[0]", "cmis:name"), ("propertyValue[0]", name),
                    ("propertyId[1]", "cmis:objectTypeId"), ("propertyValue[1]", "cmis:folder"),
                ]
                if let token { fields.append(("token", token)) }
                return try await node.post(root, user: nil, fields: fields, headers: [("Cookie", cookie)]).status
            }
            // The token the first node gave is the second's too; without it, a cookie's change is refused.
            #expect(try await folder("made-on-second", on: second, token: token) == 201)
            #expect(try await folder("no-token", on: second, token: nil) == 403)
            let info = try await second.send(
                .get, "/mcm/b/json/mydocs-alice?cmisselector=repositoryInfo", user: nil, headers: [("Cookie", cookie)])
            #expect(try BrowserParser.repositoryInfo(info.body).extensionValue(named: "token") == token)
            // Logged out through the second node: the first refuses the cookie at once.
            #expect(try await second.send(.post, "/logout", user: nil, headers: [("Cookie", cookie)]).status == 200)
            #expect(try await first.send(.get, "/mcm/b/json", user: nil, headers: [("Cookie", cookie)]).status == 401)

            // Three free failures for bob, two on each node: the fourth guess, on either, waits.
            let wrong = [("Authorization", ServerHarness.basic("bob", password: "guess"))]
            for node in [first, second, first] {
                #expect(try await node.send(.get, "/mcm/b/json", user: nil, headers: wrong).status == 401)
            }
            let throttled = try await second.send(.get, "/mcm/b/json", user: nil, headers: wrong)
            #expect(throttled.status == 429)
            #expect(try await first.send(.get, "/mcm/b/json", user: "bob").status == 429, "even the right password")
        }
    }

    /// Reads are kept (the response cache) on every node, and a change through one node reaches the others' kept
    /// answers through PostgreSQL's notifications.
    @Test("a document changed through one node is read changed through the other")
    func readAfterWriteAcrossNodes() async throws {
        try await Self.withCluster { node, _ in
            let first = try await node(nil)
            let second = try await node(nil)
            var form = MultipartFormData(boundary: "doc")
            form.addField("cmisaction", "createDocument")
            form.addField("propertyId[0]", "cmis:name")
            form.addField("propertyValue[0]", "before.txt")
            try form.addData("content", data: Data("one".utf8), filename: "a.txt", contentType: "text/plain")
            form.addField("succinct", "true")
            let created = try await first.send(.post, "/cmis/browser/shared/root", body: .multipart(form))
            let id = try #require(try BrowserParser.object(created.body).id)
            let read = "/cmis/browser/shared/root?objectId=\(id)&cmisselector=object&succinct=true"
            func name(on node: ServerHarness) async throws -> String? {
                try BrowserParser.object(try await node.send(.get, read).body).name
            }
            // Read three times on each node: the later reads are kept answers (unless the creation's notification
            // came in between).
            for _ in 0..<3 {
                #expect(try await name(on: first) == "before.txt")
                #expect(try await name(on: second) == "before.txt")
            }
            for node in [first, second] {
                let metrics = String(decoding: try await node.send(.get, "/metrics", user: "admin").body, as: UTF8.self)
                #expect((MetricsTests.value(metrics, "satchel_response_cache_hits_total") ?? 0) >= 1, "kept")
            }
            for (round, writer, reader) in [(1, first, second), (2, second, first)] {
                let renamed = try await writer.post(
                    "/cmis/browser/shared/root",
                    fields: [
                        ("cmisaction", "update"), ("objectId", id), ("propertyId[0]", "cmis:name"),
                        ("propertyValue[0]", "after-\(round).txt"),
                    ])
                #expect(renamed.status == 200)
                // The other node's kept answer goes stale when the notification arrives, within milliseconds.
                let start = ContinuousClock.now
                var seen = try await name(on: reader)
                while seen != "after-\(round).txt", ContinuousClock.now - start < .seconds(2) {
                    try await Task.sleep(for: .milliseconds(2))
                    seen = try await name(on: reader)
                }
                #expect(seen == "after-\(round).txt")
                #expect(ContinuousClock.now - start < .milliseconds(500), "stale for \(ContinuousClock.now - start)")
            }
        }
    }
}
