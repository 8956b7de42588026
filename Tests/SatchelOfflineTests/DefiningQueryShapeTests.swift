import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelTestSupport
import Testing

/// `$select` and `$expand` inside defining queries, against odatapy (V4): entities brought by `$expand` land in their
/// own set's table, navigations without a referential constraint (Orders/Items, OrderItems/Order) are read locally
/// through the links the download stored, and queries selecting different properties of one set keep each other's
/// columns. Compared with the same reads sent online.
@Suite("Offline store: $select and $expand in defining queries")
struct DefiningQueryShapeTests {
    static func keys(_ entities: [ODataEntity], _ names: String...) -> Set<String> {
        Set(entities.map { entity in names.map { entity[$0].map { "\($0)" } ?? "-" }.joined(separator: "/") })
    }

    @Test("Orders?$expand=Items stores the items and their links; two $select queries keep both columns")
    func expandAndSelect() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let service = offlineTestService(server.serviceURL)
        let folder = try offlineTestFolder("shape")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder,
            queries: [
                .init(
                    name: "orders", query: "Orders?$filter=ID le 10&$expand=Items($select=OrderID,LineNumber,Quantity)"),
                .init(name: "names", query: "Products?$select=ID,Name"),
                .init(name: "prices", query: "Products?$filter=ID le 10&$select=ID,Price"),
            ])
        try await store.open()

        // The items came with their orders (only those of orders 1…10), with the selected properties only.
        let onlineItems = try await collect(
            service.entities("OrderItems", query: ODataQuery().filter(.property("OrderID") <= 10)))
        let localItems = try await store.entities("OrderItems")
        #expect(Self.keys(localItems, "OrderID", "LineNumber") == Self.keys(onlineItems, "OrderID", "LineNumber"))
        #expect(localItems.allSatisfy { $0["ProductID"] == .null && $0["Quantity"] != .null })

        // Orders(3)/Items has no referential constraint: answered from the links.
        let path = ODataPath("Orders").key(.single(.int(3))).navigate("Items")
        let online = try await collect(service.entities(path))
        let local = try await store.entities(path, query: ODataQuery())
        #expect(!local.isEmpty)
        #expect(Self.keys(local, "OrderID", "LineNumber") == Self.keys(online, "OrderID", "LineNumber"))
        // And back through the partner: OrderItems(3,1)/Order.
        let back = try await store.entities(
            ODataPath("OrderItems").key(ODataKey(["OrderID": .int(3), "LineNumber": .int(1)])).navigate("Order"),
            query: ODataQuery())
        #expect(back.map { $0["ID"] } == [.int(3)])
        // $expand and any() over the links, as online.
        let expanded = try await store.entities("Orders", query: ODataQuery().expand("Items"))
        #expect(expanded.count == 10)
        for order in expanded {
            let id = try #require(order["ID"]?.intValue)
            let items = order["Items"]?.entitiesValue ?? []
            #expect(items.allSatisfy { $0["OrderID"]?.intValue == id } && !items.isEmpty, "order \(id)")
        }
        let filter = try ODataExpression.parse("Items/any(i: i/Quantity ge 6)", version: .v4)
        let onlineCount = try await service.count(
            "Orders", query: ODataQuery().filter(filter).filter(.property("ID") <= 10))
        let localCount = try await store.count("Orders", query: ODataQuery().filter(filter))
        #expect(localCount == Int(onlineCount) && localCount > 0)

        // Two queries select different properties of Products: a product both bring has both.
        let five = try await store.entity("Products", .key(.single(.int(5))))
        let fiveOnline = try await service.entity("Products", key: .single(.int(5)))
        #expect(five["Name"] == fiveOnline["Name"] && five["Price"] == fiveOnline["Price"])
        #expect(five["Stock"] == .null, "not selected by either query")
        let fifty = try await store.entity("Products", .key(.single(.int(50))))
        #expect(fifty["Name"] != .null && fifty["Price"] == .null)

        // A line taken off its order on the server leaves the order (and the store: no query brings it now) at the
        // next download.
        try await service.removeLink(
            from: ODataPath("Orders").key(.single(.int(3))), navigation: "Items",
            to: ODataPath("OrderItems").key(ODataKey(["OrderID": .int(3), "LineNumber": .int(1)])))
        try await store.download()
        let onlineAfter = try await collect(service.entities(path))
        #expect(onlineAfter.count == online.count - 1, "\(Self.keys(onlineAfter, "LineNumber"))")
        let after = try await store.entities(path, query: ODataQuery())
        #expect(after.count == local.count - 1)
        #expect(!Self.keys(after, "LineNumber").contains("1"))
        #expect(try await store.count("OrderItems") == localItems.count - 1)
        try await store.close()
    }

    @Test("a defining query naming an unknown navigation or property is refused before anything is stored")
    func badShape() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        for (index, query) in ["Orders?$expand=Nothing", "Products?$select=ID,Nope", "Orders?$expand=Items/Nothing"]
            .enumerated()
        {
            let folder = try offlineTestFolder("shape-bad-\(index)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let store = offlineTestStore(
                serviceURL: server.serviceURL, folder: folder, queries: [.init(name: "q", query: query)])
            let error = await #expect(throws: OfflineStoreError.self) { try await store.open() }
            #expect(error?.message.contains("defining query q") == true, "\(String(describing: error))")
            #expect(!store.isOpen)
        }
    }

    @Test("with track_deltas ALWAYS, links added and removed on the server arrive as $link and $deletedLink")
    func linkDeltas() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let service = offlineTestService(server.serviceURL)
        let folder = try offlineTestFolder("shape-links")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder,
            queries: [
                .init(name: "orders", query: "Orders?$filter=ID le 10&$expand=Items", deltaTracking: .always),
                .init(name: "products", query: "Products?$filter=ID le 20"),
            ])
        try await store.open()
        func items(_ order: Int) -> ODataPath { ODataPath("Orders").key(.single(.int(order))).navigate("Items") }
        let line = ODataPath("OrderItems").key(ODataKey(["OrderID": .int(3), "LineNumber": .int(1)]))
        #expect(try await store.entities(items(3), query: ODataQuery()).count == 4)

        // The line moves from order 3 to order 4; order 15 (not in the store) gets a line too.
        try await service.removeLink(from: ODataPath("Orders").key(.single(.int(3))), navigation: "Items", to: line)
        try await service.addLink(from: ODataPath("Orders").key(.single(.int(4))), navigation: "Items", to: line)
        try await service.addLink(
            from: ODataPath("Orders").key(.single(.int(15))), navigation: "Items",
            to: ODataPath("OrderItems").key(ODataKey(["OrderID": .int(4), "LineNumber": .int(1)])))
        // Product 3 moves to category 4. The service keeps the link apart from CategoryID (odatapy does), so only
        // the delta's `$link` (sent before the `$deletedLink` of category 3) can tell the store.
        let before = try await service.page(ODataPath("Products"), query: ODataQuery().top(1), trackingChanges: true)
        try await service.addLink(
            from: ODataPath("Products").key(.single(.int(3))), navigation: "Category",
            to: ODataPath("Categories").key(.single(.int(4))), replace: true)
        let delta = try await service.page(link: try #require(before.deltaLink), entitySet: "Products")
        #expect(delta.linkChanges.contains { $0.relationship == "Category" && !$0.removed }, "\(delta.linkChanges)")
        try await store.download()
        let moved = try await store.entity("Products", .key(.single(.int(3))))
        #expect(moved["CategoryID"] == .int(4), "\(moved) \(delta.linkChanges) \(delta.entities.map(\.properties))")
        #expect(
            try await service.entity(ODataPath("Products").key(.single(.int(3))).navigate("Category"))["ID"] == .int(4))
        for order in [3, 4] {
            let online = try await collect(service.entities(items(order)))
            let local = try await store.entities(items(order), query: ODataQuery())
            #expect(
                Self.keys(local, "OrderID", "LineNumber") == Self.keys(online, "OrderID", "LineNumber"),
                "order \(order)")
        }
        #expect(try await store.entities(items(4), query: ODataQuery()).contains { $0["OrderID"] == .int(3) })
        try await store.close()
    }
}
