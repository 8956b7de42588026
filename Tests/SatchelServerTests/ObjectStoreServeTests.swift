import Crypto
import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelObjectStore
import SatchelRepository
import SatchelServer
import SatchelTestSupport
import Testing

/// `satchel serve` with its content in a bucket of a real S3-compatible store (OpenStack Swift's S3 API).
@Suite("satchel serve with blobs in object storage", .serialized)
struct ObjectStoreServeTests {
    static let folderURL = "/cmis/browser/shared/root"

    /// A server on SQLite whose blobs go to a new bucket, and that bucket's client.
    static func start() async throws -> (ServerHarness, S3Client, S3BlobBackend.Configuration) {
        let swift = try await TemporarySwiftS3.shared.value
        let credentials = S3Credentials(
            accessKeyID: TemporarySwiftS3.accessKeyID, secretAccessKey: TemporarySwiftS3.secretAccessKey)
        let bucket = "serve-" + UUID().uuidString.lowercased().prefix(18)
        let client = S3Client(
            endpoint: swift.endpoint, bucket: String(bucket), region: TemporarySwiftS3.region,
            credentials: credentials)
        try await client.createBucket()
        let settings = S3BlobBackend.Configuration(
            endpoint: swift.endpoint, bucket: String(bucket), prefix: "blobs/", region: TemporarySwiftS3.region,
            credentials: credentials, multipartThreshold: 5 << 20, partSize: 5 << 20)
        let harness = try await ServerHarness.start(sqlite: true, configure: { $0.blobs = .s3(settings) })
        return (harness, client, settings)
    }

