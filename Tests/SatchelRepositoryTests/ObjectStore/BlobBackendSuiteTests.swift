import Crypto
import Foundation
import SatchelObjectStore
import SatchelTestSupport
import Synchronization
import Testing

@testable import SatchelRepository

/// Where a suite's blobs go: the local disk, or a bucket in a real S3-compatible store (OpenStack Swift's S3 API).
enum BlobBackendKind: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case local, s3
    var testDescription: String { rawValue }
}

/// Buckets on the test process's object store (``TemporarySwiftS3/shared``).
enum SharedSwiftS3 {
    static var server: Task<TemporarySwiftS3, any Error> { TemporarySwiftS3.shared }

    /// A new, empty bucket's client on the shared store.
    static func bucket(secret: String = TemporarySwiftS3.secretAccessKey) async throws -> (S3Client, String) {
        let swift = try await server.value
        let name = "satchel-" + UUID().uuidString.lowercased().prefix(18)
        let client = S3Client(
            endpoint: swift.endpoint, bucket: String(name), region: TemporarySwiftS3.region,
            credentials: S3Credentials(accessKeyID: TemporarySwiftS3.accessKeyID, secretAccessKey: secret))
        try await client.createBucket()
        return (client, String(name))
    }

    /// A back-end on a new bucket, cutting uploads above 5 MiB into 5 MiB parts (the smallest S3 allows).
    static func backend(prefix: String = "blobs/") async throws -> S3BlobBackend {
        let swift = try await server.value
        let (_, bucket) = try await Self.bucket()
        return S3BlobBackend(
            .init(
                endpoint: swift.endpoint, bucket: bucket, prefix: prefix, region: TemporarySwiftS3.region,
                credentials: S3Credentials(
                    accessKeyID: TemporarySwiftS3.accessKeyID, secretAccessKey: TemporarySwiftS3.secretAccessKey),
                multipartThreshold: 5 << 20, partSize: 5 << 20, concurrentParts: 2))
    }
}

/// The blob store's own suite, run with the same tests against the local disk and against a real object store.
@Suite("Blob back-ends: the same suite on the local disk and on Swift's S3 API")
struct BlobBackendSuiteTests {
    static func scratch() -> URL {
        FileManager.default.temporaryDirectory.appendingPathComponent("satchel-blob-suite-\(UUID())")
    }

    /// Runs `body` with a new store of `kind`, and removes its folder afterwards.
    static func withStore(_ kind: BlobBackendKind, _ body: (BlobStore) async throws -> Void) async throws {
        let folder = scratch()
        let blobs: BlobStore
        switch kind {
        case .local: blobs = try BlobStore(directory: folder)
        case .s3: blobs = try BlobStore(backend: try await SharedSwiftS3.backend(), scratchDirectory: folder)
        }
        try await withCleanup { () async throws in
            try await body(blobs)
        } cleanup: {
            try? FileManager.default.removeItem(at: folder)
        }
    }

    static func bytes(_ count: Int, seed: UInt8 = 7) -> Data {
        var generator = seed
        return Data(
            (0..<count).map { index -> UInt8 in
                generator = generator &* 31 &+ UInt8(truncatingIfNeeded: index >> 7)
                return generator
            })
    }

    static func sha256(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }

    static func collect(_ stream: AsyncThrowingStream<[UInt8], any Error>) async throws -> Data {
        var data = Data()
        for try await chunk in stream { data.append(contentsOf: chunk) }
        return data
    }

