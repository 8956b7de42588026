import Foundation
import GRDB
import SatchelStore
import Testing

/// Damage done to a closed store's file, each found with its own error.
@Suite("Damaged and foreign stores")
struct TamperingTests {
    /// A closed store of several pages, in rollback-journal mode (so the database file holds everything).
    static func makeStore(_ folder: TemporaryFolder) async throws -> String {
        let path = folder.path("t.db")
        let store = try StoreFile(path: path).openQueue(key: testKey)
        try await store.database.write { try writeMarkers($0, count: 200) }
        try store.close()
        return path
    }

    static func edit(_ path: String, _ change: (inout Data) -> Void) throws {
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        change(&data)
        try data.write(to: URL(fileURLWithPath: path))
    }

    @Test("a flipped bit in a page is a corrupt page, named", arguments: [1, 3])
    func flippedBit(page: Int) async throws {
        let folder = try TemporaryFolder()
        let path = try await Self.makeStore(folder)
        try Self.edit(path) { $0[(page - 1) * 4096 + 1000] ^= 0x04 }
        let error = expectStoreError(.corruptPage) {
            let store = try StoreFile(path: path).openQueue(key: testKey)
            defer { try? store.close() }
            do {
                _ = try store.database.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
            } catch {
                throw store.storeError(for: error) ?? error
            }
        }
        #expect(error?.page == page)
        let checked = expectStoreError(.corruptPage) { _ = try StoreFile(path: path).check(key: testKey) }
        #expect(checked?.page == page)
    }

