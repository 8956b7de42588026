import Foundation
import SatchelStore
import Testing
import GRDB

extension SatchelCLITests {
    /// `satchel store` on real stores: keys from the environment and standard input, never from arguments.
    @Suite struct StoreCommandTests {
        static func makeStore(passphrase: String) async throws -> (folder: URL, path: String) {
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-cli-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let path = folder.appendingPathComponent("app.store").path
            let store = try StoreFile(path: path).openQueue(key: .passphrase(passphrase, iterations: 1000))
            try await store.database.write { db in
                try db.execute(sql: "CREATE TABLE note(text TEXT)")
                for i in 0..<100 { try db.execute(sql: "INSERT INTO note VALUES (?)", arguments: ["note \(i)"]) }
            }
            try store.close()
            return (folder, path)
        }

        @Test func infoCheckRekeyExport() async throws {
            let (folder, path) = try await Self.makeStore(passphrase: "first")
            defer { try? FileManager.default.removeItem(at: folder) }

            let info = try await SatchelProcess.run(["store", "info", "--json", path])
            #expect(info.status == 0, "\(info.stderr)")
            let fields = try JSONSerialization.jsonObject(with: info.stdout) as? [String: Any]
            #expect(fields?["encrypted"] as? Bool == true)
            #expect(fields?["format_version"] as? Int == 1)
            #expect(fields?["iterations"] as? Int == 1000)

            let check = try await SatchelProcess.run(
                ["store", "check", path], environment: ["SATCHEL_STORE_PASSPHRASE": "first"])
            #expect(check.status == 0, "\(check.stderr)")
            #expect(check.stdoutText.contains("integrity: ok"))

            let wrong = try await SatchelProcess.run(["store", "check", "--passphrase-stdin", path], input: "nope\n")
            #expect(wrong.status == 4)
            #expect(wrong.stderr.contains("the key does not open the store"))
            #expect(!wrong.stderr.contains("nope"))

            let rekey = try await SatchelProcess.run(
                ["store", "rekey", "--passphrase-stdin", path], input: "first\nsecond\n")
            #expect(rekey.status == 0, "\(rekey.stderr)")
            let old = try await SatchelProcess.run(
                ["store", "check", path], environment: ["SATCHEL_STORE_PASSPHRASE": "first"])
            #expect(old.status == 4)

            let copy = folder.appendingPathComponent("copy.sqlite").path
            let export = try await SatchelProcess.run(
                ["store", "export", "--passphrase-stdin", path, copy], input: "second\n")
            #expect(export.status == 0, "\(export.stderr)")
            let plain = try StoreFile(path: copy).openQueue(key: nil)
            #expect(try await plain.database.read { try Int.fetchOne($0, sql: "SELECT count(*) FROM note") } == 100)
            try plain.close()
        }

        @Test func damagedStoreAndMissingKey() async throws {
            let (folder, path) = try await Self.makeStore(passphrase: "pw")
            defer { try? FileManager.default.removeItem(at: folder) }
            let noKey = try await SatchelProcess.run(["store", "check", path])
            #expect(noKey.status == 4, "\(noKey.stderr)")
            var data = try Data(contentsOf: URL(fileURLWithPath: path))
            data[4096 + 500] ^= 1
            try data.write(to: URL(fileURLWithPath: path))
            let damaged = try await SatchelProcess.run(
                ["store", "check", path], environment: ["SATCHEL_STORE_PASSPHRASE": "pw"])
            #expect(damaged.status == 7)
            #expect(damaged.stderr.contains("page 2 is corrupt"), "\(damaged.stderr)")
            let argument = try await SatchelProcess.run(["store", "check", "--passphrase", "pw", path])
            #expect(argument.status == 2)
        }
    }
}
