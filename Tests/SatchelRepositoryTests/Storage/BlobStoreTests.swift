import Foundation
import Synchronization
import Testing

@testable import SatchelRepository

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("Blob store: appends in place, leases, removal")
struct BlobStoreTests {
    static func store() throws -> BlobStore {
        try BlobStore(
            directory: FileManager.default.temporaryDirectory.appendingPathComponent("satchel-blobs-\(UUID())"))
    }

    static func inode(_ store: BlobStore, _ hash: String) -> UInt64 {
        var info = stat()
        return stat(store.localFile(for: hash)!.path, &info) == 0 ? UInt64(info.st_ino) : 0
    }

    @Test func appendsWriteOnlyTheNewBytesAndKeepEveryEarlierBlobWhole() async throws {
        let blobs = try Self.store()
        let first = try await blobs.put(Data("hello".utf8))
        let chunk = try await blobs.put(Data(", world".utf8))
        let combined = try await blobs.append(chunk.reference, to: first.reference)
        #expect(combined.length == 12)
        #expect(try await blobs.data(for: combined.reference) == Data("hello, world".utf8))
        // The same file: the first blob's name still covers its own five bytes.
        #expect(Self.inode(blobs, combined.hash) == Self.inode(blobs, first.hash))
        #expect(try await blobs.data(for: first.reference) == Data("hello".utf8))
        let again = try await blobs.append(chunk.reference, to: combined.reference)
        #expect(try await blobs.data(for: again.reference) == Data("hello, world, world".utf8))
        #expect(Self.inode(blobs, again.hash) == Self.inode(blobs, first.hash))
        // The names are the SHA-256 of their bytes, as any upload of the same bytes would find them.
        let fresh = try await blobs.put(Data("hello, world, world".utf8))
        #expect(fresh.hash == again.hash)

        // Appending to the first blob again: its file is longer now, so the bytes are copied into a new file.
        let branch = try await blobs.append(chunk.reference, to: first.reference)
        #expect(branch.hash == combined.hash)
        let other = try await blobs.append(try await blobs.put(Data("!".utf8)).reference, to: first.reference)
        #expect(try await blobs.data(for: other.reference) == Data("hello!".utf8))
        #expect(Self.inode(blobs, other.hash) != Self.inode(blobs, first.hash))
        #expect(try await blobs.data(for: again.reference) == Data("hello, world, world".utf8))
    }

    @Test func aLeaseKeepsItsBlobUntilItEndsAndThenOnlyWhatNothingReferences() async throws {
        let blobs = try Self.store()
        let referenced: Set<String> = []
        let kept = Mutex(referenced)
        blobs.connectJanitor(isReferenced: { hash in kept.withLock { $0.contains(hash) } }, grace: .zero)
        let orphan = try await blobs.put(Data("orphan".utf8))
        let owned = try await blobs.put(Data("owned".utf8))
        kept.withLock { _ = $0.insert(owned.hash) }
        #expect(try await blobs.contains(orphan.hash))
        #expect(try await blobs.contains(owned.hash))
        orphan.end()
        owned.end()
        let deadline = ContinuousClock.now + .seconds(5)
        while try await blobs.contains(orphan.hash), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        #expect(try await !blobs.contains(orphan.hash))
        #expect(try await blobs.contains(owned.hash))

        // A commit's released blob is not removed while a request holds a lease on the same bytes.
        let ticket = blobs.ticket()
        let second = try await blobs.put(Data("owned".utf8))
        await blobs.release([owned.hash], since: ticket)
        #expect(try await blobs.contains(owned.hash))
        withExtendedLifetime(second) {}
    }

    /// An append never waits for a lock someone else holds on the file: it copies.
    @Test func anAppendToALockedFileCopiesInsteadOfWaiting() async throws {
        let blobs = try Self.store()
        let first = try await blobs.put(Data("locked".utf8))
        let holder = open(blobs.localFile(for: first.hash)!.path, O_RDONLY)
        defer { close(holder) }
        #expect(flock(holder, LOCK_EX) == 0)
        let combined = try await blobs.append(try await blobs.put(Data(" out".utf8)).reference, to: first.reference)
        #expect(try await blobs.data(for: combined.reference) == Data("locked out".utf8))
        #expect(Self.inode(blobs, combined.hash) != Self.inode(blobs, first.hash))
    }
}