    static func sha256Hex(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    @Test("content goes to the bucket under its hash and comes back whole, in ranges and appended")
    func contentRoundTrip() async throws {
        let (harness, client, _) = try await Self.start()
        try await withCleanup { () async throws in
            let bytes = Data((0..<(6 << 20) + 17).map { UInt8(($0 * 7) % 251) })
            var form = MultipartFormData(boundary: "doc")
            form.addField("cmisaction", "createDocument")
            form.addField("propertyId[0]", "cmis:name")
            form.addField("propertyValue[0]", "big.bin")
            try form.addData("content", data: bytes, filename: "big.bin", contentType: "application/x-test")
            form.addField("succinct", "true")
            let created = try await harness.send(.post, Self.folderURL, body: .multipart(form))
            #expect(created.status == 201)
            let id = try #require(try BrowserParser.object(created.body).id)

            // In the bucket, named by its SHA-256; nothing left in the scratch folder.
            let objects = try await client.listObjects(prefix: "blobs/")
            #expect(objects.map(\.key) == ["blobs/" + Self.sha256Hex(bytes)])
            #expect(objects.first?.size == Int64(bytes.count))
            let scratch = harness.dataDirectory.appendingPathComponent("blobs/tmp")
            #expect(try FileManager.default.contentsOfDirectory(atPath: scratch.path).isEmpty)

            let whole = try await harness.send(.get, "\(Self.folderURL)?objectId=\(id)&cmisselector=content")
            #expect(whole.status == 200 && whole.body == bytes)
            #expect(whole.headers["ETag"]?.contains(Self.sha256Hex(bytes)) == true)
            let part = try await harness.send(
                .get, "\(Self.folderURL)?objectId=\(id)&cmisselector=content",
                headers: [("Range", "bytes=5242878-5242881")])
            #expect(part.status == 206)
            #expect(part.body == bytes[5_242_878...5_242_881])

            // An append makes new content in the bucket (an object store has no append in place).
            var chunk = MultipartFormData(boundary: "more")
            chunk.addField("cmisaction", "appendContent")
            chunk.addField("objectId", id)
            chunk.addField("isLastChunk", "true")
            try chunk.addData("content", data: Data("tail".utf8), filename: "t", contentType: "application/x-test")
            let appended = try await harness.send(.post, Self.folderURL, body: .multipart(chunk))
            #expect(appended.status == 200)
            let after = try await harness.send(.get, "\(Self.folderURL)?objectId=\(id)&cmisselector=content")
            #expect(after.body == bytes + Data("tail".utf8))
        } cleanup: {
            await harness.stop()
        }
    }

    @Test("a blob missing from the bucket is a storage error, never empty or short content")
    func missingObject() async throws {
        let (harness, client, _) = try await Self.start()
        try await withCleanup { () async throws in
            var form = MultipartFormData(boundary: "doc")
            form.addField("cmisaction", "createDocument")
            form.addField("propertyId[0]", "cmis:name")
            form.addField("propertyValue[0]", "gone.txt")
            try form.addData("content", data: Data("soon gone".utf8), filename: "gone.txt", contentType: "text/plain")
            let created = try await harness.send(.post, Self.folderURL, body: .multipart(form))
            let id = try #require(try BrowserParser.object(created.body).id)
            for object in try await client.listObjects(prefix: "blobs/") { try await client.deleteObject(object.key) }
            let read = try await harness.send(.get, "\(Self.folderURL)?objectId=\(id)&cmisselector=content")
            #expect(read.status == 500)
            #expect(exception(read) == "storage")
            #expect(read.text.contains("missing from the blob store"))
        } cleanup: {
            await harness.stop()
        }
    }

    @Test("a server whose bucket does not answer to its keys does not start, and says why")
    func wrongKeysStopTheStart() async throws {
        let swift = try await TemporarySwiftS3.shared.value
        let settings = S3BlobBackend.Configuration(
            endpoint: swift.endpoint, bucket: "anything", region: TemporarySwiftS3.region,
            credentials: S3Credentials(accessKeyID: TemporarySwiftS3.accessKeyID, secretAccessKey: "wrong"))
        await #expect {
            _ = try await ServerHarness.start(sqlite: true, configure: { $0.blobs = .s3(settings) })
        } throws: { error in
            let text = "\(error)"
            return text.contains("SignatureDoesNotMatch") && text.contains("s3://anything")
        }
        await #expect {
            _ = try await ServerHarness.start(configure: { $0.blobs = .s3(settings) })
        } throws: { error in
            "\(error)".contains("metadata in memory cannot be combined")
        }
    }

    @Test("/ready turns false while the object store is down and true once it is back; /health stays up")
    func readinessFollowsTheObjectStore() async throws {
        let swift = try await TemporarySwiftS3.start()
        let credentials = S3Credentials(
            accessKeyID: TemporarySwiftS3.accessKeyID, secretAccessKey: TemporarySwiftS3.secretAccessKey)
        let client = S3Client(
            endpoint: swift.endpoint, bucket: "ready", region: TemporarySwiftS3.region, credentials: credentials)
        try await client.createBucket()
        let settings = S3BlobBackend.Configuration(
            endpoint: swift.endpoint, bucket: "ready", region: TemporarySwiftS3.region, credentials: credentials)
        let harness = try await ServerHarness.start(sqlite: true, configure: { $0.blobs = .s3(settings) })
        try await withCleanup { () async throws in
            let ready = try await harness.send(.get, "/ready", user: nil)
            #expect(ready.status == 200)
            #expect(ready.text.contains("\"blobs\":\"ok\"") && ready.text.contains("\"metadata\":\"ok\""))

            await swift.stop()
            // An answer is reused for a second: ask until it is a new one.
            var down = try await harness.send(.get, "/ready", user: nil)
            let stopped = ContinuousClock.now + .seconds(10)
            while down.status == 200, ContinuousClock.now < stopped {
                try await Task.sleep(for: .milliseconds(200))
                down = try await harness.send(.get, "/ready", user: nil)
            }
            #expect(down.status == 503)
            #expect(down.text.contains("\"blobs\":\"failing\"") && down.text.contains("\"metadata\":\"ok\""))
            #expect(!down.text.contains("127.0.0.1"), "the answer names the failing check, not internal addresses")
            #expect(try await harness.send(.get, "/health", user: nil).status == 200)

            try await swift.restart()
            var back = try await harness.send(.get, "/ready", user: nil)
            // The client may still be backing off from the refused connections: give it a few seconds.
            let deadline = ContinuousClock.now + .seconds(15)
            while back.status != 200, ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(200))
                back = try await harness.send(.get, "/ready", user: nil)
            }
            #expect(back.status == 200)
        } cleanup: {
            await harness.stop()
            await swift.remove()
        }
    }

    @Test("a dependency that never answers counts as failing within the timeout, and never holds the answer")
    func hungDependency() async throws {
        let readiness = Readiness(
            checks: [
                .init(name: "hung") {
                    // Ignores cancellation, as a synchronous database wait would.
                    while true { try? await Task.sleep(for: .seconds(60)) }
                },
                .init(name: "fine") {},
            ], timeout: .milliseconds(300), reuse: .zero)
        let started = ContinuousClock.now
        let results = await readiness.run()
        #expect(started.duration(to: .now) < .seconds(5))
        #expect(results.map(\.name) == ["hung", "fine"])
        #expect(results[0].failure?.contains("no answer within") == true)
        #expect(results[1].failure == nil)
    }
}