    /// A store in WAL mode with its WAL still full (copied while the pool is open: closing checkpoints it away).
    static func makeWALCopy(_ folder: TemporaryFolder) async throws -> String {
        let path = folder.path("w.db")
        let store = try StoreFile(path: path).openPool(key: testKey)
        try await store.database.write { try writeMarkers($0, count: 200) }
        let copy = folder.path("c.db")
        for suffix in ["", "-wal"] {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix)
        }
        try store.close()
        #expect((try Data(contentsOf: URL(fileURLWithPath: copy + "-wal"))).count > 32 + 24 + 4096)
        return copy
    }

    @Test("a flipped bit in a WAL frame is a corrupt page of the WAL")
    func flippedBitInWAL() async throws {
        let folder = try TemporaryFolder()
        let copy = try await Self.makeWALCopy(folder)
        // Past the WAL header (32 bytes) and the first frame's header (24): inside its page.
        try Self.edit(copy + "-wal") { $0[32 + 24 + 1000] ^= 0x04 }
        let error = expectStoreError(.corruptPage) { _ = try StoreFile(path: copy).check(key: testKey) }
        #expect(error?.detail?.contains("WAL") == true, "\(String(describing: error))")
    }

    @Test("two WAL frames swapped are misplaced")
    func swappedWALFrames() async throws {
        let folder = try TemporaryFolder()
        let copy = try await Self.makeWALCopy(folder)
        let frame = 24 + 4096
        try Self.edit(copy + "-wal") { data in
            let first = data.subdata(in: 32..<32 + frame)
            let second = data.subdata(in: 32 + frame..<32 + 2 * frame)
            data.replaceSubrange(32..<32 + frame, with: second)
            data.replaceSubrange(32 + frame..<32 + 2 * frame, with: first)
        }
        let error = expectStoreError(.misplacedPage) { _ = try StoreFile(path: copy).check(key: testKey) }
        #expect(error?.detail?.contains("WAL") == true, "\(String(describing: error))")
    }

    @Test("a WAL header that claims another page size is not followed: the store opens whole, without that WAL")
    func forgedWALPageSize() async throws {
        let folder = try TemporaryFolder()
        let copy = try await Self.makeWALCopy(folder)
        // Bytes 8–11 of the WAL header: the page size. 1024 would make SQLite cut frames where no page starts. The
        // header's checksum (bytes 24–31, no secret in it) is made again, as an attacker would.
        try Self.edit(copy + "-wal") { data in
            data.replaceSubrange(8..<12, with: [0, 0, 4, 0])
            let bigEndian = data[3] & 1 == 1
            func word(_ offset: Int) -> UInt32 {
                let bytes = (0..<4).map { UInt32(data[offset + $0]) }
                return bigEndian
                    ? bytes[0] << 24 | bytes[1] << 16 | bytes[2] << 8 | bytes[3]
                    : bytes[3] << 24 | bytes[2] << 16 | bytes[1] << 8 | bytes[0]
            }
            var (first, second): (UInt32, UInt32) = (0, 0)
            for offset in stride(from: 0, to: 24, by: 8) {
                first = first &+ word(offset) &+ second
                second = second &+ word(offset + 4) &+ first
            }
            for (index, value) in [first, second].enumerated() {
                for byte in 0..<4 { data[24 + index * 4 + byte] = UInt8(truncatingIfNeeded: value >> (24 - 8 * byte)) }
            }
        }
        let store = try StoreFile(path: copy).openPool(key: testKey)
        defer { try? store.close() }
        let integrity = try await store.database.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") }
        #expect(integrity == ["ok"])
    }

    @Test("swapped pages are misplaced pages")
    func swappedPages() async throws {
        let folder = try TemporaryFolder()
        let path = try await Self.makeStore(folder)
        try Self.edit(path) { data in
            let second = data.subdata(in: 4096..<8192)
            let third = data.subdata(in: 8192..<12288)
            data.replaceSubrange(4096..<8192, with: third)
            data.replaceSubrange(8192..<12288, with: second)
        }
        let error = expectStoreError(.misplacedPage) { _ = try StoreFile(path: path).check(key: testKey) }
        #expect(error?.page == 2)
        #expect(error?.found == 3)
    }

    @Test("a truncated file is truncated, cut at a page or inside one", arguments: [4096 * 2, 4096 * 2 + 100])
    func truncated(length: Int) async throws {
        let folder = try TemporaryFolder()
        let path = try await Self.makeStore(folder)
        try Self.edit(path) { $0 = $0.prefix(length) }
        _ = expectStoreError(.truncated) { _ = try StoreFile(path: path).openQueue(key: testKey) }
    }

    @Test("a newer format version is named")
    func newerFormat() async throws {
        let folder = try TemporaryFolder()
        let path = try await Self.makeStore(folder)
        try Self.edit(path) { $0[4096 - 64 + 36] = 9 }
        let error = expectStoreError(.newerFormat) { _ = try StoreFile(path: path).openQueue(key: testKey) }
        #expect(error?.found == 9)
    }

    @Test("a file of random bytes is not a store; a wrong key is a wrong key")
    func foreignFiles() async throws {
        let folder = try TemporaryFolder()
        let random = folder.path("random.db")
        try Data((0..<8192).map { _ in UInt8.random(in: 0...255) }).write(to: URL(fileURLWithPath: random))
        _ = expectStoreError(.notAStore) { _ = try StoreFile(path: random).openQueue(key: testKey) }
        let path = try await Self.makeStore(folder)
        _ = expectStoreError(.wrongKey) { _ = try StoreFile(path: path).openQueue(key: otherKey) }
    }

    @Test("errors and descriptions never show a key or passphrase")
    func nothingSecretInErrors() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("p.db")
        let secret = "hunter2-secret-passphrase"
        let store = try StoreFile(path: path).openQueue(key: .passphrase(secret, iterations: 1000))
        try await store.database.write { try writeMarkers($0, count: 1) }
        try store.close()
        let error = expectStoreError(.wrongKey) {
            _ = try StoreFile(path: path).openQueue(key: .passphrase(secret + "x", iterations: 1000))
        }
        #expect(error.map { "\($0)".contains(secret) } == false)
        #expect(!"\(StoreKey.passphrase(secret))".contains(secret))
        #expect(!String(reflecting: StoreKey.passphrase(secret)).contains(secret))
        let raw = "\(testKey)"
        #expect(raw == "StoreKey(raw, redacted)")
    }
}

@Suite("Store maintenance")
struct MaintenanceTests {
    @Test("changing the key: the old key no longer opens it, the new one does, the data is whole")
    func changeKey() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("k.db")
        let store = try StoreFile(path: path).openPool(key: testKey)
        try await store.database.write { try writeMarkers($0, count: 300) }
        try store.close()
        try StoreFile(path: path).changeKey(from: testKey, to: .passphrase("new one", iterations: 2000))
        _ = expectStoreError(.wrongKey) { _ = try StoreFile(path: path).openQueue(key: testKey) }
        let info = try StoreFile(path: path).info()
        #expect(info.keyDerivation == .pbkdf2SHA256)
        #expect(info.iterations == 2000)
        let again = try StoreFile(path: path).openPool(key: .passphrase("new one"))
        #expect(try await again.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item") } == 300)
        try again.close()
        for (name, bytes) in try folder.files() { #expect(!containsMarker(bytes), "\(name) holds plaintext") }
        #expect(try StoreFile(path: path).check(key: .passphrase("new one")).isSound)
    }