    @Test(arguments: BlobBackendKind.allCases)
    func storesReadsAndDeduplicates(_ kind: BlobBackendKind) async throws {
        try await Self.withStore(kind) { blobs in
            let content = Self.bytes(100_000)
            let first = try await blobs.put(content)
            #expect(first.hash == Self.sha256(content) && first.length == 100_000)
            #expect(try await blobs.data(for: first.reference) == content)
            let second = try await blobs.put(content)
            #expect(second.hash == first.hash)
            let listed = try await blobs.list()
            #expect(listed.map(\.hash) == [first.hash], "identical content is stored once")
            #expect(abs(listed[0].lastWritten.timeIntervalSinceNow) < 120)
            // Ranges: the first byte, one in the middle, the last, and a span.
            for range: ClosedRange<Int64> in [0...0, 4_096...4_096, 99_999...99_999, 10...70_000] {
                let read = try await Self.collect(try await blobs.read(first.reference, range: range))
                #expect(read == content[Int(range.lowerBound)...Int(range.upperBound)], "\(range)")
            }
            // A range outside the blob is refused, not clipped.
            await #expect(throws: BlobStoreError.self) {
                _ = try await blobs.read(first.reference, range: 99_000...100_000)
            }
            let empty = try await blobs.put(Data())
            #expect(try await blobs.data(for: empty.reference) == Data())
            withExtendedLifetime((first, second, empty)) {}
        }
    }

    @Test(arguments: BlobBackendKind.allCases)
    func aMissingBlobSaysSo(_ kind: BlobBackendKind) async throws {
        try await Self.withStore(kind) { blobs in
            let missing = BlobReference(hash: String(repeating: "b", count: 64), length: 10)
            #expect(try await !blobs.contains(missing.hash))
            await #expect {
                _ = try await blobs.read(missing)
            } throws: { error in
                (error as? BlobStoreError)?.isMissing == true
            }
            await #expect {
                _ = try await blobs.data(for: missing)
            } throws: { error in
                (error as? BlobStoreError)?.isMissing == true
            }
            // Content going out: at once for a local file, when the stream opens otherwise; never empty content.
            let open: () async throws -> ContentOutput = {
                try await blobs.content(missing, mimeType: "text/plain", fileName: nil)
            }
            let output: Result<ContentOutput, any Error>
            do { output = .success(try await open()) } catch { output = .failure(error) }
            switch (kind, output) {
            case (.local, .failure(let error)):
                #expect((error as? BlobStoreError)?.isMissing == true)
            case (.s3, .success(let output)):
                #expect(output.hash == missing.hash && output.entityTag == missing.hash)
                guard case .stream(let streamer) = output.body else {
                    Issue.record("content in a bucket is not a stream")
                    return
                }
                await #expect {
                    _ = try await streamer.open(nil)
                } throws: { error in
                    (error as? BlobStoreError)?.isMissing == true
                }
            default:
                Issue.record("unexpected content for a missing blob on \(kind): \(output)")
            }
            try await blobs.backend.remove(missing.hash)  // removing what is not there is no error
        }
    }

    @Test(arguments: BlobBackendKind.allCases)
    func largeContentGoesInPartsAndReadsBackWhole(_ kind: BlobBackendKind) async throws {
        try await Self.withStore(kind) { blobs in
            let content = Self.bytes((12 << 20) + 3, seed: 3)
            let lease = try await blobs.put(content)
            #expect(lease.hash == Self.sha256(content))
            let read = try await blobs.data(for: lease.reference)
            #expect(read.count == content.count && read == content)
            let boundary = Int64(5 << 20)
            let across = try await Self.collect(
                try await blobs.read(lease.reference, range: (boundary - 2)...(boundary + 2)))
            #expect(across == content[Int(boundary - 2)...Int(boundary + 2)])
            #expect(try await blobs.list().map(\.hash) == [lease.hash])
            withExtendedLifetime(lease) {}
        }
    }

    @Test(arguments: BlobBackendKind.allCases)
    func storingAgainMarksTheBlobAsWrittenNow(_ kind: BlobBackendKind) async throws {
        try await Self.withStore(kind) { blobs in
            let content = Data("written twice".utf8)
            let first = try await blobs.put(content)
            let before = try #require(try await blobs.backend.lastWritten(first.hash))
            try await Task.sleep(for: .milliseconds(1_100))  // object stores date to the second
            let again = try await blobs.put(content)
            let after = try #require(try await blobs.backend.lastWritten(first.hash))
            #expect(after > before, "a duplicate upload is one another node's janitor must spare")
            withExtendedLifetime((first, again)) {}
        }
    }

    @Test(arguments: BlobBackendKind.allCases)
    func appendsMakeTheLongerContent(_ kind: BlobBackendKind) async throws {
        try await Self.withStore(kind) { blobs in
            let first = try await blobs.put(Data("hello".utf8))
            let chunk = try await blobs.put(Data(", world".utf8))
            let combined = try await blobs.append(chunk.reference, to: first.reference)
            #expect(try await blobs.data(for: combined.reference) == Data("hello, world".utf8))
            #expect(try await blobs.data(for: first.reference) == Data("hello".utf8))
            #expect(combined.hash == Self.sha256(Data("hello, world".utf8)))
            withExtendedLifetime((first, chunk, combined)) {}
        }
    }

    @Test(arguments: BlobBackendKind.allCases)
    func garbageCollectionKeepsWhatIsReferencedOrYoung(_ kind: BlobBackendKind) async throws {
        try await Self.withStore(kind) { blobs in
            let kept = try await blobs.put(Data("kept".utf8))
            let orphan = try await blobs.put(Data("orphan".utf8))
            let held = try await blobs.put(Data("held by a request".utf8))
            kept.end()
            orphan.end()
            // Everything is younger than a minute: nothing goes.
            let young = try await blobs.collectGarbage(keeping: { [] }, olderThan: Date().addingTimeInterval(-60))
            #expect(young.removed == 0 && young.refusal == nil && young.listed == 3)
            // A store that refers to none of a shared bucket's blobs is not the store they belong to: nothing goes.
            let stranger = try await blobs.collectGarbage(keeping: { [] })
            #expect((stranger.refusal != nil) == (kind == .s3))
            #expect(stranger.removed == (kind == .s3 ? 0 : 2), "the local disk's blobs are this store's own")
            let more = try await blobs.put(Data("one more, referenced".utf8))
            let orphan2 = try await blobs.put(Data("orphan again".utf8))
            orphan2.end()
            // Without a grace, what nothing refers to goes, except what a request holds.
            let collected = try await blobs.collectGarbage(keeping: { [kept.hash, more.hash, orphan.hash] })
            #expect(collected.removed == 1 && collected.failures.isEmpty && collected.refusal == nil)
            let left = Set(try await blobs.list().map(\.hash))
            #expect(left.contains(held.hash) && left.contains(more.hash) && !left.contains(orphan2.hash))
            withExtendedLifetime((held, more)) {}
        }
    }

    @Test(arguments: BlobBackendKind.allCases)
    func theJanitorRemovesWhatNothingRefersTo(_ kind: BlobBackendKind) async throws {
        try await Self.withStore(kind) { blobs in
            let referenced = Mutex<Set<String>>([])
            blobs.connectJanitor(isReferenced: { hash in referenced.withLock { $0.contains(hash) } }, grace: .zero)
            let orphan = try await blobs.put(Data("orphan".utf8))
            let owned = try await blobs.put(Data("owned".utf8))
            referenced.withLock { _ = $0.insert(owned.hash) }
            orphan.end()
            owned.end()
            let deadline = ContinuousClock.now + .seconds(10)
            while try await blobs.contains(orphan.hash), ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            #expect(try await !blobs.contains(orphan.hash))
            #expect(try await blobs.contains(owned.hash))
            // A commit's released blob stays while a request holds a lease on the same bytes.
            let ticket = blobs.ticket()
            let again = try await blobs.put(Data("owned".utf8))
            await blobs.release([owned.hash], since: ticket)
            #expect(try await blobs.contains(owned.hash))
            withExtendedLifetime(again) {}
        }
    }

    /// A blob shorter than its reference says is an error, never content cut short.
    @Test(arguments: BlobBackendKind.allCases)
    func aShortBlobIsAnErrorNotShortContent(_ kind: BlobBackendKind) async throws {
        try await Self.withStore(kind) { blobs in
            let lease = try await blobs.put(Data("0123456789".utf8))
            let claimed = BlobReference(hash: lease.hash, length: 20)
            await #expect {
                _ = try await blobs.data(for: claimed)
            } throws: { error in
                "\(error)".contains("20")
            }
            await #expect {
                _ = try await Self.collect(try await blobs.read(claimed, range: 5...15))
            } throws: { error in
                (error as? BlobStoreError).map { !$0.isMissing } ?? false
            }
            withExtendedLifetime(lease) {}
        }
    }
}

