import Foundation
import Testing

@testable import SatchelRepository

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("Blob store on the local disk: appends in place")
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
