import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelTestSupport
import Synchronization
import Testing

/// The store's sync state as a stream (phase, last download and upload, pending requests) and queries observed
/// through downloads and local changes, against odatapy.
@Suite("Offline store: sync state and observed queries", .serialized)
struct SyncStateTests {
    /// Collects what a stream sends, in a task of its own.
    final class Recorder<Element: Sendable>: Sendable {
        let elements = Mutex<[Element]>([])
        /// Set when the stream ended.
        let ended = Mutex(false)
        var all: [Element] { elements.withLock { $0 } }

        /// Waits up to 10 seconds for `condition` on what was recorded.
        func wait(_ condition: ([Element]) -> Bool) async throws -> Bool {
            for _ in 0..<1000 {
                if condition(all) { return true }
                try await Task.sleep(for: .milliseconds(10))
            }
            return condition(all)
        }
    }

    @Test("the phases of an open, a download and an upload, the pending count, and the last sync times kept")
    func syncStates() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 30, timeout: .seconds(60))
        defer { server.stop() }
        let folder = try offlineTestFolder("syncstate")
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = StoreKey.random()
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder,
            queries: [.init(name: "p", query: "Products?$filter=ID le 40")],
            key: key)
        let states = Recorder<OfflineSyncState>()
        let listening = Task { for await state in store.syncStates() { states.elements.withLock { $0.append(state) } } }
        defer { listening.cancel() }
        #expect(try await states.wait { $0.first?.phase == .closed })

        try await store.open()
        #expect(try await states.wait { $0.last?.phase == .idle && $0.last?.lastDownload != nil })
        let phases = states.all.map(\.phase).reduce(into: [OfflineSyncState.Phase]()) {
            if $0.last != $1 { $0.append($1) }
        }
        #expect(phases == [.closed, .opening, .idle, .downloading, .idle], "\(phases)")
        #expect(store.syncState.pendingRequests == 0 && store.syncState.lastUpload == nil)

        // Local changes count as they are committed; an upload empties the queue and records its time.
        try await store.update("Products", .key(.single(.int(3))), with: ODataEntity(properties: ["Stock": .int(3)]))
        try await store.update("Products", .key(.single(.int(4))), with: ODataEntity(properties: ["Stock": .int(4)]))
        #expect(try await states.wait { $0.last?.pendingRequests == 2 }, "\(states.all.last.map { "\($0)" } ?? "")")
        _ = try await store.upload()
        #expect(try await states.wait { $0.last?.pendingRequests == 0 && $0.last?.lastUpload != nil })
        #expect(states.all.contains { $0.phase == .uploading })
        let lastDownload = try #require(store.syncState.lastDownload)
        try await store.close()
        #expect(try await states.wait { $0.last?.phase == .closed })

        // The times are the store's: the next open finds them.
        let again = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder,
            queries: [.init(name: "p", query: "Products?$filter=ID le 40")],
            key: key)
        try await again.open(resuming: false)
        let reopened = again.syncState
        #expect(reopened.phase == .idle && reopened.pendingRequests == 0)
        #expect(abs((reopened.lastDownload ?? .distantPast).timeIntervalSince(lastDownload)) < 0.01)
        #expect(reopened.lastUpload != nil)
        try await again.close()
    }

    @Test("an observed query sends its result again after a local change and after a download that touch it")
    func observedQuery() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 30, timeout: .seconds(60))
        defer { server.stop() }
        let folder = try offlineTestFolder("observe")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder,
            queries: [.init(name: "p", query: "Products?$filter=ID le 40")])
        try await store.open()
        let lowStock = ODataQuery().filter(.property("Stock") == 424_242).orderBy("ID")
        let results = Recorder<[Int]>()
        let watching = Task {
            for try await entities in store.observe("Products", query: lowStock) {
                results.elements.withLock { $0.append(entities.compactMap { $0["ID"]?.intValue.map(Int.init) }) }
            }
            results.ended.withLock { $0 = true }
        }
        defer { watching.cancel() }
        #expect(try await results.wait { $0 == [[]] }, "\(results.all)")

        // A local change that brings an entity into the result.
        try await store.update(
            "Products", .key(.single(.int(5))), with: ODataEntity(properties: ["Stock": .int(424_242)]))
        #expect(try await results.wait { $0.last == [5] }, "\(results.all)")
        // A change elsewhere that leaves the result as it is sends nothing new: the next result is the one the
        // change after it makes (results arrive in the order of the commits).
        let before = results.all.count
        try await store.update("Products", .key(.single(.int(6))), with: ODataEntity(properties: ["Name": "other"]))
        try await store.update(
            "Products", .key(.single(.int(8))), with: ODataEntity(properties: ["Stock": .int(424_242)]))
        #expect(try await results.wait { $0.last == [5, 8] }, "\(results.all)")
        #expect(results.all.count == before + 1, "\(results.all)")
        try await store.undoPendingChanges("Products", .key(.single(.int(8))))
        #expect(try await results.wait { $0.last == [5] }, "\(results.all)")

        // A change on the server arrives with a download.
        let direct = ODataService(configuration: .init(serviceURL: server.serviceURL))
        let seven = try await direct.entity("Products", key: .single(.int(7)))
        try await direct.update(
            ODataPath("Products").key(.single(.int(7))), with: ODataEntity(properties: ["Stock": .int(424_242)]),
            ifMatch: seven.etag)
        try await store.download()
        #expect(try await results.wait { $0.last == [5, 7] }, "\(results.all)")

        // Closing the store ends the stream.
        try await store.close()
        #expect(try await results.wait { _ in results.ended.withLock { $0 } })
    }
}
