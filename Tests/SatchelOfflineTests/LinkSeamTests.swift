import Foundation
import SatchelOData
import SatchelOffline
import SatchelTestSupport
import Testing

/// Links added and removed through the seam, online and offline (odatapy, V4): the same calls against the service
/// and against a store, which makes them locally at once and uploads them as `$ref` requests. Checked on both
/// servers.
@Suite("Offline store: links through the seam")
struct LinkSeamTests {
    static let line31 = ODataPath("OrderItems").key(ODataKey(["OrderID": .int(3), "LineNumber": .int(1)]))
    static let line61 = ODataPath("OrderItems").key(ODataKey(["OrderID": .int(6), "LineNumber": .int(1)]))
    static func order(_ id: Int) -> ODataPath { ODataPath("Orders").key(.single(.int(id))) }

    /// One body for the service and for the store.
    static func relink(_ provider: any ODataProvider) async throws {
        try await provider.addLink(from: order(5), navigation: "Items", to: line31, replace: false)
        try await provider.addLink(
            from: ODataPath("Products").key(.single(.int(3))), navigation: "Category",
            to: ODataPath("Categories").key(.single(.int(4))), replace: true)
        try await provider.removeLink(from: order(6), navigation: "Items", to: line61)
    }

    static func check(_ service: ODataService) async throws {
        let five = try await collect(service.entities(order(5).navigate("Items")))
        #expect(five.contains { $0["OrderID"] == .int(3) && $0["LineNumber"] == .int(1) })
        let six = try await collect(service.entities(order(6).navigate("Items")))
        #expect(!six.contains { $0["LineNumber"] == .int(1) })
        let category = try await service.entity(ODataPath("Products").key(.single(.int(3))).navigate("Category"))
        #expect(category["ID"] == .int(4))
    }

    @Test("addLink and removeLink online and offline end the same on the server")
    func sameLinks() async throws {
        let online = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { online.stop() }
        let onlineService = offlineTestService(online.serviceURL)
        try await Self.relink(onlineService)
        try await Self.check(onlineService)

        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let service = offlineTestService(server.serviceURL)
        let folder = try offlineTestFolder("link-seam")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder,
            queries: [
                .init(name: "o", query: "Orders?$expand=Items"), .init(name: "p", query: "Products"),
                .init(name: "c", query: "Categories"),
            ])
        try await store.open()
        try await Self.relink(store)
        // Locally at once.
        let five = try await store.entities(Self.order(5).navigate("Items"), query: ODataQuery())
        #expect(five.contains { $0["OrderID"] == .int(3) && $0["LineNumber"] == .int(1) })
        let six = try await store.entities(Self.order(6).navigate("Items"), query: ODataQuery())
        #expect(!six.contains { $0["LineNumber"] == .int(1) })
        #expect(try await store.entity("Products", .key(.single(.int(3))))["CategoryID"] == .int(4))
        #expect(try await store.requests().map(\.method) == ["LINK", "LINK", "UNLINK"])
        #expect(try await store.upload() == OfflineUploadResult(sent: 3, failed: 0, held: 0))
        try await Self.check(service)
        try await store.close()
    }

    @Test("a link undone before the upload leaves the downloaded entity as it was")
    func undoLink() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let folder = try offlineTestFolder("link-undo")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder, queries: [.init(name: "o", query: "Orders?$expand=Items")])
        try await store.open()
        let before = try await store.entity("Orders", .key(.single(.int(5))))
        try await store.addLink(
            "Orders", .key(.single(.int(5))), navigation: "Items", to: "OrderItems(OrderID=3,LineNumber=1)")
        try await store.undoPendingChanges("Orders", .key(.single(.int(5))))
        let after = try await store.entity("Orders", .key(.single(.int(5))))
        #expect(after["CustomerName"] == before["CustomerName"], "the downloaded order is still there")
        #expect(try await store.requests().isEmpty)
        try await store.close()
    }
}
