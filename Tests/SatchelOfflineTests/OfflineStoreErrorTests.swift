import Foundation
import Hummingbird
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelTestSupport
import Testing

/// The store's own errors: one code per cause, the store's file in the description, and a `$batch` answered from the
/// store giving each part the status its error means.
@Suite("Offline store: its own error type")
struct OfflineStoreErrorTests {
    static func code(_ body: () async throws -> Void) async -> OfflineStoreError.Code? {
        do {
            try await body()
            return nil
        } catch let error as OfflineStoreError {
            return error.code
        } catch {
            Issue.record("not an OfflineStoreError: \(error)")
            return nil
        }
    }

    @Test("each cause has its code; the description names the store's file")
    func codesPerCause() async throws {
        let server = try await TestHTTPServer.start { router in
            router.get("/odata/**") { request, _ -> Response in HostileServiceTests.threeProducts(request.uri.path) }
        }
        let folder = try offlineTestFolder("errors")
        try await withCleanup {
            let store = offlineTestStore(
                serviceURL: server.url("/odata"), folder: folder, queries: [.init(name: "p", query: "Products")])
            #expect(await Self.code { _ = try await store.requests() } == .notOpen)
            do {
                _ = try await store.count("Products")
            } catch let error as OfflineStoreError {
                #expect(error.description.contains(folder.path), "\(error)")
            }
            #expect(await Self.code { try await store.open(localOnly: true) } == .noLocalStore)
            try await store.open()
            #expect(await Self.code { try await store.open() } == .alreadyOpen)
            #expect(await Self.code { _ = try await store.count("Nope") } == .unknownEntitySet)
            #expect(
                await Self.code { _ = try await store.entity("Products", .key(.single(.int(99)))) } == .entityNotFound)
            #expect(await Self.code { try await store.cancel(requestID: 42) } == .queueEntryNotFound)
            #expect(await Self.code { try await store.retry(errorID: 42) } == .queueEntryNotFound)
            #expect(await Self.code { try await store.download(subset: ["nope"]) } == .unknownDefiningQuery)
            let unknownFunction = ODataQuery().filter(
                .call("geo.distance", [.property("Name"), .property("Name")]) < .literal(.int(1)))
            #expect(
                await Self.code { _ = try await store.entities("Products", query: unknownFunction) } == .unsupported)
            try await store.update(
                "Products", .key(.single(.int(1))), with: ODataEntity(properties: ["Name": .string("queued")]))
            #expect(await Self.code { try await store.clear() } == .pendingRequests)

            // A `$batch` against the store: a read of a missing entity answers 404, the rest goes on.
            var batch = ODataBatch()
            batch.entity("Products", key: .single(.int(2)))
            batch.entity("Products", key: .single(.int(99)))
            let response = try await store.send(batch)
            #expect(response.results.map(\.status) == [200, 404], "\(response.results.map(\.status))")
            try await store.close()
        } cleanup: {
            await server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }
}
