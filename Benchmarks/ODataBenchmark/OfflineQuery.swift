import Foundation
import GRDB
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelText

/// `ODataBenchmark --offline-query --entities 1000000`: local queries on an encrypted offline store filled from the
/// loopback server: lookups by key and by an indexed property (p50 and p99 of 1,000 each, each a full read through
/// `OfflineStore.entities`), an unindexed filter over every row (rows/s), and the same key lookup as one prepared
/// SQL statement through GRDB on the same file (the floor).
enum OfflineQueryBenchmark {
    static func run(baseURL: String, pages: Int, pageSize: Int) async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-query-bench-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let url = URL(string: baseURL + "/p\(pages)")!
        let key = StoreKey.random()
        let path = folder.appendingPathComponent("q.store").path
        let store = OfflineStore(
            configuration: .init(
                service: Worker.makeService(url), path: path,
                definingQueries: [.init(name: "all", query: "Products")], key: key,
                indexes: ["Products": ["Name"]]))
        let start = ContinuousClock.now
        try await store.open()
        let count = try await store.count("Products")
        print("filled \(count) entities in \(start.duration(to: .now))")

        func percentiles(_ samples: [Duration]) -> String {
            let sorted = samples.sorted()
            func ms(_ d: Duration) -> String {
                String(format: "%.3f ms", d.timeInterval * 1000)
            }
            return "p50 \(ms(sorted[sorted.count / 2])), p99 \(ms(sorted[sorted.count * 99 / 100]))"
        }
        var byKey: [Duration] = []
        var byName: [Duration] = []
        for _ in 0..<1000 {
            let id = Int.random(in: 0..<count)
            let clock = ContinuousClock.now
            let found = try await store.entities(
                "Products", query: ODataQuery().filter(.property("ID") == .literal(.int(id))))
            byKey.append(clock.duration(to: .now))
            precondition(found.count == 1)
            let name = found[0]["Name"]?.stringValue ?? ""
            let named = ContinuousClock.now
            let again = try await store.entities(
                "Products", query: ODataQuery().filter(.property("Name") == .literal(.string(name))))
            byName.append(named.duration(to: .now))
            precondition(again.count == 1)
        }
        print("| query | result |")
        print("|---|---|")
        print("| `ID eq k` (key index), 1,000 random | \(percentiles(byKey)) |")
        print("| `Name eq 'Product k …'` (secondary index), 1,000 | \(percentiles(byName)) |")
        for _ in 0..<2 {
            let scan = ContinuousClock.now
            let matched = try await store.count(
                "Products", query: ODataQuery().filter(.property("Quantity") > .literal(.int64(1 << 39))))
            let seconds = scan.duration(to: .now).timeInterval
            print(
                "| `Quantity gt 2^39` (no index), count over \(count) rows | "
                    + String(format: "%.0f rows/s (%d match, %.3f s)", Double(count) / seconds, matched, seconds) + " |"
            )
        }
        try await store.close()

        // The floor: the same key lookup as one prepared SQL statement on the same encrypted file.
        let raw = try StoreFile(path: path).openQueue(key: key)
        let rawSamples = try await raw.database.read { db -> [Duration] in
            let statement = try db.makeStatement(sql: #"SELECT * FROM "e_Products" WHERE "ID" = ?"#)
            var samples: [Duration] = []
            for _ in 0..<1000 {
                let clock = ContinuousClock.now
                _ = try GRDB.Row.fetchOne(statement, arguments: [Int.random(in: 0..<count)])
                samples.append(clock.duration(to: .now))
            }
            return samples
        }
        print("| raw SQL by key through GRDB, same file (the floor), 1,000 | \(percentiles(rawSamples)) |")
        try raw.close()
    }
}
