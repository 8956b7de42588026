import Foundation
import GRDB
import SatchelStore
import Testing

/// The passcode-sealed key file: keys kept across instances, a store opened with a kept key, and every way a wrong
/// passcode or a changed file is refused.
@Suite("Store keys sealed under a passcode")
struct KeyStoreTests {
    /// Few iterations: the tests open the file many times.
    static func keys(_ path: String, _ passcode: String = "1234-five") throws -> PasscodeKeyFile {
        try PasscodeKeyFile(path: path, passcode: passcode, iterations: 1_000)
    }

    @Test("a key made once is kept, opens its store again, and is readable by its owner alone")
    func keptKeyOpensTheStore() async throws {
        let folder = try TemporaryFolder()
        let file = folder.path("keys")
        let first = try await Self.keys(file).key(namedOrNew: "alice-shop")
        let store = try StoreFile(path: folder.path("shop.db")).openPool(key: first)
        try await store.database.write { try writeMarkers($0, count: 10) }
        try store.close()

        // Another instance (a restart) finds the same key, and it opens the store.
        let again = try Self.keys(file)
        let kept = try #require(try await again.key(named: "alice-shop"))
        #expect(
            try await again.key(namedOrNew: "alice-shop").withRawBytes { Array($0) } == kept.withRawBytes { Array($0) })
        let reopened = try StoreFile(path: folder.path("shop.db")).openPool(key: kept)
        #expect(try await reopened.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM item") } == 10)
        try reopened.close()

        // Several keys, by name; the file holds none of them in the clear.
        let bob = StoreKey.random()
        try await again.save(bob, named: "bob-shop")
        #expect(try await again.names() == ["alice-shop", "bob-shop"])
        let bytes = try Data(contentsOf: URL(fileURLWithPath: file))
        for key in [kept, bob] {
            let raw = try #require(key.withRawBytes { Data($0) })
            #expect(bytes.range(of: raw) == nil)
        }
        #expect(bytes.range(of: Data("alice-shop".utf8)) == nil, "names are sealed too")
        let mode = try FileManager.default.attributesOfItem(atPath: file)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let left = try FileManager.default.contentsOfDirectory(atPath: folder.url.path)
        #expect(!left.contains { $0.hasPrefix("keys.tmp") }, "no temporary file is left: \(left)")

        try await again.removeKey(named: "alice-shop")
        #expect(try await Self.keys(file).key(named: "alice-shop") == nil)
        #expect(try await Self.keys(file).names() == ["bob-shop"])
    }

    @Test("a wrong passcode, a changed byte, a cut file and another file are refused, each with its cause")
    func refusals() async throws {
        let folder = try TemporaryFolder()
        let file = folder.path("keys")
        _ = try await Self.keys(file).key(namedOrNew: "alice-shop")
        let original = try Data(contentsOf: URL(fileURLWithPath: file))

        func code(_ body: () async throws -> Void) async -> StoreError.Code? {
            do {
                try await body()
                return nil
            } catch let error as StoreError {
                return error.code
            } catch {
                return nil
            }
        }
        #expect(await code { _ = try await Self.keys(file, "0000").key(named: "alice-shop") } == .wrongKey)
        // A wrong passcode changes nothing: the right one still opens the file.
        await #expect(throws: StoreError.self) { try await Self.keys(file, "0000").save(.random(), named: "x") }
        #expect(try Data(contentsOf: URL(fileURLWithPath: file)) == original)

        for index in [3, 10, 20, original.count / 2, original.count - 1] {
            var changed = original
            changed[index] ^= 0x01
            try changed.write(to: URL(fileURLWithPath: file))
            let found = await code { _ = try await Self.keys(file).key(named: "alice-shop") }
            #expect(found == (index < 8 ? .notAStore : .wrongKey), "byte \(index): \(String(describing: found))")
        }
        try original.prefix(30).write(to: URL(fileURLWithPath: file))
        #expect(await code { _ = try await Self.keys(file).key(named: "alice-shop") } == .truncated)
        try Data("[endpoint]\nurl = https://h/\n".utf8).write(to: URL(fileURLWithPath: file))
        #expect(await code { _ = try await Self.keys(file).key(named: "alice-shop") } == .notAStore)

        // Passphrases are typed, not kept; an empty passcode opens nothing.
        try original.write(to: URL(fileURLWithPath: file))
        #expect(await code { try await Self.keys(file).save(.passphrase("typed"), named: "p") } == .invalidKey)
        #expect(throws: StoreError.self) { _ = try PasscodeKeyFile(path: file, passcode: "") }
    }

    @Test("a file made with one iteration count stays readable when an instance with another count writes it")
    func iterationCountKept() async throws {
        let folder = try TemporaryFolder()
        let file = folder.path("keys")
        let first = try await PasscodeKeyFile(path: file, passcode: "p", iterations: 1_000).key(namedOrNew: "a")
        // Another instance (another default) adds a key: the file keeps the count its key was derived with.
        _ = try await PasscodeKeyFile(path: file, passcode: "p", iterations: 2_000).key(namedOrNew: "b")
        let again = try PasscodeKeyFile(path: file, passcode: "p", iterations: 3_000)
        #expect(try await again.names() == ["a", "b"])
        #expect(try await again.key(named: "a")?.withRawBytes { Array($0) } == first.withRawBytes { Array($0) })
        let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: file)))
        #expect(bytes[8..<12].reduce(0) { $0 << 8 | Int($1) } == 1_000)
    }

    @Test("two processes' worth of writers on one file lose no key")
    func concurrentWriters() async throws {
        let folder = try TemporaryFolder()
        let file = folder.path("keys")
        // Separate instances, as two processes would have: only the file lock keeps them apart.
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<8 {
                group.addTask {
                    _ = try await PasscodeKeyFile(path: file, passcode: "p", iterations: 1_000)
                        .key(namedOrNew: "store-\(index)")
                }
            }
            try await group.waitForAll()
        }
        #expect(try await Self.keys(file, "p").names().count == 8)
    }

    @Test("a new passcode seals the keys again: the old one opens nothing")
    func changePasscode() async throws {
        let folder = try TemporaryFolder()
        let file = folder.path("keys")
        let keys = try Self.keys(file)
        let key = try await keys.key(namedOrNew: "alice-shop")
        try await keys.changePasscode(to: "new passcode")
        await #expect(throws: StoreError.self) { _ = try await Self.keys(file).key(named: "alice-shop") }
        let kept = try await Self.keys(file, "new passcode").key(named: "alice-shop")
        #expect(kept?.withRawBytes { Array($0) } == key.withRawBytes { Array($0) })
    }
}