    @Test("a store closed cleanly is re-sealed page by page: the same pages, none readable with the old key")
    func resealPages() async throws {
        let folder = try TemporaryFolder()
        let path = try await TamperingTests.makeStore(folder)
        let before = try Data(contentsOf: URL(fileURLWithPath: path))
        try StoreFile(path: path).changeKey(from: testKey, to: otherKey)
        let after = try Data(contentsOf: URL(fileURLWithPath: path))
        // Page by page: as many pages as before (a VACUUM would have rebuilt the b-trees), every one sealed anew.
        #expect(after.count == before.count)
        for page in 0..<(before.count / 4096) {
            let range = page * 4096 + 16..<(page + 1) * 4096 - 64
            #expect(before[range] != after[range], "page \(page + 1) was not sealed again")
        }
        _ = expectStoreError(.wrongKey) { _ = try StoreFile(path: path).openQueue(key: testKey) }
        let check = try StoreFile(path: path).check(key: otherKey)
        #expect(check.isSound)
        #expect(check.pages == before.count / 4096)
        let store = try StoreFile(path: path).openQueue(key: otherKey)
        #expect(try await store.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item") } == 200)
        try store.close()
    }

    @Test("a damaged page stops a re-seal and leaves the store as it was")
    func resealDamaged() async throws {
        let folder = try TemporaryFolder()
        let path = try await TamperingTests.makeStore(folder)
        try TamperingTests.edit(path) { $0[2 * 4096 + 1000] ^= 0x04 }
        let damaged = try Data(contentsOf: URL(fileURLWithPath: path))
        let error = expectStoreError(.corruptPage) { try StoreFile(path: path).changeKey(from: testKey, to: otherKey) }
        #expect(error?.page == 3)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == damaged)
        #expect(!FileManager.default.fileExists(atPath: path + ".rewrite"))
        _ = expectStoreError(.wrongKey) { try StoreFile(path: path).changeKey(from: otherKey, to: testKey) }
    }

    @Test("a plaintext database is encrypted in place; an export is plaintext again")
    func encryptAndExport() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("e.db")
        let plain = try StoreFile(path: path).openQueue(key: nil)
        try await plain.database.write { try writeMarkers($0, count: 100) }
        try plain.close()
        #expect(try StoreFile(path: path).info().isEncrypted == false)
        try StoreFile(path: path).encrypt(with: testKey)
        #expect(!containsMarker(try Data(contentsOf: URL(fileURLWithPath: path))))
        let info = try StoreFile(path: path).info()
        #expect(info.isEncrypted && info.formatVersion == 1 && info.keyDerivation == .raw)
        let check = try StoreFile(path: path).check(key: testKey)
        #expect(check.isSound && check.pages == info.pageCount)

        let exported = folder.path("export.db")
        try StoreFile(path: path).export(key: testKey, to: exported)
        #expect(containsMarker(try Data(contentsOf: URL(fileURLWithPath: exported))))
        let copy = try StoreFile(path: exported).openQueue(key: nil)
        #expect(try await copy.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item") } == 100)
        try copy.close()
    }

    @Test("destroy removes the store and its companions, and is refused while it is open")
    func destroy() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("d.db")
        let store = try StoreFile(path: path).openPool(key: testKey)
        try await store.database.write { try writeMarkers($0, count: 10) }
        _ = expectStoreError(.io) { try StoreFile(path: path).destroy() }
        _ = expectStoreError(.wrongKey) { _ = try StoreFile(path: path).openQueue(key: otherKey) }
        try store.close()
        try StoreFile(path: path).destroy()
        #expect(try folder.files().isEmpty)
    }

    @Test("a store opened twice shares its key; another key is refused while it is open")
    func openTwice() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("n.db")
        let first = try StoreFile(path: path).openQueue(key: testKey)
        let second = try StoreFile(path: path).openQueue(key: testKey)
        _ = expectStoreError(.wrongKey) { _ = try StoreFile(path: path).openQueue(key: otherKey) }
        try await first.database.write { try writeMarkers($0, count: 4) }
        #expect(try await second.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item") } == 4)
        try second.close()
        try first.close()
    }

    @Test("many readers beside one writer on a pool")
    func readersBesideAWriter() async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFile(path: folder.path("c.db")).openPool(key: testKey)
        try await store.database.write { try writeMarkers($0, count: 1) }
        let database = store.database
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for batch in 0..<50 {
                    try await database.write { try writeMarkers($0, count: 20, from: 1 + batch * 20) }
                }
            }
            for _ in 0..<6 {
                group.addTask {
                    var last = 0
                    for _ in 0..<100 {
                        let count = try await database.read {
                            try Int.fetchOne($0, sql: "SELECT count(*) FROM item") ?? 0
                        }
                        #expect(count >= last && (count - 1) % 20 == 0)
                        last = count
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item") } == 1001)
        try store.close()
        #expect(try StoreFile(path: folder.path("c.db")).check(key: testKey).isSound)
    }
}
