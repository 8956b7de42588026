import Foundation
import SatchelHTTP
import SatchelJSON
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelTestSupport
import Testing

/// Entities created offline that other offline changes link to, against odatapy (V4; it assigns category keys):
/// the link goes as the server's key once it is known, or as the creation's Content-ID in one changeset. Checked on
/// the server and in the store.
@Suite("Offline store: links to entities created offline")
struct LinkUploadTests {
    /// A category created offline (no key: the server gives it) and two products linked to it.
    static func createLinked(
        _ store: OfflineStore, products: [Int], options: OfflineChangeOptions
    ) async throws
        -> ODataEntity
    {
        let id = try await store.create(
            "Categories", ODataEntity(properties: ["Name": .string("made offline")]), options: options)
        let category = try await store.entity("Categories", .id(id))
        #expect(category["ID"] == .null, "no key before the upload")
        let link = try #require(category.readLink)
        #expect(link == "Categories(satchel_eid=\(id))")
        for product in products {
            var entity = ODataEntity(properties: ["ID": .int(Int64(product)), "Name": .string("linked \(product)")])
            entity.bind("Category", to: link)
            try await store.create("Products", entity, options: options)
        }
        return category
    }

    /// On the server, each product's Category is the uploaded category (and its CategoryID too when `foreignKey`:
    /// odatapy keeps a link apart from the property, and a `$n` binding sends no property); in the store, the
    /// category has the server's key and its products are found through it.
    static func check(
        _ service: ODataService, _ store: OfflineStore, category: ODataEntity, products: [Int], foreignKey: Bool
    ) async throws {
        let key = try #require(category.offlineEntityID)
        let uploaded = try await store.entity("Categories", .id(key))
        let categoryID = try #require(uploaded["ID"]?.intValue, "the server's key reached the store")
        #expect(categoryID > 5)
        #expect(uploaded.readLink == nil)
        // The read link from before the upload still names it.
        let again = try await store.entity("Categories", .key(ODataKey(["satchel_eid": .int(Int(key))])))
        #expect(again["ID"]?.intValue == categoryID)
        for product in products {
            let path = ODataPath("Products").key(.single(.int(product)))
            let related = try await service.entity(path.navigate("Category"))
            #expect(related["ID"]?.intValue == categoryID, "product \(product)'s category on the server")
            if foreignKey {
                #expect(try await service.entity(path)["CategoryID"]?.intValue == categoryID)
            }
        }
        let local = try await store.entities(
            ODataPath("Categories").key(.single(.int(Int(categoryID)))).navigate("Products"), query: ODataQuery())
        #expect(Set(local.compactMap { $0["ID"]?.intValue }) == Set(products.map(Int64.init)))
        #expect(try await store.requests().isEmpty)
    }

