import Foundation
import GRDB
import SatchelStore
import Testing

/// Cases an adversarial review of the store found: each fails on the first version of SatchelStore.
@Suite("Store edge cases")
struct StoreEdgeCaseTests {
    @Test("an app that keeps only the GRDB database still writes encrypted journals")
    func databaseOutlivesItsStore() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("kept.db")
        var configuration = Configuration()
        configuration.prepareDatabase { try $0.execute(sql: "PRAGMA journal_mode = PERSIST") }
        let database = try StoreFile(path: path).openQueue(key: testKey, configuration: configuration).database
        // The LocalStore is gone; the database is not.
        try await database.write { try writeMarkers($0, count: 100) }
        try await database.write { try $0.execute(sql: "UPDATE item SET text = text || '+'") }
        let journal = try Data(contentsOf: URL(fileURLWithPath: path + "-journal"))
        #expect(journal.count > 4096)
        #expect(!containsMarker(journal))
        try database.close()
    }

    @Test("a backup from a plaintext database into a store is refused, and the store stays whole")
    func backupFromPlaintext() async throws {
        let folder = try TemporaryFolder()
        let plain = try DatabaseQueue(path: folder.path("plain.db"))
        try await plain.write { try writeMarkers($0, count: 50) }
        let store = try StoreFile(path: folder.path("s.db")).openPool(key: testKey)
        try await store.database.write { db in
            try db.execute(sql: "CREATE TABLE keep(x)")
            try db.execute(sql: "INSERT INTO keep VALUES (42)")
        }
        let refused = #expect(throws: DatabaseError.self) { try plain.backup(to: store.database) }
        // The VFS refuses to write a page without the store's reserve: a write error, not some other failure.
        #expect(refused?.extendedResultCode == .SQLITE_IOERR_WRITE)
        #expect(try await store.database.read { try Int.fetchOne($0, sql: "SELECT x FROM keep") } == 42)
        for (name, bytes) in try folder.files() where name.hasPrefix("s.db") {
            #expect(!containsMarker(bytes), "\(name) holds plaintext")
        }
        try store.close()
        try plain.close()
        #expect(try StoreFile(path: folder.path("s.db")).check(key: testKey).isSound)
    }

    @Test("a page 1 damaged during a commit is restored from the hot journal")
    func firstPageRestoredFromJournal() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("hot.db")
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA journal_mode = DELETE")
            try db.execute(sql: "PRAGMA cache_size = 10")  // spill to the file before commit
        }
        let store = try StoreFile(path: path).openQueue(key: testKey, configuration: configuration)
        try await store.database.write { try writeMarkers($0, count: 200) }
        let copy = folder.path("copy.db")
        try await store.database.write { db in
            try writeMarkers(db, count: 400, from: 1000)
            // Mid-transaction: the journal is hot and pages have reached the file. Copy both, as a crash would leave them.
            try FileManager.default.copyItem(atPath: path, toPath: copy)
            try FileManager.default.copyItem(atPath: path + "-journal", toPath: copy + "-journal")
        }
        try store.close()
        var data = try Data(contentsOf: URL(fileURLWithPath: copy))
        data[2000] ^= 0xFF  // page 1 torn
        try data.write(to: URL(fileURLWithPath: copy))
        let recovered = try StoreFile(path: copy).openQueue(key: testKey)
        let count = try await recovered.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item") }
        #expect(count == 200)
        #expect(try await recovered.database.read { try String.fetchAll($0, sql: "PRAGMA integrity_check") } == ["ok"])
        try recovered.close()
    }

    @Test("re-keying is refused while the store is open here; a PERSIST store re-keys; links and other page sizes work")
    func rewriteCases() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("r.db")
        var configuration = Configuration()
        configuration.prepareDatabase { try $0.execute(sql: "PRAGMA journal_mode = PERSIST") }
        let store = try StoreFile(path: path).openQueue(key: testKey, configuration: configuration)
        try await store.database.write { try writeMarkers($0, count: 20) }
        _ = expectStoreError(.io) { try StoreFile(path: path).changeKey(from: testKey, to: otherKey) }
        try store.close()
        // The persisted journal (header zeroed after the commit) does not block a re-key.
        try StoreFile(path: path).changeKey(from: testKey, to: otherKey)

        // Through a symbolic link: the store itself is re-keyed, the link stays a link.
        let link = folder.path("link.db")
        try FileManager.default.createSymbolicLink(atPath: link, withDestinationPath: path)
        try StoreFile(path: link).changeKey(from: otherKey, to: testKey)
        #expect((try? FileManager.default.destinationOfSymbolicLink(atPath: link)) == path)
        let reopened = try StoreFile(path: path).openQueue(key: testKey)
        #expect(try await reopened.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item") } == 20)
        try reopened.close()

        // A plaintext database with 8 KiB pages is converted while it is encrypted.
        let big = folder.path("big.db")
        var bigConfiguration = Configuration()
        bigConfiguration.prepareDatabase { try $0.execute(sql: "PRAGMA page_size = 8192") }
        let plain = try DatabaseQueue(path: big, configuration: bigConfiguration)
        try await plain.write { try writeMarkers($0, count: 30) }
        try plain.close()
        try StoreFile(path: big).encrypt(with: testKey)
        #expect(try StoreFile(path: big).check(key: testKey).isSound)
        _ = expectStoreError(.alreadyEncrypted) { try StoreFile(path: big).encrypt(with: testKey) }
        _ = expectStoreError(.io) {
            try StoreFile(path: folder.path("missing.db")).changeKey(from: testKey, to: otherKey)
        }
        #expect(!FileManager.default.fileExists(atPath: folder.path("missing.db")))
    }

    @Test("a new store, its WAL and its -shm are the owner's alone")
    func storePermissions() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("p.db")
        let store = try StoreFile(path: path).openPool(key: testKey)
        try await store.database.write { try writeMarkers($0, count: 5) }
        for file in [path, path + "-wal", path + "-shm"] {
            let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? NSNumber
            #expect(mode?.intValue == 0o600, "\(file)")
        }
        try store.close()
    }

    @Test("an export is the owner's from the start")
    func exportPermissions() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("x.db")
        let store = try StoreFile(path: path).openQueue(key: testKey)
        try await store.database.write { try writeMarkers($0, count: 5) }
        try store.close()
        let copy = folder.path("copy.sqlite")
        try StoreFile(path: path).export(key: testKey, to: copy)
        let mode = try FileManager.default.attributesOfItem(atPath: copy)[.posixPermissions] as? NSNumber
        #expect(mode?.intValue == 0o600)
        _ = expectStoreError(.io) { try StoreFile(path: path).export(key: testKey, to: copy) }
    }

    @Test("an implausible iteration count is a damaged page 1, not minutes of key derivation")
    func implausibleIterations() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("i.db")
        let store = try StoreFile(path: path).openQueue(key: .passphrase("pw", iterations: 1000))
        try await store.database.write { try writeMarkers($0, count: 5) }
        try store.close()
        var data = try Data(contentsOf: URL(fileURLWithPath: path))
        for offset in 0..<4 { data[4096 - 64 + 38 + offset] = 0xFF }
        try data.write(to: URL(fileURLWithPath: path))
        let started = ContinuousClock.now
        let error = expectStoreError(.corruptPage) { _ = try StoreFile(path: path).openQueue(key: .passphrase("pw")) }
        #expect(error?.page == 1)
        #expect(ContinuousClock.now - started < .seconds(5))
    }
}