/// What only an object store can get wrong: keys, integrity, its own errors.
@Suite("S3 back-end: refusals and integrity against Swift's S3 API")
struct S3BackendRefusalTests {
    @Test func wrongKeysAreRefusedWithTheStoresAnswer() async throws {
        let swift = try await SharedSwiftS3.server.value
        let (_, bucket) = try await SharedSwiftS3.bucket()
        let wrong = S3BlobBackend(
            .init(
                endpoint: swift.endpoint, bucket: bucket, region: TemporarySwiftS3.region,
                credentials: S3Credentials(accessKeyID: TemporarySwiftS3.accessKeyID, secretAccessKey: "wrong")))
        await #expect {
            try await wrong.checkBucket()
        } throws: { error in
            let text = "\(error)"
            return text.contains("403") && text.contains("SignatureDoesNotMatch") && text.contains(bucket)
        }
        let unknown = S3BlobBackend(
            .init(
                endpoint: swift.endpoint, bucket: bucket, region: TemporarySwiftS3.region,
                credentials: S3Credentials(accessKeyID: "nobody:here", secretAccessKey: "x")))
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("s3-refused-\(UUID())")
        try Data("abc".utf8).write(to: file)
        await #expect {
            try await unknown.store(
                file, as: BlobReference(hash: BlobBackendSuiteTests.sha256(Data("abc".utf8)), length: 3),
                partDigests: [])
        } throws: { error in
            "\(error)".contains("403")
        }
        #expect(!FileManager.default.fileExists(atPath: file.path), "the scratch file is consumed either way")
    }

    /// Bytes that do not match the name they are stored under never become that blob: the store checks the hash.
    @Test func bytesThatDoNotMatchTheirNameAreRefused() async throws {
        let backend = try await SharedSwiftS3.backend(prefix: "")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("s3-corrupt-\(UUID())")
        try Data("what was sent".utf8).write(to: file)
        let claimed = BlobBackendSuiteTests.sha256(Data("what was hashed".utf8))
        await #expect {
            try await backend.store(file, as: BlobReference(hash: claimed, length: 13), partDigests: [])
        } throws: { error in
            "\(error)".contains("400")
        }
        #expect(try await backend.lastWritten(claimed) == nil)
    }

    @Test func aMissingBucketStopsTheStart() async throws {
        let swift = try await SharedSwiftS3.server.value
        let backend = S3BlobBackend(
            .init(
                endpoint: swift.endpoint, bucket: "no-such-bucket-\(UUID().uuidString.prefix(8).lowercased())",
                region: TemporarySwiftS3.region,
                credentials: S3Credentials(
                    accessKeyID: TemporarySwiftS3.accessKeyID, secretAccessKey: TemporarySwiftS3.secretAccessKey)))
        await #expect {
            try await backend.checkBucket()
        } throws: { error in
            (error as? BlobStoreError)?.isMissing == true
        }
    }

    /// Many listing pages are followed to the end, never stopped at the first.
    @Test func listingsFollowEveryPage() async throws {
        let (client, _) = try await SharedSwiftS3.bucket()
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("s3-list-\(UUID())")
        try Data("x".utf8).write(to: file)
        let sha = BlobBackendSuiteTests.sha256(Data("x".utf8))
        for index in 0..<7 {
            try await client.putObject("p/\(index)", file: file, length: 1, sha256: sha)
        }
        try await client.putObject("q/other", file: file, length: 1, sha256: sha)
        let listed = try await client.listObjects(prefix: "p/", pageSize: 3)
        #expect(listed.map(\.key) == (0..<7).map { "p/\($0)" })
        #expect(listed.allSatisfy { $0.size == 1 && abs($0.lastModified.timeIntervalSinceNow) < 120 })
    }
}

