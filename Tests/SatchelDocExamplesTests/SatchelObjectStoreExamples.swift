import Foundation
import SatchelObjectStore
import SatchelRepository

enum SatchelObjectStoreExamples {
    /// GettingStarted.md: a blob store on a bucket.
    static func store(scratch: URL) async throws -> Data {
        let settings = try S3BlobBackend.Configuration(
            url: "s3://satchel-blobs?endpoint=http://127.0.0.1:8080&region=us-east-1")
        let blobs = try BlobStore(backend: S3BlobBackend(settings), scratchDirectory: scratch)
        let lease = try await blobs.put(Data("hello".utf8))
        let bytes = try await blobs.data(for: lease.reference)
        lease.end()
        return bytes
    }

    /// GettingStarted.md: keys from a file, and the client underneath.
    static func list() async throws {
        let credentials = try S3Credentials.fromFile(URL(fileURLWithPath: "/etc/satchel/s3-credentials"))
        print(credentials)  // S3Credentials(AKIA…, secret <redacted>)
        let client = S3Client(
            endpoint: URL(string: "http://127.0.0.1:8080")!, bucket: "satchel-blobs", region: "us-east-1",
            credentials: credentials)
        for object in try await client.listObjects(prefix: "") {
            print(object.key, object.size, object.lastModified)
        }
    }
}
