import Foundation
import SatchelCMISCore
import Testing

@testable import SatchelRepository

/// The same cases against every ``MetadataStore``: memory, SQLite (a temporary file) and PostgreSQL (a temporary
/// cluster shared by the process, one database per test).
@Suite("MetadataStore conformance")
struct MetadataStoreConformanceTests {
    @Test(arguments: Backend.allCases)
    func repositories(backend: Backend) async throws {
        try await withStore(backend) { store in
            #expect(try await store.repositories().isEmpty)
            try await store.apply(
                StoreBatch(
                    repositoryId: "mydocs-bob",
                    newRepositories: [makeRepository("mydocs-bob", owner: "bob"), makeRepository("alpha")]))
            #expect(try await store.repositories().map(\.id) == ["alpha", "mydocs-bob"])
            #expect(try await store.repository(id: "mydocs-bob") == makeRepository("mydocs-bob", owner: "bob"))
            #expect(try await store.repository(id: "nope") == nil)
            await #expect(throws: MetadataStoreError.duplicateId("alpha")) {
                try await store.apply(StoreBatch(repositoryId: "alpha", newRepositories: [makeRepository("alpha")]))
            }
        }
    }

    @Test(arguments: Backend.allCases)
    func insertGetUpdateDelete(backend: Backend) async throws {
        try await withStore(backend) { store in
            try await seed(store)
            let original = document("d1", length: 42, series: "s1")
            try await store.apply(StoreBatch(repositoryId: repo, inserts: [original]))
            #expect(try await store.object(repositoryId: repo, id: "d1") == original)
            #expect(try await store.object(repositoryId: "other", id: "d1") == nil)

            var changed = original
            changed.name = "renamed"
            changed.changeToken = 2
            changed.properties["cmis:name"] = CMISProperty(id: "cmis:name", type: .string, values: [.string("renamed")])
            changed.content = nil
            changed.acl = []
            changed.policyIds = ["p1", "p2"]
            changed.modifiedAt = time(99)
            try await store.apply(StoreBatch(repositoryId: repo, expectedChangeTokens: ["d1": 1], updates: [changed]))
            #expect(try await store.object(repositoryId: repo, id: "d1") == changed)
            #expect(try await store.child(repositoryId: repo, folderId: rootId, name: "renamed") == changed)
            #expect(try await store.child(repositoryId: repo, folderId: rootId, name: "d1") == nil)

            await #expect(throws: MetadataStoreError.duplicateId("d1")) {
                try await store.apply(StoreBatch(repositoryId: repo, inserts: [document("d1", name: "other")]))
            }
            await #expect(throws: MetadataStoreError.notFound(objectId: "ghost")) {
                try await store.apply(StoreBatch(repositoryId: repo, updates: [document("ghost")]))
            }
            try await store.apply(StoreBatch(repositoryId: repo, deletes: ["d1"]))
            #expect(try await store.object(repositoryId: repo, id: "d1") == nil)
            #expect(
                try await store.children(repositoryId: repo, folderId: rootId, order: [], offset: 0, limit: nil)
                    .totalCount == 0)
            await #expect(throws: MetadataStoreError.notFound(objectId: "d1")) {
                try await store.apply(StoreBatch(repositoryId: repo, deletes: ["d1"]))
            }
            // The id and the name are free again.
            try await store.apply(StoreBatch(repositoryId: repo, inserts: [document("d1", name: "renamed")]))
            let found = try await store.objects(repositoryId: repo, ids: ["d1", "root", "missing", "d1"])
            #expect(Set(found.map(\.id)) == ["d1", "root"])
        }
    }

    @Test(arguments: Backend.allCases)
    func childrenPagingAndOrdering(backend: Backend) async throws {
        try await withStore(backend) { store in
            try await seed(store)
            try await store.apply(StoreBatch(repositoryId: repo, inserts: [folder("big"), folder("empty")]))
            // 2,000 children inserted in a scrambled order, in batches of 250.
            let count = 2000
            let numbers = (0..<count).map { ($0 * 7919) % count }
            for start in stride(from: 0, to: count, by: 250) {
                var objects: [StoredObject] = []
                for n in numbers[start..<start + 250] {
                    let length: Int64? = n % 3 == 0 ? nil : Int64(n % 5)
                    let id = String(format: "id-%05d", count - n)
                    let name = String(format: "name-%05d", n)
                    objects.append(document(id, name: name, in: ["big"], created: Int64(n % 10), length: length))
                }
                try await store.apply(StoreBatch(repositoryId: repo, inserts: objects))
            }
            let byName = try await store.children(
                repositoryId: repo, folderId: "big", order: [StoreOrder(.name)], offset: 0, limit: nil)
            #expect(byName.totalCount == count)
            #expect(byName.objects.map(\.name) == (0..<count).map { String(format: "name-%05d", $0) })

            let page = try await store.children(
                repositoryId: repo, folderId: "big", order: [StoreOrder(.name)], offset: 1500, limit: 100)
            #expect(page.totalCount == count)
            #expect(page.objects.map(\.name) == (1500..<1600).map { String(format: "name-%05d", $0) })

            let descending = try await store.children(
                repositoryId: repo, folderId: "big", order: [StoreOrder(.name, ascending: false)], offset: 10,
                limit: 3)
            #expect(descending.objects.map(\.name) == ["name-01989", "name-01988", "name-01987"])

            let tail = try await store.children(
                repositoryId: repo, folderId: "big", order: [StoreOrder(.name)], offset: 1995, limit: 100)
            #expect(tail.objects.count == 5)
            let beyond = try await store.children(
                repositoryId: repo, folderId: "big", order: [StoreOrder(.name)], offset: 5000, limit: 10)
            #expect(beyond.objects.isEmpty && beyond.totalCount == count)

            // Several keys, then the id as tie-break, must agree with the reference order.
            let orders: [[StoreOrder]] = [
                [StoreOrder(.createdAt, ascending: false)],
                [StoreOrder(.contentLength), StoreOrder(.modifiedAt, ascending: false)],
                [StoreOrder(.typeId), StoreOrder(.baseTypeId)],
                [],
            ]
            let all = byName.objects
            for order in orders {
                let expected = all.sorted { MemoryMetadataStore.precedes($0, $1, order: order) }.map(\.id)
                let got = try await store.children(
                    repositoryId: repo, folderId: "big", order: order, offset: 100, limit: 50)
                #expect(got.objects.map(\.id) == Array(expected[100..<150]), "order \(order)")
            }
            let empty = try await store.children(
                repositoryId: repo, folderId: "empty", order: [StoreOrder(.name)], offset: 0, limit: 10)
            #expect(empty == StoredPage(objects: [], totalCount: 0))
        }
    }

    @Test(arguments: Backend.allCases)
    func namesAreUniquePerFolder(backend: Backend) async throws {
        try await withStore(backend) { store in
            try await seed(store)
            try await store.apply(
                StoreBatch(
                    repositoryId: repo,
                    inserts: [
                        folder("a"), folder("b"), document("x", name: "report"),
                        document("y", name: "report", in: ["a"]),
                    ]))
            // The same name in another folder is fine; in the same folder it is not, and nothing of the batch stays.
            await #expect(throws: MetadataStoreError.nameTaken(folderId: rootId, name: "report")) {
                try await store.apply(
                    StoreBatch(
                        repositoryId: repo,
                        inserts: [document("z", name: "fine", in: ["b"]), document("w", name: "report")],
                        changes: [created(document("w"))]))
            }
            #expect(try await store.object(repositoryId: repo, id: "z") == nil)
            #expect(try await store.latestChangeToken(repositoryId: repo) == nil)

            // A multi-filed object is a child of each of its folders, under its one name.
            let shared = document("m", name: "both", in: ["a", "b"])
            try await store.apply(StoreBatch(repositoryId: repo, inserts: [shared]))
            #expect(try await store.child(repositoryId: repo, folderId: "a", name: "both") == shared)
            #expect(try await store.child(repositoryId: repo, folderId: "b", name: "both") == shared)
            await #expect(throws: MetadataStoreError.nameTaken(folderId: "b", name: "both")) {
                try await store.apply(StoreBatch(repositoryId: repo, inserts: [document("n", name: "both", in: ["b"])]))
            }
            // Renaming into a taken name fails; swapping two names in one batch works.
            var x = try #require(try await store.object(repositoryId: repo, id: "x"))
            var other = document("o", name: "other")
            try await store.apply(StoreBatch(repositoryId: repo, inserts: [other]))
            x.name = "other"
            await #expect(throws: MetadataStoreError.nameTaken(folderId: rootId, name: "other")) {
                try await store.apply(StoreBatch(repositoryId: repo, updates: [x]))
            }
            other.name = "report"
            try await store.apply(StoreBatch(repositoryId: repo, updates: [x, other]))
            #expect(try await store.child(repositoryId: repo, folderId: rootId, name: "report")?.id == "o")
            #expect(try await store.child(repositoryId: repo, folderId: rootId, name: "other")?.id == "x")
            // Moving (a new parent list) refiles the object.
            x.parentIds = ["b"]
            try await store.apply(StoreBatch(repositoryId: repo, updates: [x]))
            #expect(try await store.child(repositoryId: repo, folderId: rootId, name: "other") == nil)
            #expect(try await store.child(repositoryId: repo, folderId: "b", name: "other") == x)
            let names = try await store.children(
                repositoryId: repo, folderId: "b", order: [StoreOrder(.name)], offset: 0, limit: nil
            ).objects.map(\.name)
            #expect(names == ["both", "other"])
        }
    }

    @Test(arguments: Backend.allCases)
    func failedPreconditionsApplyNothing(backend: Backend) async throws {
        try await withStore(backend) { store in
            try await seed(store)
            try await store.apply(StoreBatch(repositoryId: repo, inserts: [document("d")]))
            var changed = document("d", name: "changed")
            changed.changeToken = 2
            let sideEffects = StoreBatch(
                repositoryId: repo, expectedChangeTokens: ["d": 5], inserts: [document("e")], updates: [changed],
                deletes: [], changes: [created(document("e"))])
            await #expect(throws: MetadataStoreError.conflict(objectId: "d")) { try await store.apply(sideEffects) }
            var missing = sideEffects
            missing.expectedChangeTokens = ["ghost": 1]
            await #expect(throws: MetadataStoreError.notFound(objectId: "ghost")) { try await store.apply(missing) }
            // A failure late in the batch (a duplicate id) undoes the earlier deletes and updates too.
            var late = sideEffects
            late.expectedChangeTokens = ["d": 1]
            late.deletes = [rootId]
            late.inserts = [document("e"), document("e", name: "again")]
            await #expect(throws: MetadataStoreError.duplicateId("e")) { try await store.apply(late) }

            #expect(try await store.object(repositoryId: repo, id: "d") == document("d"))
            #expect(try await store.object(repositoryId: repo, id: "e") == nil)
            #expect(try await store.object(repositoryId: repo, id: rootId) != nil)
            #expect(try await store.changes(repositoryId: repo, after: nil, limit: 10).isEmpty)

            var good = sideEffects
            good.expectedChangeTokens = ["d": 1]
            try await store.apply(good)
            #expect(try await store.object(repositoryId: repo, id: "d") == changed)
            #expect(try await store.object(repositoryId: repo, id: "e") != nil)
        }
    }

    @Test(arguments: Backend.allCases)
    func changeLog(backend: Backend) async throws {
        try await withStore(backend) { store in
            try await seed(store)
            try await store.apply(StoreBatch(repositoryId: "other", newRepositories: [makeRepository("other")]))
            for index in 0..<5 {
                let object = document("c\(index)")
                try await store.apply(
                    StoreBatch(repositoryId: repo, inserts: [object], changes: [created(object)]))
                let foreign = document("f\(index)", repository: "other")
                try await store.apply(
                    StoreBatch(repositoryId: "other", inserts: [foreign], changes: [created(foreign)]))
            }
            let deleted = StoredChange(
                repositoryId: repo, objectId: "c0", changeType: .deleted, time: time(20), typeId: "cmis:document",
                baseTypeId: .document)
            try await store.apply(StoreBatch(repositoryId: repo, deletes: ["c0"], changes: [deleted]))

            let all = try await store.changes(repositoryId: repo, after: nil, limit: 100)
            #expect(all.map(\.objectId) == ["c0", "c1", "c2", "c3", "c4", "c0"])
            #expect(all.map(\.changeType) == [.created, .created, .created, .created, .created, .deleted])
            #expect(zip(all, all.dropFirst()).allSatisfy { $0.token < $1.token })
            #expect(all.last?.time == time(20) && all.last?.typeId == "cmis:document")
            #expect(all.allSatisfy { $0.repositoryId == repo })
            #expect(try await store.latestChangeToken(repositoryId: repo) == all.last?.token)
            let afterSecond = try await store.changes(repositoryId: repo, after: all[1].token, limit: 2)
            #expect(afterSecond == Array(all[2..<4]))
            #expect(try await store.changes(repositoryId: repo, after: all.last?.token, limit: 10).isEmpty)
            #expect(try await store.changes(repositoryId: "other", after: nil, limit: 100).count == 5)
            #expect(try await store.latestChangeToken(repositoryId: "nobody") == nil)
        }
    }

    @Test(arguments: Backend.allCases)
    func versionsRelationshipsAndScans(backend: Backend) async throws {
        try await withStore(backend) { store in
            try await seed(store)
            let v1 = document("v1", name: "v1", created: 100, series: "s", latest: false)
            let v2 = document("v2", name: "v2", created: 200, series: "s", latest: true)
            let pwc = document("pwc", name: "pwc", created: 300, series: "s", latest: false, pwc: true)
            let custom = document("k", type: "sap:invoice", series: "t")
            let item = StoredObject(
                repositoryId: repo, id: "item", baseTypeId: .item, typeId: "cmis:item", name: "item",
                parentIds: [rootId], properties: Properties(), createdAt: time(5), modifiedAt: time(5))
            try await store.apply(
                StoreBatch(
                    repositoryId: repo,
                    inserts: [
                        v1, v2, pwc, custom, item, relationship("r1", from: "v2", to: "k"),
                        relationship("r2", from: "k", to: "item"),
                    ]))
            #expect(
                try await store.versions(repositoryId: repo, versionSeriesId: "s").map(\.id) == ["pwc", "v2", "v1"])
            #expect(try await store.versions(repositoryId: repo, versionSeriesId: "none").isEmpty)
            #expect(try await store.relationships(repositoryId: repo, objectId: "k").map(\.id) == ["r1", "r2"])
            #expect(
                try await store.relationships(repositoryId: repo, objectId: "v2") == [
                    relationship("r1", from: "v2", to: "k")
                ])

            let documents = try await store.scan(
                repositoryId: repo, baseTypes: [.document], typeIds: nil, latestOnly: false)
            #expect(documents.map(\.id) == ["k", "pwc", "v1", "v2"])
            let latest = try await store.scan(
                repositoryId: repo, baseTypes: [.document], typeIds: nil, latestOnly: true)
            #expect(latest.map(\.id) == ["k", "pwc", "v2"])
            let typed = try await store.scan(
                repositoryId: repo, baseTypes: nil, typeIds: ["sap:invoice", "cmis:item"], latestOnly: false)
            #expect(typed.map(\.id) == ["item", "k"])
            let both = try await store.scan(
                repositoryId: repo, baseTypes: [.folder, .item], typeIds: ["cmis:item", "sap:invoice"], latestOnly: true
            )
            #expect(both.map(\.id) == ["item"])
            #expect(try await store.scan(repositoryId: repo, baseTypes: [], typeIds: nil, latestOnly: false).isEmpty)
            #expect(
                try await store.scan(repositoryId: repo, baseTypes: nil, typeIds: nil, latestOnly: false).count == 8)
            #expect(
                try await store.scan(repositoryId: "other", baseTypes: nil, typeIds: nil, latestOnly: false).isEmpty)
        }
    }

    @Test(arguments: Backend.allCases)
    func referencedContentHashes(backend: Backend) async throws {
        try await withStore(backend) { store in
            try await seed(store)
            try await store.apply(
                StoreBatch(
                    repositoryId: repo,
                    inserts: [
                        document("a", hash: "aaa"), document("b", hash: "bbb"), document("c", hash: "aaa"),
                        document("n"),
                    ]))
            #expect(try await store.referencedContentHashes() == ["aaa", "bbb"])
            #expect(try await store.isContentReferenced("aaa"))
            #expect(try await store.isContentReferenced("zzz") == false)
            // A batch reports the content it released: "bbb" is gone, "aaa" is still c's... until c changes.
            let deleted = try await store.apply(StoreBatch(repositoryId: repo, deletes: ["b", "a"]))
            #expect(deleted.releasedContentHashes == ["bbb"])
            #expect(try await store.referencedContentHashes() == ["aaa"])
            var replaced = document("c", hash: "ccc")
            replaced.changeToken = 2
            let update = try await store.apply(StoreBatch(repositoryId: repo, updates: [replaced]))
            #expect(update.releasedContentHashes == ["aaa"])
            #expect(try await store.isContentReferenced("aaa") == false)
            // Content moving from one object to another in the same batch is not released.
            var moved = document("n", hash: "ccc")
            moved.changeToken = 2
            var emptied = replaced
            emptied.content = nil
            emptied.changeToken = 3
            let swap = try await store.apply(StoreBatch(repositoryId: repo, updates: [emptied, moved]))
            #expect(swap.releasedContentHashes.isEmpty)
            #expect(try await store.referencedContentHashes() == ["ccc"])
        }
    }

    @Test(arguments: Backend.allCases)
    func propertyBagRoundTrip(backend: Backend) async throws {
        try await withStore(backend) { store in
            try await seed(store)
            var object = document("p")
            object.properties = everyPropertyKind
            object.acl = [
                ACE(principalId: "alice", permissions: ["cmis:read", "cmis:write"]),
                ACE(principalId: "group \"x\"", permissions: [], isDirect: false),
            ]
            object.policyIds = ["policy-1"]
            object.parentIds = []
            try await store.apply(StoreBatch(repositoryId: repo, inserts: [object]))
            let read = try #require(try await store.object(repositoryId: repo, id: "p"))
            #expect(read == object)
            #expect(read.properties.ids == everyPropertyKind.ids)
            #expect(read.properties["cmis:name"]?.displayName == "Name")
            #expect(read.properties["d"]?.decimalValue?.description == "12345678901234567890.123456789")
            #expect(read.properties["t"]?.dateValue == time(123))
        }
    }

    @Test(arguments: Backend.allCases)
    func concurrentWriters(backend: Backend) async throws {
        try await withStore(backend) { store in
            try await seed(store)
            // 8 writers × 50 batches of distinct objects, each with a change event.
            try await withThrowingTaskGroup(of: Void.self) { group in
                for writer in 0..<8 {
                    group.addTask {
                        for index in 0..<50 {
                            let object = document("w\(writer)-\(index)")
                            try await store.apply(
                                StoreBatch(repositoryId: repo, inserts: [object], changes: [created(object)]))
                        }
                    }
                }
                try await group.waitForAll()
            }
            let page = try await store.children(
                repositoryId: repo, folderId: rootId, order: [StoreOrder(.name)], offset: 0, limit: nil)
            #expect(page.totalCount == 400 && page.objects.count == 400)
            let changes = try await store.changes(repositoryId: repo, after: nil, limit: 1000)
            #expect(changes.count == 400)
            #expect(Set(changes.map(\.objectId)).count == 400)
            #expect(zip(changes, changes.dropFirst()).allSatisfy { $0.token < $1.token })

            // 8 writers update one object from the same token: exactly one wins.
            let target = try #require(try await store.object(repositoryId: repo, id: "w0-0"))
            let outcomes = try await withThrowingTaskGroup(of: String.self) { group in
                for writer in 0..<8 {
                    group.addTask {
                        var updated = target
                        updated.changeToken = target.changeToken + 1
                        updated.name = "winner-\(writer)"
                        do {
                            try await store.apply(
                                StoreBatch(
                                    repositoryId: repo, expectedChangeTokens: [target.id: target.changeToken],
                                    updates: [updated]))
                            return "ok"
                        } catch MetadataStoreError.conflict(let id) where id == target.id {
                            return "conflict"
                        }
                    }
                }
                return try await group.reduce(into: [String]()) { $0.append($1) }
            }
            #expect(outcomes.filter { $0 == "ok" }.count == 1)
            #expect(outcomes.filter { $0 == "conflict" }.count == 7)
            let final = try #require(try await store.object(repositoryId: repo, id: "w0-0"))
            #expect(final.changeToken == target.changeToken + 1 && final.name.hasPrefix("winner-"))
        }
    }
}
