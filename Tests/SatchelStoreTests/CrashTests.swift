import Foundation
import GRDB
import SatchelStore
import SatchelTestSupport
import Testing

/// A real process writes transactions into an encrypted store and is killed with SIGKILL at random moments; after
/// each kill the store opens, passes `PRAGMA integrity_check`, holds exactly the committed transactions, and shows
/// nothing in the clear.
@Suite("Killed while writing")
struct CrashTests {
    static let writer = BuiltExecutable.find("satchel-store-crash-writer")

    @Test("60 kills per journal mode, each followed by a check", arguments: ["wal", "delete"])
    func killedWhileWriting(mode: String) async throws {
        let writer = try #require(
            Self.writer, "satchel-store-crash-writer was not built next to the tests (swift build --build-tests)")
        let folder = try TemporaryFolder()
        let path = folder.path("crash.db")
        let deadline = ContinuousClock.now + .seconds(120)
        var committed = 0
        var kills = 0
        var sawWrites = 0
        while kills < 60 {
            guard ContinuousClock.now < deadline else {
                Issue.record("only \(kills) kills within 120 s")
                return
            }
            let run = try await ChildProcess.run(
                writer, [path, mode], killAfter: .milliseconds(Int.random(in: 30...160)))
            #expect(run.signalled, "the writer stopped by itself")
            let printed = run.output.split(separator: "\n").last.flatMap { Int($0) }
            let lastPrinted = printed ?? committed
            if printed != nil { sawWrites += 1 }

            let store = try StoreFile(path: path).openQueue(key: testKey)
            let (integrity, n, logCount, logMax) = try await store.database.read { db in
                let exists = try db.tableExists("counter")
                return (
                    try String.fetchAll(db, sql: "PRAGMA integrity_check"),
                    exists ? try Int.fetchOne(db, sql: "SELECT n FROM counter") ?? 0 : 0,
                    exists ? try Int.fetchOne(db, sql: "SELECT count(*) FROM log") ?? 0 : 0,
                    exists ? try Int.fetchOne(db, sql: "SELECT max(n) FROM log") ?? 0 : 0
                )
            }
            try store.close()
            #expect(integrity == ["ok"], "after kill \(kills)")
            // Every transaction reported committed is there; at most the one in flight at the kill is added.
            #expect(
                n >= lastPrinted && n <= lastPrinted + 1, "kill \(kills): counter \(n), last reported \(lastPrinted)")
            #expect(logCount == n && logMax == n, "kill \(kills): \(logCount) log rows up to \(logMax), counter \(n)")
            for (name, bytes) in try folder.files() {
                #expect(!containsMarker(bytes), "\(name) holds plaintext after kill \(kills)")
            }
            guard integrity == ["ok"], n >= lastPrinted else { return }
            committed = n
            kills += 1
        }
        #expect(sawWrites > kills / 2, "most runs were killed while writing (\(sawWrites) of \(kills))")
        #expect(committed > 100)
    }
}
