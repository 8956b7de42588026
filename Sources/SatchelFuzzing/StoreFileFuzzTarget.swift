import Foundation
import GRDB
import SatchelStore

/// The encrypted store's file (`StoreFile.openQueue(key:)`), damaged or forged by whoever can write to it.
///
/// A template store of a few pages is made once per process with a known key. The input edits a copy of it: every
/// three bytes are an offset (two bytes, within the file) and a value XORed into the byte there; one byte left over
/// (a length of 3n + 1) truncates the file to that many 256ths of its size. The copy is then opened with the key
/// and its rows read.
///
/// - Either the rows read are exactly the rows written, or the store refuses with a ``StoreError`` (directly, or
///   through `LocalStore.storeError(for:)` for a page SQLite failed to read). Damage SQLite notices on its own (a
///   database error no page check explains) means a page was accepted that was not the one written: a violation.
enum StoreFileFuzzTarget {
    static let target = FuzzTarget(
        name: "store", summary: "the encrypted store's file: StoreFile.openQueue(key:) on an edited store",
        maximumLength: 3 * 64 + 1, check: check)

    struct Template: Sendable {
        let bytes: [UInt8]
        let rows: [String]
        let key: StoreKey
    }

    /// Where this process keeps the template and its edited copy.
    static let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
        "satchel-fuzz-store-\(getpid())"
    ).path

    static let template: Template = {
        do {
            try? FileManager.default.removeItem(atPath: folder)
            try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
            let key = try StoreKey.raw([UInt8](repeating: 0x5A, count: 32))
            let path = folder + "/template.db"
            let store = try StoreFile(path: path).openQueue(key: key)
            let rows = (0..<24).map { "row \($0) " + String(repeating: "abcdefgh", count: 8 + $0 % 5) }
            try store.database.write { db in
                try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, text TEXT NOT NULL)")
                try db.execute(sql: "CREATE INDEX item_text ON item(text)")
                for (id, text) in rows.enumerated() {
                    try db.execute(sql: "INSERT INTO item(id, text) VALUES (?, ?)", arguments: [id, text])
                }
            }
            try store.close()
            let bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
            // The folder goes when the process ends normally (a crash leaves it, with the input that caused it).
            atexit { try? FileManager.default.removeItem(atPath: StoreFileFuzzTarget.folder) }
            return Template(bytes: bytes, rows: rows, key: key)
        } catch {
            fatalError("satchel-fuzz: cannot make the template store in \(folder): \(error)")
        }
    }()

    /// The template with the input's edits.
    static func edited(_ input: [UInt8], template: [UInt8]) -> [UInt8] {
        var bytes = template
        var index = 0
        while index + 3 <= input.count {
            let offset = (Int(input[index]) << 8 | Int(input[index + 1])) % bytes.count
            bytes[offset] ^= input[index + 2]
            index += 3
        }
        if index < input.count, input[index] != 0 {
            bytes.removeLast(bytes.count - bytes.count * Int(input[index]) / 256)
        }
        return bytes
    }

    static func check(_ input: [UInt8]) throws(FuzzViolation) {
        func violation(_ message: String) -> FuzzViolation {
            FuzzViolation("store", "\(message): edits \(input.map { String($0) }.joined(separator: ","))")
        }
        let template = template
        let path = folder + "/edited.db"
        for suffix in ["", "-journal", "-wal", "-shm"] { unlink(path + suffix) }
        let bytes = edited(input, template: template.bytes)
        guard FileManager.default.createFile(atPath: path, contents: Data(bytes)) else {
            throw violation("cannot write \(path)")
        }
        let rows: [String]
        do {
            let store = try StoreFile(path: path).openQueue(key: template.key)
            defer { try? store.close() }
            do {
                rows = try store.database.read { db in
                    try String.fetchAll(db, sql: "SELECT text FROM item ORDER BY id")
                }
            } catch {
                guard store.storeError(for: error) != nil else {
                    throw violation("SQLite failed on pages the store accepted: \(error)")
                }
                return
            }
        } catch is StoreError {
            return
        } catch let error as FuzzViolation {
            throw error
        } catch {
            throw violation("opening threw something other than a StoreError: \(error)")
        }
        guard rows == template.rows else {
            throw violation("the store opened and read other rows than were written: \(rows.prefix(3))…")
        }
    }
}
