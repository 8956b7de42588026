import Foundation
import SatchelRepository
import Testing

@testable import SatchelRepositoryPostgres

@Suite("PostgresMetadataStore")
struct PostgresMetadataStoreTests {
    @Test(arguments: ["http://example.com/db", "not a url at all", "mysql://u@h/db"])
    func rejectsOtherURLs(url: String) async {
        await #expect(throws: StoreError.self) { _ = try await PostgresMetadataStore.connect(url: url) }
    }

    @Test func passwordsNeverAppearInMessages() {
        #expect(!PostgresMetadataStore.redacted("postgres://u:topsecret@h:5/db").contains("topsecret"))
    }

    @Test func unreachableServerFailsWithinTheTimeout() async throws {
        let clock = ContinuousClock()
        let start = clock.now
        // Port 1 on the loopback: nothing listens there.
        await #expect(throws: StoreError.self) {
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
}