/// A local back-end whose removals wait at a gate, and whose dates can be made unreadable: the races between the
/// janitor and an upload of the same bytes, made deterministic.
final class GatedBackend: BlobBackend {
    let inner: LocalBlobBackend
    let gateOpen = Mutex(true)
    let removals = Mutex(0)
    let datesFail = Mutex(false)

    init(directory: URL) throws { inner = try LocalBlobBackend(directory: directory) }

    var location: String { inner.location }
    func store(_ file: URL, as reference: BlobReference, partDigests: [String]) async throws(BlobStoreError) {
        try await inner.store(file, as: reference, partDigests: partDigests)
    }
    func read(
        _ blob: BlobReference, range: ClosedRange<Int64>?
    ) async throws(BlobStoreError) -> AsyncThrowingStream<[UInt8], any Error> {
        try await inner.read(blob, range: range)
    }
    func lastWritten(_ hash: String) async throws(BlobStoreError) -> Date? {
        if datesFail.withLock({ $0 }) {
            throw BlobStoreError(operation: "head", path: hash, reason: "the store does not answer")
        }
        return try await inner.lastWritten(hash)
    }
    func remove(_ hash: String) async throws(BlobStoreError) {
        removals.withLock { $0 += 1 }
        while !gateOpen.withLock({ $0 }) { try? await Task.sleep(for: .milliseconds(5)) }
        try await inner.remove(hash)
    }
    func list() async throws(BlobStoreError) -> [BlobListing] { try await inner.list() }
}

