import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelTestSupport
import Testing

/// Undoing pending changes, defining queries added and removed after open, and clearing a store.
@Suite("Offline store: undo, defining queries after open, clear")
struct ManagementTests {
    static let peer = Task { try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60)) }

    @Test func undoAddRemoveClear() async throws {
        let server = try await Self.peer.value
        let service = ODataService(
            configuration: .init(serviceURL: server.serviceURL, http: HTTPClient.Configuration(retry: .never)))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-offline-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("m.store").path
        let store = OfflineStore(
            configuration: .init(
                service: service, path: path,
                definingQueries: [.init(name: "cheap", query: "Products?$filter=ID le 20")],
                key: StoreKey.random()))
        try await store.open()
        #expect(try await store.count("Products") == 20)

        // Undo: a change, a deletion and a creation go; the entities are as downloaded.
        let before = try #require(
            try await store.entities("Products", query: ODataQuery().filter(.property("ID") == 5)).first)
        try await store.update(
            "Products", .key(.single(.int(5))), with: ODataEntity(properties: ["Name": .string("x")]))
        try await store.delete("Products", .key(.single(.int(6))))
        let made = try await store.create(
            "Products", ODataEntity(properties: ["ID": .int(8800), "Name": .string("n")]))
        try await store.undoPendingChanges("Products", .key(.single(.int(5))))
        try await store.undoPendingChanges("Products", .key(.single(.int(6))))
        try await store.undoPendingChanges("Products", .id(made))
        #expect(try await store.requests().isEmpty)
        let after = try #require(
            try await store.entities("Products", query: ODataQuery().filter(.property("ID") == 5)).first)
        #expect(after["Name"] == before["Name"])
        #expect(try await store.count("Products") == 20)

        // A defining query added after open arrives with the next download; removed, its entities leave.
        try await store.addDefiningQuery(.init(name: "more", query: "Products?$filter=ID gt 240"))
        try await store.download()
        #expect(try await store.count("Products") == 30)
        try await store.removeDefiningQuery(named: "cheap")
        #expect(try await store.count("Products") == 10)
        #expect(try await store.count("Products", query: ODataQuery().filter(.property("ID") <= 20)) == 0)

        // Only the named defining queries: the others are not asked for; an unknown name sends nothing.
        await #expect(throws: OfflineStoreError.self) { try await store.download(subset: ["more", "nope"]) }
        try await store.download(subset: ["more"])
        #expect(try await store.count("Products") == 10)

        // A queued change keeps the store from being removed, unless forced; a closed store is looked at too.
        try await store.update(
            "Products", .key(.single(.int(250))), with: ODataEntity(properties: ["Name": .string("kept")]))
        await #expect(throws: OfflineStoreError.self) { try await store.clear() }
        #expect(FileManager.default.fileExists(atPath: path))
        try await store.close()
        await #expect(throws: OfflineStoreError.self) { try await store.clear() }
        #expect(FileManager.default.fileExists(atPath: path) && !store.isOpen)
        // Under a wrong key the queue cannot be looked at: nothing is removed.
        var wrong = store.configuration
        wrong.key = StoreKey.random()
        await #expect(throws: (any Error).self) { try await OfflineStore(configuration: wrong).clear() }
        #expect(FileManager.default.fileExists(atPath: path))
        try await store.clear(force: true)
        #expect(!FileManager.default.fileExists(atPath: path))
    }
}
