import Foundation
import GRDB
import SatchelStore

enum SatchelStoreExamples {
    /// GettingStarted.md: a GRDB record kept in the store.
    struct Note: Codable, FetchableRecord, PersistableRecord, Sendable {
        var id: Int64
        var text: String
    }

    /// GettingStarted.md: a new raw key for the keychain.
    static func newKey() -> Data? {
        let key = StoreKey.random()
        return key.withRawBytes { Data($0) }  // 32 bytes to keep in the platform keychain
    }

    /// GettingStarted.md: open an encrypted store and use GRDB through it.
    static func open(folder: URL, keychainKey: Data) async throws -> [Note] {
        let file = StoreFile(path: folder.appendingPathComponent("alice.store").path)
        let key = try StoreKey.raw(keychainKey)  // or StoreKey.passphrase(passphrase)
        let store = try await file.openPoolDetached(key: key)
        try await store.database.write { db in
            try db.execute(sql: "CREATE TABLE IF NOT EXISTS note(id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
            try Note(id: 1, text: "Buy milk").insert(db)
        }
        let notes = try await store.database.read { db in try Note.fetchAll(db) }
        try store.close()
        return notes
    }

    /// GettingStarted.md: handle a store that does not open.
    static func openWithPassphrase(path: String, passphrase: String) async throws -> Int? {
        do {
            let store = try await StoreFile(path: path).openPoolDetached(key: .passphrase(passphrase))
            defer { try? store.close() }
            do {
                return try await store.database.read { db in try Int.fetchOne(db, sql: "SELECT count(*) FROM note") }
            } catch {
                if let damage = store.storeError(for: error) { print(damage) }  // the page that failed, if any
                throw error
            }
        } catch let error as StoreError where error.code == .wrongKey {
            return nil  // ask for the passphrase again
        }
    }

    /// GettingStarted.md: inspect, check and re-key a store.
    static func maintain(path: String, oldPassphrase: String, newKey: Data) throws -> Bool {
        let file = StoreFile(path: path)
        let info = try file.info()  // no key needed
        print(info.isEncrypted, info.keyDerivation == .pbkdf2SHA256, info.pageCount)
        try file.changeKey(from: .passphrase(oldPassphrase), to: try StoreKey.raw(newKey))
        let check = try file.check(key: try StoreKey.raw(newKey))  // every page authenticated, then integrity_check
        return check.isSound
    }
}
