import Foundation
import GRDB
import SatchelCMISCore
import Testing

@testable import SatchelRepository

@Suite("SQLiteMetadataStore")
struct SQLiteMetadataStoreTests {
    @Test func reopeningTheFileKeepsEverything() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent(
            "satchel-reopen-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("nested/metadata.sqlite").path
        var object = document("d", hash: "abc", series: "s")
        object.properties = everyPropertyKind
        do {
            let store = try SQLiteMetadataStore(path: path)
            try await store.migrate()
            try await seed(store)
            try await store.apply(StoreBatch(repositoryId: repo, inserts: [object], changes: [created(object)]))
        }
        let reopened = try SQLiteMetadataStore(path: path)
        try await reopened.migrate()
        #expect(try await reopened.repositories() == [makeRepository()])
        #expect(try await reopened.object(repositoryId: repo, id: "d") == object)
        #expect(try await reopened.child(repositoryId: repo, folderId: rootId, name: "d") == object)
        #expect(try await reopened.changes(repositoryId: repo, after: nil, limit: 5).map(\.objectId) == ["d"])
        // Tokens keep growing after a reopen.
        let before = try #require(try await reopened.latestChangeToken(repositoryId: repo))
        try await reopened.apply(StoreBatch(repositoryId: repo, changes: [created(object)]))
        #expect(try await reopened.latestChangeToken(repositoryId: repo) == before + 1)
    }

    /// A version 1 file drew change tokens from one counter for every repository; version 2 counts per repository
    /// and keeps the tokens clients already hold.
    @Test func upgradingKeepsTokensAndCountsPerRepository() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-v1-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("metadata.sqlite").path
        do {
            let queue = try DatabaseQueue(path: path)
            try SQLiteSchema.migrator.migrate(queue, upTo: "v1")
            try await queue.write { db in
                for (repository, object) in [("a", "x"), ("b", "y"), ("a", "z")] {
                    try db.execute(
                        sql: """
                            INSERT INTO changes (repository, object_id, change_type, time, type_id, base_type)
                            VALUES (?, ?, 'created', 0, 'cmis:document', 'cmis:document')
                            """, arguments: [repository, object])
                }
            }
        }
        let store = try SQLiteMetadataStore(path: path)
        #expect(try await store.changes(repositoryId: "a", after: nil, limit: 10).map(\.token) == [1, 3])
        #expect(try await store.latestChangeToken(repositoryId: "b") == 2)
        let next = StoredChange(
            repositoryId: "a", objectId: "w", changeType: .created, time: Date(), typeId: "cmis:document",
            baseTypeId: .document)
        try await store.apply(StoreBatch(repositoryId: "a", changes: [next]))
        try await store.apply(
            StoreBatch(
                repositoryId: "c",
                changes: [next, next].map {
                    var c = $0; c.repositoryId = "c"; return c
                }))
        #expect(try await store.latestChangeToken(repositoryId: "a") == 4)
        #expect(try await store.changes(repositoryId: "c", after: nil, limit: 10).map(\.token) == [1, 2])
    }

    @Test func inMemoryVariantWorks() async throws {
        let store = try SQLiteMetadataStore.inMemory()
        try await seed(store)
        try await store.apply(StoreBatch(repositoryId: repo, inserts: [document("x")]))
        #expect(try await store.object(repositoryId: repo, id: "x") == document("x"))
        #expect(store.path == nil)
    }

    @Test func unusableLocationIsABackendError() async throws {
        #expect(throws: MetadataStoreError.self) { try SQLiteMetadataStore(path: "/proc/satchel/metadata.sqlite") }
    }

    @Test func childrenByNameUseTheFilingsIndex() {
        // Name order needs no id tie-break (names are unique per folder); other orders end with the id.
        #expect(SQLiteMetadataStore.childrenSQL(order: [StoreOrder(.name)]).contains("ORDER BY f.name\n"))
        #expect(
            SQLiteMetadataStore.childrenSQL(order: [StoreOrder(.createdAt, ascending: false)]).contains(
                "ORDER BY o.created_at DESC, o.id"))
    }
}

@Suite("StoredPropertyCodec")
struct StoredPropertyCodecTests {
    @Test func everyKindRoundTrips() throws {
        let bytes = StoredPropertyCodec.encode(everyPropertyKind)
        #expect(try StoredPropertyCodec.decodeProperties(bytes) == everyPropertyKind)
        #expect(try StoredPropertyCodec.decodeProperties(StoredPropertyCodec.text(bytes)) == everyPropertyKind)
    }

