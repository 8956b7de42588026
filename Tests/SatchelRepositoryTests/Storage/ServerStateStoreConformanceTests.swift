import Foundation
import SatchelCMISCore
import Testing

@testable import SatchelRepository

/// The same cases against every ``ServerStateStore``: memory, SQLite and PostgreSQL (docs/server-state.md).
@Suite("ServerStateStore conformance")
struct ServerStateStoreConformanceTests {
    /// Runs `body` with a fresh store of `backend` as both protocols.
    func withState(
        _ backend: Backend, _ body: (any MetadataStore, any ServerStateStore) async throws -> Void
    ) async throws {
        try await withStore(backend) { store in
            let state = try #require(store as? any ServerStateStore, "\(backend) keeps no server state")
            try await body(store, state)
        }
    }

    @Test(arguments: Backend.allCases)
    func locks(backend: Backend) async throws {
        try await withState(backend) { _, state in
            let first = try await state.lock(repositoryId: "r", key: "d", owner: "alice", at: time(5))
            #expect(first == .locked(DocumentLock(owner: "alice", created: time(5))))
            // Nobody takes a held lock, its owner included; the answer names the holder.
            #expect(
                try await state.lock(repositoryId: "r", key: "d", owner: "bob", at: time(6))
                    == .alreadyLocked(DocumentLock(owner: "alice", created: time(5))))
            #expect(try await state.lock(repositoryId: "other", key: "d", owner: "bob", at: time(6)) != first)
            #expect(
                try await state.unlock(repositoryId: "r", key: "d", owner: "bob", override: false)
                    == .lockedByOther(DocumentLock(owner: "alice", created: time(5))))
            #expect(try await state.locks(repositoryId: "r", keys: ["d", "e"]).mapValues(\.owner) == ["d": "alice"])
            #expect(try await state.locks(repositoryId: "r", keys: []).isEmpty)
            _ = try await state.lock(repositoryId: "r", key: "e", owner: "carol", at: time(7))
            #expect(
                try await state.locks(repositoryId: "r", notOwnedBy: "carol", limit: 10).mapValues(\.owner)
                    == ["d": "alice"])
            #expect(try await state.locks(repositoryId: "r", notOwnedBy: "nobody", limit: 1).count == 1)
            #expect(try await state.unlock(repositoryId: "r", key: "d", owner: "bob", override: true) == .unlocked)
            #expect(try await state.unlock(repositoryId: "r", key: "d", owner: "alice", override: false) == .notLocked)
            #expect(try await state.locks(repositoryId: "other", keys: ["d"]).mapValues(\.owner) == ["d": "bob"])
        }
    }

    @Test("of many concurrent lockers, exactly one gets the lock", arguments: Backend.allCases)
    func concurrentLocks(backend: Backend) async throws {
        try await withState(backend) { _, state in
            let outcomes = try await withThrowingTaskGroup(of: LockOutcome.self) { group in
                for index in 0..<12 {
                    group.addTask {
                        try await state.lock(repositoryId: "r", key: "hot", owner: "user\(index)", at: time(1))
                    }
                }
                return try await group.reduce(into: []) { $0.append($1) }
            }
            let winners = outcomes.filter { if case .locked = $0 { true } else { false } }
            #expect(winners.count == 1)
            guard case .locked(let lock)? = winners.first else { return }
            #expect(outcomes.allSatisfy { $0 == .locked(lock) || $0 == .alreadyLocked(lock) })
        }
    }

    @Test(arguments: Backend.allCases)
    func trash(backend: Backend) async throws {
        try await withState(backend) { _, state in
            let mark = TrashMark(repositoryId: "r", key: "s1", parentId: "f1", owner: "alice", created: time(3))
            let before = state.trashGeneration
            #expect(try await state.trash(mark))
            #expect(state.trashGeneration != before, "a change to the trash is a new generation")
            var again = mark
            again.owner = "bob"
            #expect(try await !state.trash(again), "trashed already: nothing changes")
            #expect(try await state.trashMarks(repositoryId: "r", keys: ["s1", "s2"]) == ["s1": mark])
            #expect(try await state.holdsTrash(repositoryId: "r", folderId: "f1"))
            try await state.moveTrashMark(repositoryId: "r", key: "s1", to: "f2")
            #expect(try await !state.holdsTrash(repositoryId: "r", folderId: "f1"))
            #expect(try await state.trashMarks(repositoryId: "r", keys: ["s1"])["s1"]?.parentId == "f2")
            for key in ["b", "a", "c"] {
                _ = try await state.trash(
                    TrashMark(repositoryId: "r", key: key, parentId: nil, owner: "bob", created: time(4)))
            }
            #expect(try await state.trashKeys(repositoryId: "r", limit: 3) == ["a", "b", "c"])
            #expect(try await state.trashKeys(repositoryId: "elsewhere", limit: 3).isEmpty)
            #expect(try await state.untrash(repositoryId: "r", key: "s1"))
            #expect(try await !state.untrash(repositoryId: "r", key: "s1"))
            _ = try await state.lock(repositoryId: "r", key: "a", owner: "bob", at: time(5))
            try await state.forgetMarks(repositoryId: "r", keys: ["a"])
            #expect(try await state.trashMarks(repositoryId: "r", keys: ["a", "b"]).keys.sorted() == ["b"])
            #expect(try await state.locks(repositoryId: "r", keys: ["a"]).isEmpty)
        }
    }

    @Test(
        "a scan leaves out, or keeps to, the trash: folders by id, documents by version series",
        arguments: Backend.allCases)
    func scanByTrash(backend: Backend) async throws {
        try await withState(backend) { store, state in
            try await seed(store)
            try await store.apply(
                StoreBatch(
                    repositoryId: repo,
                    inserts: [
                        folder("f1"), folder("f2"), document("v1", series: "s1", latest: false),
                        document("v2", series: "s1"), document("pwc", in: [], series: "s1", pwc: true),
                        document("d2", series: "s2"),
                    ]))
            for key in ["f1", "s1"] {
                _ = try await state.trash(
                    TrashMark(repositoryId: repo, key: key, parentId: rootId, owner: "alice", created: time(1)))
            }
            // The same keys in another repository change nothing here.
            _ = try await state.trash(
                TrashMark(repositoryId: "other", key: "s2", parentId: nil, owner: "alice", created: time(1)))
            func ids(_ trash: TrashScope?) async throws -> [String] {
                try await store.scan(
                    repositoryId: repo, baseTypes: [.folder, .document], typeIds: nil, latestOnly: false, trash: trash
                ).map(\.id)
            }
            #expect(try await ids(.live) == ["d2", "f2", rootId])
            #expect(try await ids(.trashed) == ["f1", "pwc", "v1", "v2"])
            #expect(try await ids(nil).count == 7)
        }
    }

    @Test("deleting the last object a key names forgets its marks in the same batch", arguments: Backend.allCases)
    func deletesForgetMarks(backend: Backend) async throws {
        try await withState(backend) { store, state in
            try await seed(store)
            try await store.apply(
                StoreBatch(
                    repositoryId: repo,
                    inserts: [folder("f1"), document("v1", series: "s1", latest: false), document("s1", series: "s1")]
                ))
            for key in ["f1", "s1"] {
                _ = try await state.lock(repositoryId: repo, key: key, owner: "alice", at: time(1))
                _ = try await state.trash(
                    TrashMark(repositoryId: repo, key: key, parentId: rootId, owner: "alice", created: time(1)))
            }
            // One version of two goes (the one whose id is the series' own): the series lives on, so do its marks.
            try await store.apply(StoreBatch(repositoryId: repo, deletes: ["s1"]))
            #expect(try await state.locks(repositoryId: repo, keys: ["s1"]).count == 1)
            let generation = state.trashGeneration
            try await store.apply(StoreBatch(repositoryId: repo, deletes: ["v1", "f1"]))
            #expect(try await state.locks(repositoryId: repo, keys: ["s1", "f1"]).isEmpty)
            #expect(try await state.trashMarks(repositoryId: repo, keys: ["s1", "f1"]).isEmpty)
            #expect(state.trashGeneration != generation)
            // A batch that fails forgets nothing.
            _ = try await state.lock(repositoryId: repo, key: rootId, owner: "alice", at: time(1))
            await #expect(throws: MetadataStoreError.self) {
                try await store.apply(StoreBatch(repositoryId: repo, deletes: [rootId, "ghost"]))
            }
            #expect(try await state.locks(repositoryId: repo, keys: [rootId]).count == 1)
        }
    }

    @Test(arguments: Backend.allCases)
    func grants(backend: Backend) async throws {
        try await withState(backend) { (_, state) async throws in
            #expect(try await state.issue(Self.sample("d1", "alice", device: "x", at: 1), maximumPerUser: 2))
            #expect(try await state.issue(Self.sample("d2", "alice", device: "y", at: 2), maximumPerUser: 2))
            #expect(try await !state.issue(Self.sample("d3", "alice", device: "z", at: 3), maximumPerUser: 2))
            #expect(try await state.grant(digest: "d3") == nil, "a refused grant leaves nothing")
            // The same application and device: replaced, within the quota.
            #expect(try await state.issue(Self.sample("d4", "alice", device: "x", at: 4), maximumPerUser: 2))
            #expect(try await state.grant(digest: "d1") == nil)
            #expect(try await state.grant(digest: "d4") == Self.sample("d4", "alice", device: "x", at: 4))
            #expect(try await state.grants(user: "alice").map(\.digest) == ["d2", "d4"])
            #expect(try await state.issue(Self.sample("d5", "bob", device: "x", at: 5), maximumPerUser: 2))
            #expect(try await state.revokeGrant(user: "alice", application: "app", device: "y"))
            #expect(try await !state.revokeGrant(user: "alice", application: "app", device: "y"))
            #expect(try await state.grants(user: "alice").map(\.digest) == ["d4"])
            #expect(try await state.grants(user: "bob").map(\.digest) == ["d5"])
        }
    }

    static func sample(_ digest: String, _ user: String, device: String, at offset: Int64) -> AccessGrant {
        AccessGrant(
            digest: digest, user: user, application: "app", device: device, deviceDescription: "phone",
            permission: "r", created: time(offset))
    }
}
