// A writer for the store's crash tests: commits numbered transactions into an encrypted store until it is killed,
// printing each number once its transaction is committed.
//
//   satchel-store-crash-writer PATH wal|delete
import Foundation
import GRDB
import SatchelStore

let arguments = CommandLine.arguments
guard arguments.count == 3 else {
    FileHandle.standardError.write(Data("usage: satchel-store-crash-writer PATH wal|delete\n".utf8))
    exit(2)
}
let key = try StoreKey.raw(Data((0..<32).map { UInt8($0) }))
let file = StoreFile(path: arguments[1])
let write: (Int) throws -> Void
let checkpoint: () throws -> Void
if arguments[2] == "wal" {
    let store = try file.openPool(key: key)
    write = { n in try store.database.write { try transaction($0, n) } }
    checkpoint = { try store.database.writeWithoutTransaction { _ = try $0.checkpoint(.restart) } }
} else {
    var configuration = Configuration()
    configuration.prepareDatabase { try $0.execute(sql: "PRAGMA journal_mode = DELETE") }
    let store = try file.openQueue(key: key, configuration: configuration)
    write = { n in try store.database.write { try transaction($0, n) } }
    checkpoint = {}
}

/// Transaction n: one counter row, and rows of several pages that are replaced each time (so page images go
/// to the journal or WAL).
func transaction(_ db: Database, _ n: Int) throws {
    try db.execute(sql: "CREATE TABLE IF NOT EXISTS counter(n INTEGER NOT NULL)")
    try db.execute(sql: "CREATE TABLE IF NOT EXISTS log(n INTEGER PRIMARY KEY, text TEXT NOT NULL)")
    try db.execute(sql: "CREATE TABLE IF NOT EXISTS churn(slot INTEGER PRIMARY KEY, n INTEGER, text TEXT)")
    try db.execute(sql: "DELETE FROM counter")
    try db.execute(sql: "INSERT INTO counter(n) VALUES (?)", arguments: [n])
    try db.execute(sql: "INSERT INTO log(n, text) VALUES (?, ?)", arguments: [n, String(repeating: "L", count: 300)])
    for slot in 0..<8 {
        try db.execute(
            sql: "INSERT OR REPLACE INTO churn(slot, n, text) VALUES (?, ?, ?)",
            arguments: [(n * 8 + slot) % 64, n, String(repeating: "c", count: 1500)])
    }
}

var n =
    (try? file.openQueue(key: key)).flatMap { store -> Int? in
        defer { try? store.close() }
        return try? store.database.read { try Int.fetchOne($0, sql: "SELECT n FROM counter") }
    } ?? 0
while true {
    n += 1
    try write(n)
    FileHandle.standardOutput.write(Data("\(n)\n".utf8))
    if n % 25 == 0 { try checkpoint() }
}