    @Test("a link to a category created offline goes as the server's key, in a later $batch or one by one")
    func serverKeyAfterwards() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let service = offlineTestService(server.serviceURL)
        for (index, mode) in [OfflineUploadMode.batch(maximumRequests: 100), .oneByOne].enumerated() {
            let folder = try offlineTestFolder("links-\(index)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let store = offlineTestStore(
                serviceURL: server.serviceURL, folder: folder,
                queries: [.init(name: "c", query: "Categories"), .init(name: "p", query: "Products")], upload: mode)
            try await store.open()
            let products = [7001 + index * 10, 7002 + index * 10]
            let category = try await Self.createLinked(store, products: products, options: OfflineChangeOptions())
            let result = try await store.upload()
            #expect(result == OfflineUploadResult(sent: 3, failed: 0, held: 0))
            try await Self.check(service, store, category: category, products: products, foreignKey: true)
            try await store.close()
        }
    }

    @Test("in one transaction the link names the creation by its Content-ID")
    func contentIDInOneChangeset() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, repeatable: true, timeout: .seconds(60))
        defer { server.stop() }
        let service = offlineTestService(server.serviceURL)
        let folder = try offlineTestFolder("links-tx")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder,
            queries: [.init(name: "c", query: "Categories"), .init(name: "p", query: "Products")])
        try await store.open()
        let category = try await Self.createLinked(
            store, products: [7101, 7102], options: OfflineChangeOptions(transactionID: "t"))
        let before = try await server.repeatability().applied
        #expect(try await store.upload() == OfflineUploadResult(sent: 3, failed: 0, held: 0))
        #expect(try await server.repeatability().applied == before + 1, "one $batch")
        try await Self.check(service, store, category: category, products: [7101, 7102], foreignKey: false)
        try await store.close()
    }

    @Test("a refused creation holds the requests that link to it; reverted, the link is refused with a reason")
    func refusedTargetHoldsLinks() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let service = offlineTestService(server.serviceURL)
        let folder = try offlineTestFolder("links-held")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder,
            queries: [.init(name: "c", query: "Categories?$filter=ID ne 5"), .init(name: "p", query: "Products")])
        try await store.open()
        // Category 5 exists on the server but not in the store: its creation is refused (409).
        let id = try await store.create("Categories", ODataEntity(properties: ["ID": .int(5), "Name": .string("dup")]))
        var product = ODataEntity(properties: ["ID": .int(7201), "Name": .string("waits")])
        product.bind("Category", to: "Categories(5)")
        try await store.create("Products", product)
        #expect(try await store.upload() == OfflineUploadResult(sent: 0, failed: 1, held: 1))
        await #expect(throws: ODataError.self) { try await service.entity("Products", key: .single(.int(7201))) }
        // Given up: the category goes; the product's link now names nothing and is refused with the reason.
        let refused = try #require(try await store.errors().first)
        #expect(refused.httpStatus == 409 && refused.entityID == id)
        try await store.revert(errorID: refused.errorID)
        #expect(try await store.upload() == OfflineUploadResult(sent: 0, failed: 1, held: 0))
        let orphaned = try #require(try await store.errors().first)
        #expect(orphaned.httpStatus == 424 && orphaned.entitySet == "Products", "\(orphaned)")
        #expect(orphaned.message.contains("Categories"), "\(orphaned.message)")
        await #expect(throws: ODataError.self) { try await service.entity("Products", key: .single(.int(7201))) }

        // A binding to something not in the store is refused at once, with the path in the message.
        var orphan = ODataEntity(properties: ["ID": .int(7202), "Name": .string("orphan")])
        orphan.bind("Category", to: "Categories(999)")
        await #expect(throws: OfflineStoreError.self) { try await store.create("Products", orphan) }
        var wrongSet = ODataEntity(properties: ["ID": .int(7203), "Name": .string("wrong")])
        wrongSet.bind("Category", to: "Products(1)")
        let error = await #expect(throws: OfflineStoreError.self) { try await store.create("Products", wrongSet) }
        #expect(error?.message.contains("Products(1)") == true)
        try await store.close()
    }

    @Test("a link to an entity created after the change it joins waits for that creation, in a batch or a transaction")
    func linkToLaterCreation() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let service = offlineTestService(server.serviceURL)
        for (index, transaction) in [nil, "t"].enumerated() {
            let folder = try offlineTestFolder("links-later-\(index)")
            defer { try? FileManager.default.removeItem(at: folder) }
            let store = offlineTestStore(
                serviceURL: server.serviceURL, folder: folder,
                queries: [.init(name: "c", query: "Categories"), .init(name: "p", query: "Products")])
            try await store.open()
            let options = OfflineChangeOptions(transactionID: transaction)
            let productID = 7301 + index
            // The product first, then its category, then the link: it cannot go in the product's creation.
            try await store.create(
                "Products", ODataEntity(properties: ["ID": .int(Int64(productID)), "Name": .string("first")]),
                options: options)
            let categoryID = try await store.create(
                "Categories", ODataEntity(properties: ["Name": .string("second")]), options: options)
            var link = ODataEntity()
            link.bind("Category", to: "Categories(satchel_eid=\(categoryID))")
            try await store.update("Products", .key(.single(.int(productID))), with: link, options: options)
            #expect(try await store.requests().map(\.method) == ["POST", "POST", "PATCH"])
            #expect(try await store.upload() == OfflineUploadResult(sent: 3, failed: 0, held: 0))
            let category = try await store.entity("Categories", .id(categoryID))
            let online = try await service.entity(
                ODataPath("Products").key(.single(.int(productID))).navigate("Category"))
            #expect(online["ID"] == category["ID"] && online["Name"] == .string("second"))
            try await store.close()
        }
    }

    @Test("a chain waits: a link to an entity whose creation is held is neither sent nor refused")
    func chainWaits() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let folder = try offlineTestFolder("links-chain")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder,
            queries: [
                .init(name: "c", query: "Categories?$filter=ID ne 5"), .init(name: "p", query: "Products"),
                .init(name: "i", query: "OrderItems"),
            ])
        try await store.open()
        // A: refused (category 5 exists on the server). B: a product linked to A. C: an order line linked to B.
        try await store.create("Categories", ODataEntity(properties: ["ID": .int(5), "Name": .string("dup")]))
        var product = ODataEntity(properties: ["ID": .int(7401), "Name": .string("B")])
        product.bind("Category", to: "Categories(5)")
        try await store.create("Products", product)
        var line = ODataEntity(properties: ["OrderID": .int(1), "LineNumber": .int(9), "Quantity": .int(1)])
        line.bind("Product", to: "Products(7401)")
        try await store.create("OrderItems", line)
        // B waits behind A, and C behind B: both are held, every request accounted for.
        #expect(try await store.upload() == OfflineUploadResult(sent: 0, failed: 1, held: 2))
        let errors = try await store.errors()
        #expect(errors.map(\.entitySet) == ["Categories"], "only A is refused: \(errors)")
        #expect(try await store.requests().filter { !$0.failed }.map(\.entitySet) == ["Products", "OrderItems"])
        try await store.close()
    }

    @Test("in a transaction, a target the app gave a key is named by it (the changeset creates it first)")
    func keyedTargetInTransaction() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, repeatable: true, timeout: .seconds(60))
        defer { server.stop() }
        let service = offlineTestService(server.serviceURL)
        let folder = try offlineTestFolder("links-keyed")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder,
            queries: [.init(name: "c", query: "Categories"), .init(name: "p", query: "Products")])
        try await store.open()
        let transaction = OfflineChangeOptions(transactionID: "keyed")
        try await store.create(
            "Categories", ODataEntity(properties: ["ID": .int(77), "Name": .string("seventy-seven")]),
            options: transaction)
        var product = ODataEntity(properties: ["ID": .int(7501), "Name": .string("in 77")])
        product.bind("Category", to: "Categories(77)")
        try await store.create("Products", product, options: transaction)
        #expect(try await store.entity("Products", .key(.single(.int(7501))))["CategoryID"] == .int(77))
        let before = try await server.repeatability().applied
        #expect(try await store.upload() == OfflineUploadResult(sent: 2, failed: 0, held: 0))
        #expect(try await server.repeatability().applied == before + 1, "one $batch")
        let online = try await service.entity("Products", key: .single(.int(7501)))
        #expect(online["CategoryID"] == .int(77), "the foreign key went with the binding")
        let related = try await service.entity(ODataPath("Products").key(.single(.int(7501))).navigate("Category"))
        #expect(related["ID"] == .int(77))
        try await store.close()
    }

    @Test("V2 (mock-sap): a transaction linking to an entity created in it without a key is refused, with why")
    func v2TransactionLinkRefused() async throws {
        let server = try await MockSAPServer.start(.init(csrf: true), timeout: .seconds(60))
        defer { server.stop() }
        let url = server.serviceURL("API_SALES_ORDER_SRV")
        let service = ODataService(
            configuration: .init(
                serviceURL: url, sapClient: "100",
                http: HTTPClient.Configuration(timeout: .seconds(30), retry: .never), auth: [CSRFTokenAuth()]))
        let folder = try offlineTestFolder("links-v2")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = OfflineStore(
            configuration: .init(
                service: service, path: folder.appendingPathComponent("so.store").path,
                definingQueries: [
                    .init(name: "orders", query: "A_SalesOrder?$top=5"),
                    .init(name: "items", query: "A_SalesOrderItem?$top=5"),
                ], key: StoreKey.random()))
        try await store.open()
        let before = try await service.count("A_SalesOrder")
        let transaction = OfflineChangeOptions(transactionID: "order")
        let order = try await store.create(
            "A_SalesOrder", ODataEntity(properties: ["SalesOrderType": .string("OR")]), options: transaction)
        var item = ODataEntity(properties: ["Material": .string("TG11"), "RequestedQuantity": .decimal(1)])
        item.bind("to_SalesOrder", to: "A_SalesOrder(satchel_eid=\(order))")
        try await store.create("A_SalesOrderItem", item, options: transaction)
        #expect(try await store.upload() == OfflineUploadResult(sent: 0, failed: 2, held: 0))
        let errors = try await store.errors()
        #expect(errors.count == 2)
        #expect(errors.contains { $0.message.contains("OData V2 cannot link") }, "\(errors.map(\.message))")
        #expect(try await service.count("A_SalesOrder") == before, "nothing reached the service")
        try await store.close()
    }
}
