import Foundation
import PostgresNIO
import Synchronization
import SatchelCMISCore
import SatchelTestSupport
import Testing

@testable import SatchelRepository
@testable import SatchelRepositoryPostgres

/// Engines sharing one PostgreSQL database follow each other's changes through `LISTEN`/`NOTIFY`
/// (``StoreChangeFeed``), so they may keep answers; while an engine's listener is down it keeps nothing.
@Suite("Change feed over LISTEN/NOTIFY")
struct ChangeFeedTests {
    /// Polls `probe` until it answers, for at most `limit`.
    func eventually<T>(_ limit: Duration = .seconds(5), _ probe: () async throws -> T?) async throws -> T {
        let deadline = ContinuousClock.now + limit
        while ContinuousClock.now < deadline {
            if let value = try await probe() { return value }
            try await Task.sleep(for: .milliseconds(5))
        }
        throw CMISError(.runtime, "not within \(limit)")
    }

    @Test("an engine sees another process's changes, keeps nothing while its listener is down, and listens again")
    func enginesFollowEachOther() async throws {
        let url = try await SharedPostgres.server.value.createDatabase()
        let first = try await PostgresMetadataStore.connect(url: url)
        let second = try await PostgresMetadataStore.connect(url: url)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-feed-\(UUID())")
        try await withCleanup { () async throws in
            try await seed(first)
            let blobs = try BlobStore(directory: folder)
            let engine = CMISRepository(
                store: first, blobs: blobs, configuration: RepositoryConfiguration(isSoleWriter: false))
            let heard = Mutex<[StoreChangeEvent]>([])
            first.followChanges { event in heard.withLock { $0.append(event) } }
            let g0 = try await eventually { engine.readGeneration(repositoryId: repo) }
            #expect(first.trashGeneration > 0, "following moved the trash generation on")

            // The other process changes the repository: this engine's generation moves on, its folders go.
            try await second.apply(StoreBatch(repositoryId: repo, inserts: [SatchelRepositoryTests.folder("f1")]))
            let g1 = try await eventually { () -> UInt64? in
                guard let now = engine.readGeneration(repositoryId: repo), now != g0 else { return nil }
                return now
            }
            #expect(engine.readGeneration(repositoryId: "elsewhere") != nil)
            // An insert leaves existing folders alone; a delete may not (the folder cache is dropped for it only).
            _ = try await eventually {
                heard.withLock { $0.contains(.changed(repositoryId: repo, folders: false)) } ? true : nil
            }
            try await second.apply(StoreBatch(repositoryId: repo, inserts: [SatchelRepositoryTests.folder("gone")]))
            try await second.apply(StoreBatch(repositoryId: repo, deletes: ["gone"]))
            _ = try await eventually {
                heard.withLock { $0.contains(.changed(repositoryId: repo, folders: true)) } ? true : nil
            }
            // A trash mark set through the other process moves this one's trash generation.
            let trash = first.trashGeneration
            _ = try await second.trash(
                TrashMark(repositoryId: repo, key: "f1", parentId: rootId, owner: "alice", created: time(1)))
            _ = try await eventually { first.trashGeneration != trash ? true : nil }

            // The listening connection is killed: no generation until it listens again, then a new one.
            _ = try await second.rows(
                """
                SELECT pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE query LIKE 'LISTEN%' AND pid <> pg_backend_pid() AND datname = current_database()
                """)
            _ = try await eventually { engine.readGeneration(repositoryId: repo) == nil ? true : nil }
            let g2 = try await eventually { engine.readGeneration(repositoryId: repo) }
            #expect(g2 != g1 && g2 != g0)
            try await second.apply(StoreBatch(repositoryId: repo, inserts: [SatchelRepositoryTests.folder("f2")]))
            _ = try await eventually { engine.readGeneration(repositoryId: repo).flatMap { $0 != g2 ? true : nil } }
        } cleanup: {
            await first.shutdown()
            await second.shutdown()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test("generations: a sole writer's are there from the start; a follower's only while its feed listens")
    func generations() {
        let sole = StoreGenerations(live: true)
        #expect(sole.current("r") == 0)
        sole.bump("r")
        #expect(sole.current("r") == 1 && sole.current("s") == 0)
        let follower = StoreGenerations(live: false)
        #expect(follower.current("r") == nil)
        follower.handle(.following)
        let start = follower.current("r")
        follower.handle(.changed(repositoryId: "r", folders: false))
        let changed = follower.current("r")
        #expect(start != nil && changed != start)
        follower.handle(.lost)
        #expect(follower.current("r") == nil)
        follower.handle(.following)
        #expect(follower.current("r").map { $0 > changed ?? 0 } == true, "never an earlier number again")
    }
}
