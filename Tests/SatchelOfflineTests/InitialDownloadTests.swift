import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelTestSupport
import Testing

/// The offline store against real OData peers on loopback: the initial download, then local reads that must equal
/// the same queries sent to the service, and reads with the service gone.
@Suite("Offline store: initial download and local reads")
struct InitialDownloadTests {
    static let odataPy = Task { try await ODataPyServer.start(maxPageSize: 20, timeout: .seconds(60)) }
    static let mockSAP = Task { try await MockSAPServer.start(.init(csrf: true), timeout: .seconds(60)) }

    static var http: HTTPClient.Configuration { HTTPClient.Configuration(timeout: .seconds(60), retry: .never) }

    static func folder() throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-offline-\(UUID())")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Compares what the store answers with what the service answers, by the entities' properties.
    static func expectSame(
        _ store: OfflineStore, _ service: ODataService, _ set: String, _ query: ODataQuery, keys: [String],
        sourceLocation: SourceLocation = #_sourceLocation
    ) async throws {
        let local = try await store.entities(set, query: query)
        let online = try await service.entities(ODataPath(set), query: query).collect()
        func rows(_ entities: [ODataEntity]) -> [String] {
            entities.map { entity in
                keys.map {
                    "\(entity[$0]?.stringValue ?? entity[$0]?.intValue.map(String.init) ?? entity[$0]?.decimalValue.map { "\($0)" } ?? "nil")"
                }.joined(separator: "|")
            }
        }
        #expect(
            rows(local) == rows(online), "\(set) \((try? query.queryString(for: .v4)) ?? "")",
            sourceLocation: sourceLocation)
        // A query that matches nothing would compare nothing.
        #expect(!online.isEmpty, "\(set): the service finds nothing", sourceLocation: sourceLocation)
    }

    @Test("V4 (odatapy): paged download of every product; filters, order and paging equal the service's")
    func odataPyV4() async throws {
        let server = try await Self.odataPy.value
        let service = ODataService(configuration: .init(serviceURL: server.serviceURL, http: Self.http))
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("shop.store").path
        let store = OfflineStore(
            configuration: .init(
                service: service, path: path,
                definingQueries: [
                    .init(name: "products", query: "Products"),
                    .init(name: "categories", query: "/Categories"),
                    .init(name: "orders", query: "Orders?$filter=ID le 10"),
                ], key: try StoreKey.raw(Data(repeating: 7, count: 32))))
        try await store.open()
        #expect(try await store.isInitialDownloadComplete)
        #expect(try await store.count("Products") == 250)  // 13 pages of 20
        #expect(try await store.count("Orders") == 10)

        let queries: [ODataQuery] = [
            ODataQuery().filter(.property("Price") > .literal(.decimal(50))).orderBy("Price", descending: true),
            ODataQuery().filter(.startsWith(.property("Name"), "Pro") && .property("Stock") >= 10).top(7).skip(3),
            ODataQuery().filter(.contains(.toLower(.property("Name")), "1")).orderBy("Name"),
            ODataQuery().filter(.property("CategoryID").isIn([2, 4]) || .property("ID") == 1),
            ODataQuery().filter(!(.property("Stock") < 5)).orderBy("Stock").orderBy("ID", descending: true).top(15),
            ODataQuery().filter(
                (.property("Price") * 2) > 100
                    && .property("Status")
                        == .literal(.enumMember(type: "Satchel.Shop.ProductStatus", member: "Active"))
            ),
            ODataQuery().filter(
                .property("Modified") >= .literal(.dateTimeOffset(Date(timeIntervalSince1970: 1_767_300_000)))),
            ODataQuery().filter(.year(.property("Modified")) == 2026 && .length(.property("Name")) > 8),
        ]
        for query in queries {
            try await Self.expectSame(store, service, "Products", query, keys: ["ID", "Name", "Price", "Stock"])
        }
        try await Self.expectSame(
            store, service, "Orders",
            // The store holds the orders its defining query names (ID le 10): the same restriction online.
            ODataQuery().filter(.property("ShipTo/City") == "Oxford" && .property("ID") <= 10),
            keys: ["ID", "CustomerName"])

        // Related entities, joined on the referential constraint (in either direction).
        try await Self.expectSame(
            store, service, "Categories",
            ODataQuery().filter(.any("Products", "p", .property("p/Price") > .literal(.decimal(90)))),
            keys: ["ID", "Name"])
        try await Self.expectSame(
            store, service, "Categories",
            ODataQuery().filter(.all("Products", "p", .property("p/Stock") > 3)), keys: ["ID", "Name"])
        let navigation = ODataPath("Categories").key(.single(.int(2))).navigate("Products")
        let filter = ODataQuery().filter(.property("Price") > .literal(.decimal(20))).orderBy("ID")
        let localRelated = try await store.entities(navigation, query: filter)
        let onlineRelated = try await service.entities(navigation, query: filter).collect()
        #expect(localRelated.map { $0["ID"]?.intValue } == onlineRelated.map { $0["ID"]?.intValue })
        #expect(!localRelated.isEmpty)
        let expanded = try await store.entities(
            "Products", query: ODataQuery().filter(.property("ID") <= 3).expand("Category"))
        #expect(expanded.count == 3)
        for product in expanded {
            guard case .entity(let category) = product["Category"] else {
                Issue.record("Category not expanded: \(product)")
                continue
            }
            #expect(category["ID"]?.intValue == product["CategoryID"]?.intValue && category["Name"] != nil)
        }
        let withProducts = try await store.entities(
            "Categories", query: ODataQuery().expand("Products", ODataQuery().filter(.property("Stock") < 10)))
        #expect(!withProducts.isEmpty)
        for category in withProducts {
            let expected = try await store.count(
                "Products",
                query: ODataQuery().filter(
                    .property("CategoryID") == .literal(.int(Int(category["ID"]?.intValue ?? 0)))
                        && .property("Stock") < 10))
            #expect(category["Products"]?.entitiesValue?.count == expected)
        }

        // A complex property comes back whole; the store is encrypted.
        let order = try #require(try await store.entities("Orders", query: ODataQuery().top(1)).first)
        if case .complex(let address) = order["ShipTo"] {
            #expect(address["City"] != nil)
        } else {
            Issue.record("ShipTo is not complex: \(order)")
        }
        #expect(try StoreFile(path: path).info().isEncrypted)
        try await store.close()
    }

    @Test("V2 (mock-sap, CSRF): download, local reads equal online, and reads with the service stopped")
    func mockSAPV2() async throws {
        let server = try await Self.mockSAP.value
        let service = ODataService(
            configuration: .init(
                serviceURL: server.serviceURL("GWSAMPLE_BASIC", namespace: "IWBEP"), sapClient: "100", pageSize: 25,
                http: Self.http, auth: [CSRFTokenAuth()]))
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("gw.store").path
        let configuration = OfflineStore.Configuration(
            service: service, path: path,
            definingQueries: [
                .init(name: "products", query: "ProductSet"),
                .init(name: "partners", query: "BusinessPartnerSet?$filter=BusinessPartnerRole eq '01'"),
            ], key: .passphrase("offline", iterations: 1000))
        let store = OfflineStore(configuration: configuration)
        try await store.open()
        let online = try await service.count("ProductSet")
        #expect(try await store.count("ProductSet") == Int(online))
        for query in [
            ODataQuery().filter(.property("Price") > .literal(.decimal(100))).orderBy("Price", descending: true),
            ODataQuery().filter(.contains(.property("Name"), "Notebook")).orderBy("ProductID"),
            ODataQuery().filter(.property("Category") == "Notebooks" || .property("WeightMeasure") < 1).top(5),
        ] {
            try await Self.expectSame(store, service, "ProductSet", query, keys: ["ProductID", "Name", "Price"])
        }
        let partners = try await store.entities("BusinessPartnerSet")
        #expect(!partners.isEmpty && partners.allSatisfy { $0["BusinessPartnerRole"]?.stringValue == "01" })
        try await store.close()

        // Offline: a service nobody answers; the store opens and reads from disk.
        var unreachable = configuration
        unreachable.service = ODataService(
            configuration: .init(
                serviceURL: URL(string: "http://127.0.0.1:1/sap/opu/odata/IWBEP/GWSAMPLE_BASIC")!, http: Self.http))
        let offline = OfflineStore(configuration: unreachable)
        try await offline.open()
        #expect(try await offline.count("ProductSet") == Int(online))
        try await offline.close()
    }

    @Test("a defining query that names nothing the service has is refused before anything is stored")
    func badDefiningQuery() async throws {
        let server = try await Self.odataPy.value
        let service = ODataService(configuration: .init(serviceURL: server.serviceURL, http: Self.http))
        let folder = try Self.folder()
        defer { try? FileManager.default.removeItem(at: folder) }
        for text in ["Nothing", "Products?$filter=Price gt", "Products?$filter=Colour eq 'red'"] {
            let store = OfflineStore(
                configuration: .init(
                    service: service, path: folder.appendingPathComponent("\(UUID()).store").path,
                    definingQueries: [.init(name: "q", query: text)], key: nil))
            // The store refuses what it can check itself; the service refuses a filter on a property it lacks.
            do {
                try await store.open()
                Issue.record("\(text) was accepted")
            } catch let error as OfflineStoreError {
                #expect(error.code == .invalidDefiningQuery && !text.contains("Colour"), "\(error)")
            } catch let error as ODataError {
                #expect(error.status == 400 && text.contains("Colour"), "\(error)")
            }
        }
    }
}
