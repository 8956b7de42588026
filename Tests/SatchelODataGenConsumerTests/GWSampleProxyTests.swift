import Foundation
import SatchelHTTP
import SatchelOData
import SatchelTestSupport
import Testing

// The types used here are generated at build time by SatchelODataGenPlugin from gwsample-basic.odata.xml and
// mock-sap-v4-salesorder.odata.xml (mock-sap's own $metadata, saved); the tests run them against mock-sap.

@Suite("Generated V2 proxies against mock-sap GWSAMPLE_BASIC", .serialized)
struct GWSampleProxyTests {
    static func api(_ server: MockSAPServer) -> GWSAMPLEBASICEntitiesService {
        var configuration = ODataService.Configuration(
            serviceURL: server.serviceURL("GWSAMPLE_BASIC", namespace: "IWBEP"))
        configuration.auth = [CSRFTokenAuth()]
        return GWSAMPLEBASICEntitiesService(service: ODataService(configuration: configuration))
    }

    @Test func typedFieldsRenderTypedLiterals() throws {
        let query = ODataQuery().filter(
            Product.Fields.price > 10 && Product.Fields.category == "Notebooks"
                && Product.Fields.taxTarifCode != 2)
        let text = try query.queryString(for: .v2).removingPercentEncoding ?? ""
        #expect(text.contains("Price gt 10M and Category eq 'Notebooks' and TaxTarifCode ne 2"), "\(text)")
        #expect(
            try ODataQuery().filter(Product.Fields.name.startsWith("Note")).queryString(for: .v2)
                .contains("startswith(Name,'Note')"))
        #expect(Product.Key(productID: "HT-1000").odataKey.predicate(for: .v2) == "('HT-1000')")
    }

    @Test func listsWithTypedFilterGetsByKeyAndNavigates() async throws {
        let server = try await MockSAPServer.start()
        defer { server.stop() }
        let api = Self.api(server)
        let query = ODataQuery().filter(Product.Fields.price > 1000 && Product.Fields.currencyCode == "EUR")
            .orderBy(Product.Fields.price.ordering())
        let expensive = try await api.productSet.all(query)
        #expect(!expensive.isEmpty)
        #expect(expensive.allSatisfy { ($0.price ?? 0) > 1000 && $0.currencyCode == "EUR" })
        #expect(expensive.map { $0.price ?? 0 } == expensive.map { $0.price ?? 0 }.sorted())
        let all = try await api.productSet.all()
        let count = try await api.productSet.count()
        #expect(Int64(all.count) == count)
        #expect(all.count > expensive.count)

        let first = try #require(expensive.first)
        let fetched = try await api.productSet.get(first.entityKey)
        #expect(fetched == first)
        let supplier = try await api.productSet[first.entityKey].toSupplier.get()
        #expect(supplier.businessPartnerID == first.supplierID)
        #expect(supplier.createdAt != nil, "V2 /Date(…)/ decodes as Date")
        let orders = try await api.businessPartnerSet[supplier.entityKey].toSalesOrders.all()
        #expect(orders.allSatisfy { $0.customerID == supplier.businessPartnerID })
    }

    @Test func createsUpdatesAndDeletes() async throws {
        let server = try await MockSAPServer.start()
        defer { server.stop() }
        let api = Self.api(server)
        let key = Product.Key(productID: "SATCHEL-01")
        let product = Product(
            productID: key.productID, typeCode: "PR", category: "Notebooks", name: "Satchel Book",
            supplierID: "0100000005", taxTarifCode: 1, measureUnit: "EA", currencyCode: "EUR", price: 12.5)
        let created = try await api.productSet.create(product)
        #expect(created?.productID == key.productID && created?.price == 12.5 && created?.name == "Satchel Book")

        try await api.productSet.update(key, with: Product(productID: key.productID, name: "Satchel Book 2"))
        let updated = try await api.productSet.get(key)
        #expect(updated.name == "Satchel Book 2" && updated.price == 12.5, "merge leaves unset properties alone")

        try await api.productSet.delete(key)
        let error = await #expect(throws: ODataError.self) { try await api.productSet.get(key) }
        #expect(error?.status == 404)
    }
}

@Suite("Generated V4 proxies against mock-sap api_salesorder", .serialized)
struct SalesOrderV4ProxyTests {
    @Test func listsWithTypedFilterAndGetsByKey() async throws {
        let server = try await MockSAPServer.start()
        defer { server.stop() }
        var configuration = ODataService.Configuration(serviceURL: server.v4ServiceURL("api_salesorder"))
        configuration.auth = [CSRFTokenAuth()]
        let api = ApiSalesorderContainerService(service: ODataService(configuration: configuration))

        let query = ODataQuery().filter(SalesOrderType.Fields.totalNetAmount > 1000).top(5)
        #expect(try query.queryString(for: .v4).contains("TotalNetAmount%20gt%201000"))
        let orders = try await api.salesOrder.all(query)
        #expect(!orders.isEmpty && orders.count <= 5)
        #expect(orders.allSatisfy { ($0.totalNetAmount ?? 0) > 1000 })
        let first = try #require(orders.first)
        let fetched = try await api.salesOrder.get(first.entityKey)
        #expect(fetched == first)
        let items = try await api.salesOrder[first.entityKey].toItem.all()
        #expect(items.allSatisfy { $0.salesOrder == first.salesOrder })
    }
}