    @Test func compactAndTyped() {
        let properties = Properties([
            CMISProperty(id: "n", type: .integer, values: [.integer(5)]),
            CMISProperty(id: "d", type: .decimal, cardinality: .multi, values: [.decimal(Decimal(string: "1.25")!)]),
            CMISProperty(id: "t", type: .datetime, values: [.datetime(StoredTime.date(milliseconds: 1500))]),
        ])
        #expect(
            StoredPropertyCodec.text(StoredPropertyCodec.encode(properties))
                == #"[{"i":"n","t":"n","v":[5]},{"i":"d","t":"d","m":true,"v":["1.25"]},{"i":"t","t":"t","v":[1500]}]"#)
    }

    @Test func membersInAnyOrderDecode() throws {
        // encode writes the id and type first; a bag written otherwise still reads the same.
        let read = try StoredPropertyCodec.decodeProperties(
            #"[{"v":[5,6],"m":true,"t":"n","i":"n"},{"q":"Q","v":["x"],"i":"s","t":"s","l":"L"}]"#)
        #expect(read.ids == ["n", "s"])
        #expect(read["n"]?.values == [.integer(5), .integer(6)])
        #expect(read["n"]?.cardinality == .multi)
        #expect(read["s"]?.values == [.string("x")])
        #expect(read["s"]?.queryName == "Q" && read["s"]?.localName == "L")
    }

    @Test func rowsOfOneReadShareNamesAndLookup() throws {
        let bag = { (name: String) in
            StoredPropertyCodec.encode(
                Properties([
                    CMISProperty(
                        id: "cmis:contentStreamMimeType", type: .string, values: [.string(name)],
                        localName: "contentStreamMimeType", displayName: "MIME Type of the content",
                        queryName: "cmis:contentStreamMimeType"),
                    CMISProperty(id: "cmis:name", type: .string, values: [.string(name)]),
                ]))
        }
        var reading = StoredBagReading(expectedRows: 1000)
        #expect(!reading.keepsDecoded)
        let first = try StoredPropertyCodec.decodeProperties(bag("a"), reading: &reading)
        let second = try StoredPropertyCodec.decodeProperties(bag("b"), reading: &reading)
        #expect(second["cmis:name"]?.stringValue == "b")
        #expect(second["cmis:contentStreamMimeType"]?.displayName == "MIME Type of the content")
        var a = try #require(first[0].displayName)
        var b = try #require(second[0].displayName)
        #expect(a.withUTF8 { x in b.withUTF8 { y in x.baseAddress == y.baseAddress } })
        #expect(first == (try StoredPropertyCodec.decodeProperties(bag("a"))))
    }

    @Test func decimalNaNRoundTrips() throws {
        let properties = Properties([CMISProperty(id: "x", type: .decimal, values: [.decimal(.nan)])])
        let read = try StoredPropertyCodec.decodeProperties(StoredPropertyCodec.encode(properties))
        #expect(read["x"]?.decimalValue?.isNaN == true)
    }

    @Test(arguments: [
        "", "{}", "[{}]", #"[{"i":"a","t":"z","v":[]}]"#, #"[{"i":"a","t":"n","v":["x"]}]"#,
        #"[{"i":"a","t":"n","v":[1.5]}]"#, #"[{"i":"a","t":"d","v":["abc"]}]"#, #"[{"i":"a","t":"s","v":[["q",1]]}]"#,
        #"[{"i":"a","t":"s","v":[null]}]"#,
    ])
    func damagedBagsAreErrorsNotCrashes(text: String) {
        #expect(throws: StoredCodingError.self) { try StoredPropertyCodec.decodeProperties(text) }
    }

    @Test func aclAndListsRoundTrip() throws {
        let acl = [
            ACE(principalId: "a", permissions: ["cmis:read"]), ACE(principalId: "b", permissions: [], isDirect: false),
        ]
        #expect(try StoredPropertyCodec.decodeACL(StoredPropertyCodec.text(StoredPropertyCodec.encode(acl))) == acl)
        let ids = ["x", "y \"z\""]
        #expect(try StoredPropertyCodec.decodeStrings(StoredPropertyCodec.text(StoredPropertyCodec.encode(ids))) == ids)
        #expect(throws: StoredCodingError.self) { try StoredPropertyCodec.decodeStrings("[1]") }
    }

    @Test func extremeDatesClampInsteadOfTrapping() {
        #expect(StoredTime.milliseconds(Date(timeIntervalSince1970: 1e300)) == 1_000_000_000_000_000)
        #expect(StoredTime.milliseconds(Date(timeIntervalSince1970: .nan)) == 0)
        #expect(StoredTime.milliseconds(StoredTime.date(milliseconds: -123_456)) == -123_456)
    }
}
