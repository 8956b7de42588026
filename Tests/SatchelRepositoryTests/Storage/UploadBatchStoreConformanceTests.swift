import Foundation
import SatchelCMISCore
import Testing

@testable import SatchelRepository

/// The same cases against every ``UploadBatchStore``: memory, SQLite and PostgreSQL.
@Suite("UploadBatchStore conformance")
struct UploadBatchStoreConformanceTests {
    func withUploads(
        _ backend: Backend, _ body: (any MetadataStore, any UploadBatchStore) async throws -> Void
    ) async throws {
        try await withStore(backend) { store in
            let uploads = try #require(store as? any UploadBatchStore, "\(backend) keeps no upload batches")
            try await body(store, uploads)
        }
    }

    static let whole = UploadFileHeader(name: "a.txt", mimeType: "text/plain", size: 3, chunkCount: 1, chunked: false)
    static func chunked(_ count: Int) -> UploadFileHeader {
        UploadFileHeader(
            name: "big.bin", mimeType: "application/octet-stream", size: nil, chunkCount: count, chunked: true)
    }
    static func blob(_ name: String, _ length: Int64 = 10) -> BlobReference {
        BlobReference(hash: name, length: length)
    }

    @Test("a batch is its owner's, and an owner opens only so many", arguments: Backend.allCases)
    func openingAndOwners(backend: Backend) async throws {
        try await withUploads(backend) { (_, uploads) async throws in
            #expect(try await uploads.openUploadBatch(id: "b1", owner: "alice", at: time(1), maximumPerOwner: 2))
            #expect(try await uploads.openUploadBatch(id: "b2", owner: "alice", at: time(2), maximumPerOwner: 2))
            #expect(try await !uploads.openUploadBatch(id: "b3", owner: "alice", at: time(3), maximumPerOwner: 2))
            #expect(try await uploads.uploadBatch(id: "b3", owner: "alice") == nil, "a refused batch leaves nothing")
            #expect(try await uploads.openUploadBatch(id: "b3", owner: "bob", at: time(3), maximumPerOwner: 2))
            #expect(try await !uploads.openUploadBatch(id: "b3", owner: "bob", at: time(3), maximumPerOwner: 2))
            #expect(
                try await uploads.uploadBatch(id: "b1", owner: "alice")
                    == UploadBatch(id: "b1", owner: "alice", touched: time(1)))
            // Someone else's batch is not found, and cannot be changed or dropped.
            #expect(try await uploads.uploadBatch(id: "b1", owner: "bob") == nil)
            #expect(
                try await uploads.storeUploadChunk(
                    batch: "b1", owner: "bob", file: 0, chunk: 0, header: Self.whole, blob: Self.blob("h1"), at: time(4)
                )
                    == .noBatch)
            #expect(
                try await uploads.dropUpload(batch: "b1", owner: "bob", file: nil, staleBefore: time(0)) == .notFound)
            #expect(
                try await uploads.claimUploadFile(batch: "b1", owner: "bob", file: 0, at: time(4), staleBefore: time(0))
                    == .notFound)
            #expect(try await uploads.uploadBatch(id: "b1", owner: "alice")?.files.isEmpty == true)
        }
    }

    @Test("chunks are recorded, replaced and counted as references", arguments: Backend.allCases)
    func chunks(backend: Backend) async throws {
        try await withUploads(backend) { (store, uploads) async throws in
            try await seed(store)
            _ = try await uploads.openUploadBatch(id: "b", owner: "alice", at: time(1), maximumPerOwner: 9)
            let first = try await uploads.storeUploadChunk(
                batch: "b", owner: "alice", file: 0, chunk: 1, header: Self.chunked(2), blob: Self.blob("c1", 7),
                at: time(2))
            guard case .stored(let file, let released) = first else {
                Issue.record("not stored: \(first)")
                return
            }
            #expect(!file.isComplete && released.isEmpty && file.chunks == [1: Self.blob("c1", 7)])
            #expect(try await store.isContentReferenced("c1"), "a chunk keeps its blob")
            #expect(try await store.referencedContentHashes().contains("c1"))
            // A chunk sent again replaces the one before, and lets its blob go.
            let again = try await uploads.storeUploadChunk(
                batch: "b", owner: "alice", file: 0, chunk: 1, header: Self.chunked(2), blob: Self.blob("c1b", 8),
                at: time(3))
            #expect(
                again
                    == .stored(UploadFile(header: Self.chunked(2), chunks: [1: Self.blob("c1b", 8)]), released: ["c1"]))
            #expect(try await !store.isContentReferenced("c1"))
            _ = try await uploads.storeUploadChunk(
                batch: "b", owner: "alice", file: 0, chunk: 0, header: Self.chunked(2), blob: Self.blob("c0", 5),
                at: time(4))
            let batch = try #require(try await uploads.uploadBatch(id: "b", owner: "alice"))
            #expect(batch.touched == time(4))
            #expect(batch.files[0]?.isComplete == true && batch.files[0]?.uploadedSize == 13)
            #expect(try await uploads.uploadedBytes(owner: "alice") == 13)
            #expect(try await uploads.uploadedBytes(owner: "bob") == 0)
            // A blob that is also a document's content is not let go of.
            try await store.apply(StoreBatch(repositoryId: repo, inserts: [document("d", hash: "c0")]))
            // A new chunk count starts the file over, with the new header.
            var other = Self.chunked(3)
            other.name = "other.txt"
            other.mimeType = "text/plain"
            other.size = 30
            let restart = try await uploads.storeUploadChunk(
                batch: "b", owner: "alice", file: 0, chunk: 0, header: other, blob: Self.blob("n0"), at: time(5))
            #expect(restart == .stored(UploadFile(header: other, chunks: [0: Self.blob("n0")]), released: ["c1b"]))
            // A deleted document whose content a chunk holds does not release it.
            try await store.apply(StoreBatch(repositoryId: repo, inserts: [document("e", hash: "n0")]))
            let deleted = try await store.apply(StoreBatch(repositoryId: repo, deletes: ["d", "e"]))
            #expect(deleted.releasedContentHashes == ["c0"])
        }
    }

    @Test("a claimed file is nobody else's to change, attach or drop, until it lapses", arguments: Backend.allCases)
    func claims(backend: Backend) async throws {
        try await withUploads(backend) { (store, uploads) async throws in
            _ = try await uploads.openUploadBatch(id: "b", owner: "alice", at: time(1), maximumPerOwner: 9)
            _ = try await uploads.storeUploadChunk(
                batch: "b", owner: "alice", file: 0, chunk: 0, header: Self.chunked(2), blob: Self.blob("k0"),
                at: time(2))
            #expect(
                try await uploads.claimUploadFile(
                    batch: "b", owner: "alice", file: 0, at: time(3), staleBefore: time(0)) == .incomplete)
            #expect(
                try await uploads.claimUploadFile(
                    batch: "b", owner: "alice", file: 5, at: time(3), staleBefore: time(0)) == .notFound)
            _ = try await uploads.storeUploadChunk(
                batch: "b", owner: "alice", file: 0, chunk: 1, header: Self.chunked(2), blob: Self.blob("k1"),
                at: time(3))
            let claim = try await uploads.claimUploadFile(
                batch: "b", owner: "alice", file: 0, at: time(10), staleBefore: time(0))
            guard case .claimed(let file) = claim else {
                Issue.record("not claimed: \(claim)")
                return
            }
            #expect(file.claimed == time(10) && file.chunks.count == 2)
            #expect(
                try await uploads.claimUploadFile(
                    batch: "b", owner: "alice", file: 0, at: time(11), staleBefore: time(5)) == .busy)
            #expect(
                try await uploads.storeUploadChunk(
                    batch: "b", owner: "alice", file: 0, chunk: 0, header: Self.chunked(2), blob: Self.blob("x"),
                    at: time(11))
                    == .busy)
            #expect(try await uploads.dropUpload(batch: "b", owner: "alice", file: nil, staleBefore: time(5)) == .busy)
            #expect(try await uploads.dropUpload(batch: "b", owner: "alice", file: 0, staleBefore: time(5)) == .busy)
            // An attach that failed frees the file.
            #expect(
                try await uploads.settleUploadFile(
                    batch: "b", owner: "alice", file: 0, claimed: time(10), attached: false
                ).isEmpty)
            #expect(try await uploads.uploadBatch(id: "b", owner: "alice")?.files[0]?.claimed == nil)
            // A claim older than the cutoff belonged to a process that died: taken over; the old claimant's
            // settlement then does nothing.
            _ = try await uploads.claimUploadFile(
                batch: "b", owner: "alice", file: 0, at: time(20), staleBefore: time(0))
            let takeover = try await uploads.claimUploadFile(
                batch: "b", owner: "alice", file: 0, at: time(40), staleBefore: time(30))
            #expect(
                takeover
                    == .claimed(
                        UploadFile(
                            header: Self.chunked(2), chunks: [0: Self.blob("k0"), 1: Self.blob("k1")], claimed: time(40)
                        )))
            #expect(
                try await uploads.settleUploadFile(
                    batch: "b", owner: "alice", file: 0, claimed: time(20), attached: true
                ).isEmpty)
            #expect(try await store.isContentReferenced("k0"))
            // Attached: the file leaves its batch and its chunks go.
            #expect(
                try await uploads.settleUploadFile(
                    batch: "b", owner: "alice", file: 0, claimed: time(40), attached: true) == ["k0", "k1"])
            #expect(try await uploads.uploadBatch(id: "b", owner: "alice")?.files.isEmpty == true)
            #expect(try await !store.isContentReferenced("k0"))
        }
    }

    @Test("dropping and expiring let go of chunks", arguments: Backend.allCases)
    func droppingAndExpiring(backend: Backend) async throws {
        try await withUploads(backend) { (store, uploads) async throws in
            for (id, at) in [("old", Int64(1)), ("new", Int64(100))] {
                _ = try await uploads.openUploadBatch(id: id, owner: "alice", at: time(at), maximumPerOwner: 9)
                for index in 0..<2 {
                    _ = try await uploads.storeUploadChunk(
                        batch: id, owner: "alice", file: index, chunk: 0, header: Self.whole,
                        blob: Self.blob("\(id)\(index)"),
                        at: time(at))
                }
            }
            // Two batches hold one blob: dropping one of them keeps it.
            _ = try await uploads.storeUploadChunk(
                batch: "new", owner: "alice", file: 2, chunk: 0, header: Self.whole, blob: Self.blob("old0"),
                at: time(100))
            #expect(
                try await uploads.dropUpload(batch: "new", owner: "alice", file: 1, staleBefore: time(0))
                    == .dropped(released: ["new1"]))
            #expect(try await uploads.uploadBatch(id: "new", owner: "alice")?.files.keys.sorted() == [0, 2])
            #expect(try await uploads.expireUploadBatches(touchedBefore: time(50)) == ["old1"])
            #expect(try await uploads.uploadBatch(id: "old", owner: "alice") == nil)
            #expect(
                try await uploads.dropUpload(batch: "new", owner: "alice", file: nil, staleBefore: time(0))
                    == .dropped(released: ["new0", "old0"]))
            #expect(try await uploads.uploadBatch(id: "new", owner: "alice") == nil)
            #expect(try await store.referencedContentHashes().isEmpty)
            #expect(
                try await uploads.dropUpload(batch: "new", owner: "alice", file: nil, staleBefore: time(0)) == .notFound
            )
            #expect(try await uploads.expireUploadBatches(touchedBefore: time(1000)).isEmpty)
        }
    }

    @Test("chunks of one file stored at once are all recorded", arguments: Backend.allCases)
    func concurrentChunks(backend: Backend) async throws {
        try await withUploads(backend) { (_, uploads) async throws in
            _ = try await uploads.openUploadBatch(id: "b", owner: "alice", at: time(1), maximumPerOwner: 9)
            try await withThrowingTaskGroup(of: Void.self) { group in
                for chunk in 0..<12 {
                    group.addTask {
                        _ = try await uploads.storeUploadChunk(
                            batch: "b", owner: "alice", file: 0, chunk: chunk, header: Self.chunked(12),
                            blob: Self.blob("p\(chunk)"), at: time(2))
                    }
                }
                try await group.waitForAll()
            }
            let file = try #require(try await uploads.uploadBatch(id: "b", owner: "alice")?.files[0])
            #expect(file.isComplete && file.chunks.count == 12)
        }
    }
}
