import Foundation
import GRDB
import SatchelStore
import SatchelTestSupport
import Testing

@Suite("Encrypted stores")
struct EncryptionTests {
    @Test("no plaintext on disk in WAL mode, and what was written reads back", arguments: [false, true])
    func walRoundTrip(checkpoint: Bool) async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFile(path: folder.path("s.db")).openPool(key: testKey)
        try await store.database.write { try writeMarkers($0, count: 500) }
        if checkpoint {
            try await store.database.writeWithoutTransaction { _ = try $0.checkpoint(.truncate) }
        }
        // While open: the database, -wal and -shm files hold no plaintext.
        for (name, bytes) in try folder.files() {
            #expect(!containsMarker(bytes), "\(name) holds plaintext")
        }
        try store.close()
        let again = try StoreFile(path: folder.path("s.db")).openPool(key: testKey)
        let count = try await again.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item") }
        #expect(count == 500)
        let text = try await again.database.read { try String.fetchOne($0, sql: "SELECT text FROM item WHERE id = 7") }
        #expect(text?.hasPrefix("\(marker) 7 ") == true)
        try again.close()
        for (name, bytes) in try folder.files() {
            #expect(!containsMarker(bytes), "\(name) holds plaintext")
        }
    }

    @Test("no plaintext in a rollback journal; a queue round-trips")
    func journalRoundTrip() async throws {
        let folder = try TemporaryFolder()
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = DELETE") }
        let store = try StoreFile(path: folder.path("q.db")).openQueue(key: testKey, configuration: configuration)
        try await store.database.write { try writeMarkers($0, count: 300) }
        // Keep the journal: PERSIST leaves the page images of the last transaction in it.
        try await store.database.writeWithoutTransaction { try $0.execute(sql: "PRAGMA journal_mode = PERSIST") }
        try await store.database.write { db in
            try db.execute(sql: "UPDATE item SET text = text || ' changed'")
        }
        let files = try folder.files()
        #expect(files.contains { $0.name == "q.db-journal" && $0.bytes.count > 4096 })
        for (name, bytes) in files { #expect(!containsMarker(bytes), "\(name) holds plaintext") }
        try store.close()
        let again = try StoreFile(path: folder.path("q.db")).openQueue(key: testKey)
        let changed = try await again.database.read {
            try Int.fetchOne($0, sql: "SELECT count(*) FROM item WHERE text LIKE '% changed'")
        }
        #expect(changed == 300)
        try again.close()
    }

    @Test("VACUUM, temp tables and big sorts leave nothing in the clear")
    func vacuumAndTemp() async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFile(path: folder.path("v.db")).openPool(key: testKey)
        try await store.database.write { try writeMarkers($0, count: 2000) }
        try await store.database.writeWithoutTransaction { db in
            try db.execute(sql: "DELETE FROM item WHERE id % 2 = 0")
            try db.execute(sql: "VACUUM")
            try db.execute(sql: "CREATE TEMP TABLE scratch AS SELECT text FROM item")
            _ = try String.fetchAll(db, sql: "SELECT text FROM item ORDER BY text DESC, id")
        }
        for (name, bytes) in try folder.files() { #expect(!containsMarker(bytes), "\(name) holds plaintext") }
        let count = try await store.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item") }
        #expect(count == 1000)
        try store.close()
    }

    @Test(
        "every journal mode round-trips",
        arguments: ["DELETE", "TRUNCATE", "PERSIST", "WAL"])
    func journalModes(mode: String) async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("m.db")
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA journal_mode = \(mode)") }
        let store = try StoreFile(path: path).openQueue(key: testKey, configuration: configuration)
        try await store.database.write { try writeMarkers($0, count: 400) }
        try await store.database.write { try $0.execute(sql: "DELETE FROM item WHERE id % 3 = 0") }
        for (name, bytes) in try folder.files() { #expect(!containsMarker(bytes), "\(name) holds plaintext") }
        try store.close()
        let again = try StoreFile(path: path).openQueue(key: testKey)
        #expect(try await again.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item") } == 266)
        try again.close()
        #expect(try StoreFile(path: path).check(key: testKey).isSound)
    }

    @Test(
        "every checkpoint mode round-trips",
        arguments: [
            Database.CheckpointMode.passive, .full, .restart, .truncate,
        ])
    func checkpointModes(mode: Database.CheckpointMode) async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("c.db")
        let store = try StoreFile(path: path).openPool(key: testKey)
        for round in 0..<3 {
            try await store.database.write { try writeMarkers($0, count: 150, from: round * 150) }
            try await store.database.writeWithoutTransaction { _ = try $0.checkpoint(mode) }
        }
        for (name, bytes) in try folder.files() { #expect(!containsMarker(bytes), "\(name) holds plaintext") }
        #expect(try await store.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item") } == 450)
        try store.close()
        let check = try StoreFile(path: path).check(key: testKey)
        #expect(check.isSound && check.pages > 10)
    }

    @Test("asking SQLite to memory-map a store reads it through the cipher all the same")
    func memoryMapping() async throws {
        let folder = try TemporaryFolder()
        var configuration = Configuration()
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA mmap_size = 268435456") }
        let path = folder.path("mm.db")
        let store = try StoreFile(path: path).openPool(key: testKey, configuration: configuration)
        try await store.database.write { try writeMarkers($0, count: 300) }
        try await store.database.writeWithoutTransaction { _ = try $0.checkpoint(.truncate) }
        try store.close()
        let again = try StoreFile(path: path).openPool(key: testKey, configuration: configuration)
        let mapped = try await again.database.read { try Int.fetchOne($0, sql: "PRAGMA mmap_size") }
        let texts = try await again.database.read { try String.fetchAll($0, sql: "SELECT text FROM item ORDER BY id") }
        #expect(mapped == 0)
        #expect(texts.count == 300 && texts.allSatisfy { $0.hasPrefix(marker) })
        try again.close()
    }

    @Test("every page carries its own nonce, and rewriting a page changes it")
    func noncesNeverRepeat() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("n.db")
        func nonces() throws -> [Data] {
            let data = try Data(contentsOf: URL(fileURLWithPath: path))
            return stride(from: 0, to: data.count, by: 4096).map { data.subdata(in: $0 + 4032..<$0 + 4044) }
        }
        let store = try StoreFile(path: path).openQueue(key: testKey)
        try await store.database.write { try writeMarkers($0, count: 200) }
        let first = try nonces()
        try await store.database.write { try $0.execute(sql: "UPDATE item SET text = text || '!'") }
        try store.close()
        let again = try StoreFile(path: path).openQueue(key: testKey)
        try await again.database.write { try $0.execute(sql: "UPDATE item SET text = text || '?'") }
        try again.close()
        let second = try nonces()
        #expect(first.count > 10)
        #expect(Set(first + second).count == first.count + second.count)
    }

    @Test("the stock sqlite3 shell cannot read a store")
    func sqliteShellCannotRead() async throws {
        let folder = try TemporaryFolder()
        let store = try StoreFile(path: folder.path("s.db")).openPool(key: testKey)
        try await store.database.write { try writeMarkers($0, count: 10) }
        try store.close()
        let shell = try #require(
            ["/usr/bin/sqlite3", "/usr/local/bin/sqlite3", "/opt/homebrew/bin/sqlite3"].first {
                FileManager.default.isExecutableFile(atPath: $0)
            }, "the sqlite3 shell is needed (apt-get install sqlite3)")
        let run = try await ChildProcess.run(
            URL(fileURLWithPath: shell), [folder.path("s.db"), "SELECT count(*) FROM item;"], mergingErrors: true)
        #expect(run.status != 0)
        #expect(run.output.contains("not a database"), "\(run.output)")
    }

    @Test("a wrong key, a raw key for a passphrase store, and no key are each refused")
    func wrongKeys() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("s.db")
        let store = try StoreFile(path: path).openPool(key: .passphrase("right", iterations: 1000))
        try await store.database.write { try writeMarkers($0, count: 3) }
        try store.close()
        _ = expectStoreError(.wrongKey) {
            _ = try StoreFile(path: path).openPool(key: .passphrase("wrong", iterations: 1000))
        }
        _ = expectStoreError(.wrongKey) { _ = try StoreFile(path: path).openPool(key: testKey) }
        _ = expectStoreError(.keyRequired) { _ = try StoreFile(path: path).openPool(key: nil) }
        let reopened = try StoreFile(path: path).openQueue(key: .passphrase("right"))
        #expect(try await reopened.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item") } == 3)
        try reopened.close()
    }

    @Test("a plaintext database opened with a key is refused; opened without, it is ordinary SQLite")
    func plaintextStores() async throws {
        let folder = try TemporaryFolder()
        let path = folder.path("plain.db")
        let plain = try StoreFile(path: path).openQueue(key: nil)
        #expect(!plain.isEncrypted)
        try await plain.database.write { try writeMarkers($0, count: 5) }
        try plain.close()
        #expect(containsMarker(try Data(contentsOf: URL(fileURLWithPath: path))))
        _ = expectStoreError(.notEncrypted) { _ = try StoreFile(path: path).openQueue(key: testKey) }
    }
}
