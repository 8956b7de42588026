import Foundation
import PostgresNIO
import SatchelRepository
import Testing

@testable import SatchelRepositoryPostgres
import SatchelTestSupport
import SatchelCMISCore

@Suite("PostgresMetadataStore")
struct PostgresMetadataStoreTests {
    @Test(arguments: ["http://example.com/db", "not a url at all", "mysql://u@h/db"])
    func rejectsOtherURLs(url: String) async {
        await #expect(throws: MetadataStoreError.self) { _ = try await PostgresMetadataStore.connect(url: url) }
    }

    @Test func passwordsNeverAppearInMessages() {
        #expect(!PostgresMetadataStore.redacted("postgres://u:topsecret@h:5/db").contains("topsecret"))
    }

    @Test func unreachableServerFailsWithinTheTimeout() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        // Port 1 on the loopback: nothing listens there.
        await #expect(throws: MetadataStoreError.self) {
            _ = try await PostgresMetadataStore.connect(url: "postgres://u@127.0.0.1:1/db", timeout: .seconds(2))
        }
        #expect(clock.now - start < .seconds(20))
    }

    @Test func connectsThroughTheUnixSocket() async throws {
        let postgres = try await SharedPostgres.server.value
        let url = try postgres.createDatabase()
        let name = String(url.split(separator: "/").last ?? "")
        let store = try await PostgresMetadataStore.connect(url: postgres.socketURL(database: name))
        do {
            try await seed(store)
            #expect(try await store.repositories() == [makeRepository()])
            // Migrating again is harmless.
            try await store.migrate()
            #expect(try await store.object(repositoryId: repo, id: rootId) == folder(rootId, in: nil))
        } catch {
            await store.shutdown()
            throw error
        }
        await store.shutdown()
    }

    /// Version 1 drew change tokens from one bigserial for every repository; version 2 counts per repository and
    /// keeps the tokens clients already hold.
    @Test func upgradingKeepsTokensAndCountsPerRepository() async throws {
        let postgres = try await SharedPostgres.server.value
        let url = try postgres.createDatabase()
        let store = try await PostgresMetadataStore.connect(url: url, timeout: .seconds(30), migrating: false)
        do {
            try await store.withConnection { connection in
                try await store.run(
                    "CREATE TABLE satchel_schema_versions (version integer PRIMARY KEY)", on: connection)
                for statement in PostgresSchema.migrations[0].sql {
                    try await store.run(PostgresQuery(unsafeSQL: statement), on: connection)
                }
                try await store.run("INSERT INTO satchel_schema_versions (version) VALUES (1)", on: connection)
                for (repository, object) in [("a", "x"), ("b", "y"), ("a", "z")] {
                    try await store.run(
                        """
                        INSERT INTO changes (repository, object_id, change_type, time, type_id, base_type)
                        VALUES (\(repository), \(object), 'created', 0, 'cmis:document', 'cmis:document')
                        """, on: connection)
                }
            }
            try await store.migrate()
            #expect(try await store.changes(repositoryId: "a", after: nil, limit: 10).map(\.token) == [1, 3])
            #expect(try await store.latestChangeToken(repositoryId: "b") == 2)
            let next = StoredChange(
                repositoryId: "a", objectId: "w", changeType: .created, time: Date(), typeId: "cmis:document",
                baseTypeId: .document)
            try await store.apply(StoreBatch(repositoryId: "a", changes: [next, next]))
            #expect(try await store.changes(repositoryId: "a", after: 3, limit: 10).map(\.token) == [4, 5])
        } catch {
            await store.shutdown()
            throw error
        }
        await store.shutdown()
    }
}
