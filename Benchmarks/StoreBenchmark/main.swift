// The cost of encryption in SatchelStore, with plaintext GRDB measured beside it in the same run.
//
//   swift run -c release StoreBenchmark [--rows N] [--runs N] [--folders DISK,SHM]
//
// For each folder (a disk folder and /dev/shm by default) and each run, alternating plaintext and encrypted:
//   - bulk insert: N rows into a table with one index, one transaction, one prepared statement (WAL);
//   - cold read: a new connection scans the whole table (every page read from the file and, encrypted, opened);
//   - hot read: 200,000 lookups by primary key over 10,000 rows already in SQLite's page cache;
//   - open: opening the store and reading one row, with a raw key and with a passphrase (PBKDF2, 600,000).
// Prints each run, then medians and the encrypted/plaintext ratio.
import BenchmarkSupport
import Foundation
import GRDB
import SatchelStore

struct Options {
    var rows = 1_000_000
    var runs = 3
    var folders = [FileManager.default.temporaryDirectory.path, "/dev/shm"]

    init() {
        var arguments = CommandLine.arguments.dropFirst().makeIterator()
        while let argument = arguments.next() {
            switch argument {
            case "--rows": rows = Int(arguments.next() ?? "") ?? rows
            case "--runs": runs = Int(arguments.next() ?? "") ?? runs
            case "--folders": folders = (arguments.next() ?? "").split(separator: ",").map(String.init)
            default:
                FileHandle.standardError.write(
                    Data("usage: StoreBenchmark [--rows N] [--runs N] [--folders A,B]\n".utf8))
                exit(2)
            }
        }
    }
}

let options = Options()
let key = StoreKey.random()

struct Sample {
    var insertRowsPerSecond: Double
    var coldScanSeconds: Double
    var hotLookupsPerSecond: Double
    var openSeconds: Double
}

func measure(folder: String, encrypted: Bool) throws -> Sample {
    let path = folder + "/satchel-store-bench-\(UUID().uuidString).db"
    let file = StoreFile(path: path)
    defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    let storeKey = encrypted ? key : nil

    var store = try file.openPool(key: storeKey)
    try store.database.write { db in
        try db.execute(sql: "CREATE TABLE item(id INTEGER PRIMARY KEY, name TEXT NOT NULL, value REAL NOT NULL)")
        try db.execute(sql: "CREATE INDEX item_name ON item(name)")
    }
    let insert = try seconds {
        try store.database.write { db in
            let statement = try db.makeStatement(sql: "INSERT INTO item(id, name, value) VALUES (?, ?, ?)")
            for i in 0..<options.rows {
                statement.setUncheckedArguments([i, "name-\(i &* 2_654_435_761 % 1_000_003)", Double(i) * 0.5])
                try statement.execute()
            }
        }
    }
    try store.database.writeWithoutTransaction { _ = try $0.checkpoint(.truncate) }
    try store.close()

    // Cold: a new pool, an empty page cache, every page of the table read once.
    store = try file.openPool(key: storeKey)
    let cold = try seconds {
        _ = try store.database.read {
            try Double.fetchOne($0, sql: "SELECT sum(length(name) + value) FROM item NOT INDEXED")
        }
    }
    // Hot: lookups over rows whose pages are cached.
    let lookups = 200_000
    let hot = try store.database.read { db -> Double in
        let statement = try db.makeStatement(sql: "SELECT value FROM item WHERE id = ?")
        for i in 0..<10_000 { _ = try Double.fetchOne(statement, arguments: [i * 7 % options.rows]) }
        return try seconds {
            for i in 0..<lookups {
                _ = try Double.fetchOne(statement, arguments: [(i * 7) % 10_000 * 7 % options.rows])
            }
        }
    }
    try store.close()

    let open = try seconds {
        let again = try file.openPool(key: storeKey)
        _ = try again.database.read { try Double.fetchOne($0, sql: "SELECT value FROM item WHERE id = 1") }
        try again.close()
    }
    return Sample(
        insertRowsPerSecond: Double(options.rows) / insert, coldScanSeconds: cold,
        hotLookupsPerSecond: Double(lookups) / hot, openSeconds: open)
}

func passphraseOpen(folder: String) throws -> Double {
    let path = folder + "/satchel-store-bench-pass-\(UUID().uuidString).db"
    defer { for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) } }
    let passphrase = StoreKey.passphrase("correct horse battery staple")
    let store = try StoreFile(path: path).openPool(key: passphrase)
    try store.database.write { try $0.execute(sql: "CREATE TABLE t(x); INSERT INTO t VALUES (1)") }
    try store.close()
    return try seconds {
        let again = try StoreFile(path: path).openPool(key: passphrase)
        _ = try again.database.read { try Int.fetchOne($0, sql: "SELECT x FROM t") }
        try again.close()
    }
}

print("StoreBenchmark: \(options.rows) rows, \(options.runs) runs per case, plaintext and encrypted alternating")
print("| folder | store | run | insert rows/s | cold scan s | hot lookups/s | open ms |")
print("|---|---|---:|---:|---:|---:|---:|")
var samples: [String: [Sample]] = [:]
for folder in options.folders {
    for round in 1...options.runs {
        for encrypted in [false, true] {
            let sample = try measure(folder: folder, encrypted: encrypted)
            let name = encrypted ? "encrypted" : "plaintext"
            samples[folder + "|" + name, default: []].append(sample)
            print(
                "| \(folder) | \(name) | \(round) | \(Int(sample.insertRowsPerSecond)) | "
                    + String(format: "%.3f", sample.coldScanSeconds) + " | \(Int(sample.hotLookupsPerSecond)) | "
                    + String(format: "%.1f", sample.openSeconds * 1000) + " |")
        }
    }
}
print("\nMedians:")
print("| folder | store | insert rows/s | cold scan s | hot lookups/s | open ms (raw key) |")
print("|---|---|---:|---:|---:|---:|")
for folder in options.folders {
    for name in ["plaintext", "encrypted"] {
        let list = samples[folder + "|" + name] ?? []
        print(
            "| \(folder) | \(name) | \(Int(median(list.map(\.insertRowsPerSecond)))) | "
                + String(format: "%.3f", median(list.map(\.coldScanSeconds))) + " | "
                + "\(Int(median(list.map(\.hotLookupsPerSecond)))) | "
                + String(format: "%.1f", median(list.map(\.openSeconds)) * 1000) + " |")
    }
    let plain = samples[folder + "|plaintext"] ?? []
    let sealed = samples[folder + "|encrypted"] ?? []
    func ratio(_ value: (Sample) -> Double) -> String {
        String(format: "%.2f", median(sealed.map(value)) / median(plain.map(value)))
    }
    let ratios = [
        ratio(\.insertRowsPerSecond), ratio(\.coldScanSeconds), ratio(\.hotLookupsPerSecond), ratio(\.openSeconds),
    ]
    print("| \(folder) | encrypted / plaintext | " + ratios.joined(separator: " | ") + " |")
}
let passphraseTimes = try (1...options.runs).map { _ in try passphraseOpen(folder: options.folders.last ?? "/tmp") }
print(
    "\nopen with a passphrase (PBKDF2-HMAC-SHA256, \(StoreKey.defaultIterations) iterations): "
        + String(format: "%.0f ms", median(passphraseTimes) * 1000) + " (median of \(options.runs))")