@Suite("Blob store: an upload and a removal of the same bytes")
struct BlobRemovalRaceTests {
    @Test func anUploadDuringARemovalWaitsForItAndKeepsItsBlob() async throws {
        let folder = BlobBackendSuiteTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let backend = try GatedBackend(directory: folder)
        let blobs = try BlobStore(backend: backend, scratchDirectory: folder.appendingPathComponent("tmp"))
        blobs.connectJanitor(isReferenced: { _ in false }, grace: .zero)
        backend.gateOpen.withLock { $0 = false }
        let first = try await blobs.put(Data("raced".utf8))
        first.end()  // the janitor starts removing it, and waits at the gate
        let deadline = ContinuousClock.now + .seconds(10)
        while backend.removals.withLock({ $0 }) == 0, ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(5))
        }
        #expect(backend.removals.withLock { $0 } == 1)
        let again = Task { try await blobs.put(Data("raced".utf8)) }
        try await Task.sleep(for: .milliseconds(200))
        backend.gateOpen.withLock { $0 = true }
        let lease = try await again.value
        // The removal went first; the upload stored its bytes after it, so they are there.
        #expect(try await blobs.data(for: lease.reference) == Data("raced".utf8))
        withExtendedLifetime(lease) {}
    }

    /// With a grace, a blob whose date cannot be read is never removed on that account: it is asked about again.
    @Test func anUnreadableDateNeverRemoves() async throws {
        let folder = BlobBackendSuiteTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let backend = try GatedBackend(directory: folder)
        let blobs = try BlobStore(backend: backend, scratchDirectory: folder.appendingPathComponent("tmp"))
        blobs.connectJanitor(isReferenced: { _ in false }, grace: .milliseconds(500))
        backend.datesFail.withLock { $0 = true }
        let lease = try await blobs.put(Data("unknown age".utf8))
        let file = backend.inner.url(for: lease.hash)
        lease.end()
        try await Task.sleep(for: .milliseconds(700))
        #expect(backend.removals.withLock { $0 } == 0)
        #expect(FileManager.default.fileExists(atPath: file.path))
        // Once the date can be read again, the next look removes it (the grace has passed).
        backend.datesFail.withLock { $0 = false }
        let deadline = ContinuousClock.now + .seconds(10)
        while FileManager.default.fileExists(atPath: file.path), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(50))
        }
        #expect(!FileManager.default.fileExists(atPath: file.path))
    }

    @Test func withFileGivesExactlyTheBlobsBytes() async throws {
        let folder = BlobBackendSuiteTests.scratch()
        defer { try? FileManager.default.removeItem(at: folder) }
        let blobs = try BlobStore(directory: folder)
        let first = try await blobs.put(Data("hello".utf8))
        let longer = try await blobs.append(try await blobs.put(Data(", world".utf8)).reference, to: first.reference)
        // The first blob's file now holds the appended bytes too: a copy of its own five is handed out.
        let seen = try await blobs.withFile(first.reference) { file in (try Data(contentsOf: file), file.path) }
        #expect(seen.0 == Data("hello".utf8))
        #expect(!FileManager.default.fileExists(atPath: seen.1), "the copy is removed afterwards")
        let whole = try await blobs.withFile(longer.reference) { try Data(contentsOf: $0) }
        #expect(whole == Data("hello, world".utf8))
        withExtendedLifetime((first, longer)) {}
    }
}
