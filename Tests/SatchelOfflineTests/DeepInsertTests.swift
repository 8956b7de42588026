import Foundation
import SatchelOData
import SatchelOffline
import SatchelTestSupport
import Testing

/// Deep insert offline, against odatapy (V4): an entity created with related entities inline goes up as one request,
/// as online; the related entities are readable at once, changes to them before the upload go with it, and a refused
/// deep insert reverted leaves none of them behind. Checked on the server.
@Suite("Offline store: deep insert")
struct DeepInsertTests {
    static func line(_ order: Int, _ number: Int, quantity: Int64) -> ODataEntity {
        ODataEntity(properties: [
            "OrderID": .int(Int64(order)), "LineNumber": .int(Int64(number)), "Quantity": .int(quantity),
        ])
    }

    @Test("an order with its lines, a category with its products: one request each, the server has them all")
    func deepInsert() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let service = offlineTestService(server.serviceURL)
        let folder = try offlineTestFolder("deep")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder,
            queries: [
                .init(name: "o", query: "Orders?$expand=Items"), .init(name: "c", query: "Categories"),
                .init(name: "p", query: "Products"),
            ])
        try await store.open()

        var order = ODataEntity(properties: ["ID": .int(901), "CustomerName": .string("deep")])
        order["Items"] = .entities([Self.line(901, 1, quantity: 2), Self.line(901, 2, quantity: 3)])
        try await store.create("Orders", order)
        let items = ODataPath("Orders").key(.single(.int(901))).navigate("Items")
        #expect(try await store.entities(items, query: ODataQuery()).count == 2, "readable at once")
        // Changed before the upload: it goes with the creation, no request of its own.
        try await store.update(
            "OrderItems", .key(ODataKey(["OrderID": .int(901), "LineNumber": .int(2)])),
            with: ODataEntity(properties: ["Quantity": .int(7)]))

        var category = ODataEntity(properties: ["Name": .string("deep category")])
        category["Products"] = .entities([
            ODataEntity(properties: ["ID": .int(7901), "Name": .string("first")]),
            ODataEntity(properties: ["ID": .int(7902), "Name": .string("second")]),
        ])
        let categoryID = try await store.create("Categories", category)
        #expect(try await store.requests().map(\.method) == ["POST", "POST"])

        #expect(try await store.upload() == OfflineUploadResult(sent: 2, failed: 0, held: 0))
        let online = try await collect(service.entities(items))
        #expect(online.count == 2)
        #expect(online.first { $0["LineNumber"] == .int(2) }?["Quantity"] == .int(7))
        let uploaded = try await store.entity("Categories", .id(categoryID))
        // odatapy keeps the link on the category's side (it does not mirror it into the products' Category).
        let categoryPath = ODataPath("Categories").key(.single(.int(Int(uploaded["ID"]?.intValue ?? 0))))
        let onlineProducts = try await collect(service.entities(categoryPath.navigate("Products")))
        #expect(Set(onlineProducts.compactMap { $0["ID"]?.intValue }) == [7901, 7902])
        // Locally the products now carry the category's key from the server.
        let local = try await store.entities(
            ODataPath("Categories").key(.single(.int(Int(uploaded["ID"]?.intValue ?? 0)))).navigate("Products"),
            query: ODataQuery())
        #expect(Set(local.compactMap { $0["ID"]?.intValue }) == [7901, 7902])
        try await store.close()
    }

    @Test("a refused deep insert reverted leaves none of its related entities")
    func refusedAndReverted() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let folder = try offlineTestFolder("deep-revert")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder,
            queries: [
                .init(name: "o", query: "Orders?$filter=ID gt 1"),
                .init(name: "i", query: "OrderItems?$filter=OrderID gt 1"),
            ])
        try await store.open()
        // Order 1 exists on the server (not in the store): the creation is refused.
        var order = ODataEntity(properties: ["ID": .int(1), "CustomerName": .string("again")])
        order["Items"] = .entities([Self.line(1, 99, quantity: 1)])
        try await store.create("Orders", order)
        let line = OfflineStore.EntityReference.key(ODataKey(["OrderID": .int(1), "LineNumber": .int(99)]))
        _ = try await store.entity("OrderItems", line)
        #expect(try await store.upload() == OfflineUploadResult(sent: 0, failed: 1, held: 0))
        let error = try #require(try await store.errors().first)
        try await store.revert(errorID: error.errorID)
        await #expect(throws: OfflineStoreError.self) { try await store.entity("OrderItems", line) }
        #expect(try await store.requests().isEmpty)
        // Deeper than one level is refused with why.
        var nested = ODataEntity(properties: ["ID": .int(902)])
        var item = Self.line(902, 1, quantity: 1)
        item["Product"] = .entity(ODataEntity(properties: ["ID": .int(7999), "Name": .string("too deep")]))
        nested["Items"] = .entities([item])
        let refused = await #expect(throws: OfflineStoreError.self) { try await store.create("Orders", nested) }
        #expect(refused?.message.contains("one level") == true)
        try await store.close()
    }
}
