import Foundation
import SatchelHTTP
import SatchelOData
import SatchelTestSupport
import Testing

/// SatchelOData against mock-sap's V4 sales order service (`api_salesorder`): metadata, count, query options,
/// nested expand options, composite keys, writes with ETags and CSRF, delta, and the options it refuses.
@Suite("Live: mock-sap V4", .serialized)
struct MockSAPV4Tests {
    static func salesOrders(pageSize: Int? = nil) async throws -> ODataService {
        LivePeers.sapV4(try await LivePeers.mockSAP.value, "api_salesorder", pageSize: pageSize)
    }

    @Test(
        "$metadata parses without warnings",
        arguments: [
            "api_salesorder", "api_product", "api_purchaseorder", "api_businesspartner",
        ])
    func metadata(name: String) async throws {
        let service = LivePeers.sapV4(try await LivePeers.mockSAP.value, name)
        let metadata = try await service.metadata()
        #expect(metadata.version == .v4)
        #expect(metadata.diagnostics.filter { $0.severity == .warning } == [])
        for set in metadata.entitySets {
            let type = try #require(metadata.entityType(ofSet: set.name))
            #expect(!metadata.key(of: type).isEmpty)
        }
    }

    @Test func readCountFilterExpand() async throws {
        let service = try await Self.salesOrders(pageSize: 5)
        let total = try await service.count("SalesOrder")
        // mock-sap does not page V4 collections itself; the sequence still reads them whole.
        let all = try await service.entities("SalesOrder", query: ODataQuery().select("SalesOrder")).collect()
        #expect(Int64(all.count) == total)
        #expect(all.allSatisfy { $0.etag != nil })
        let query = ODataQuery().filter(.property("TotalNetAmount") > .literal(.decimal(1000)))
            .select("SalesOrder", "TotalNetAmount", "SalesOrderDate").orderBy("TotalNetAmount").count()
        let page = try await service.page("SalesOrder", query: query)
        #expect(page.count == Int64(page.entities.count))
        let amounts = page.entities.compactMap { $0["TotalNetAmount"]?.decimalValue }
        #expect(amounts.count == page.entities.count)
        #expect(amounts == amounts.sorted())
        #expect(amounts.allSatisfy { $0 > 1000 })
        #expect(page.entities.allSatisfy { $0["SalesOrderDate"]?.dateValue != nil })
        // Expand with nested options (V4 syntax: `;` inside the parentheses).
        let first = try #require(all.first?["SalesOrder"]?.stringValue)
        let order = try await service.entity(
            "SalesOrder", key: .single(.string(first)),
            query: ODataQuery().select("SalesOrder").expand(
                "to_Item", ODataQuery().select("SalesOrderItem", "Material").top(2)))
        let items = try #require(order["to_Item"]?.entitiesValue)
        #expect((1...2).contains(items.count))
        #expect(
            items.allSatisfy { Set($0.properties.names).isSubset(of: ["SalesOrder", "SalesOrderItem", "Material"]) })
        // Composite key.
        let item = try #require(items.first?["SalesOrderItem"]?.stringValue)
        let key: ODataKey = ["SalesOrder": .string(first), "SalesOrderItem": .string(item)]
        let byKey = try await service.entity("SalesOrderItem", key: key)
        #expect(byKey["Material"] == items.first?["Material"])
        if case .decimal = byKey["RequestedQuantity"] {} else { Issue.record("RequestedQuantity is not Decimal") }
        // To-one: expanded. (mock-sap 0.22.0 answers the navigation path `SalesOrderItem(…)/to_SalesOrder` of its V4
        // services in V2's `{"d": {…}}` envelope, which SatchelOData reads as an entity with a property `d`.)
        let withHeader = try await service.entity(
            "SalesOrderItem", key: key, query: ODataQuery().expand("to_SalesOrder", ODataQuery().select("SalesOrder")))
        #expect(withHeader["to_SalesOrder"]?.entityValue?["SalesOrder"]?.stringValue == first)
        let navigated = try await service.entity(ODataPath("SalesOrderItem").key(key).navigate("to_SalesOrder"))
        #expect(navigated["SalesOrder"] == nil && navigated["d"] != nil, "mock-sap fixed its V4 navigation envelope?")
    }

    @Test func refusedOptionsAreClearErrors() async throws {
        let service = try await Self.salesOrders()
        // mock-sap refuses lambdas and nested $expand; the refusal is read into the error.
        let lambda = await LivePeers.odataError {
            _ = try await service.page(
                "SalesOrder",
                query: ODataQuery().filter(
                    .any("to_Item", "i", .property("i/RequestedQuantity") > .literal(.decimal(10)))))
        }
        #expect(lambda?.code == .badRequest)
        #expect(lambda?.message.contains("$filter") == true)
        #expect(lambda?.serviceCode == "/IWBEP/CX_MGW_BUSI_EXCEPTION")
        #expect(lambda?.details.isEmpty == false)
        #expect(lambda?.target == nil)
        let nested = await LivePeers.odataError {
            _ = try await service.page(
                "SalesOrder", query: ODataQuery().top(1).expand("to_Item", ODataQuery().expand("to_PricingElement")))
        }
        #expect(nested?.code == .badRequest)
        #expect(nested?.message.contains("$expand") == true)
    }

    @Test func writesWithETagsAndDelta() async throws {
        let service = try await Self.salesOrders()
        let start = try await service.trackChanges("SalesOrder", query: ODataQuery().select("SalesOrder"))
        let link = try #require(start.deltaLink)
        #expect(link.contains("$deltatoken="))

        var order = ODataEntity(properties: [
            "SalesOrderType": "OR", "SalesOrganization": "1010", "DistributionChannel": "10",
            "OrganizationDivision": "00", "SoldToParty": "1000001", "PurchaseOrderByCustomer": "SATCHEL-V4",
        ])
        order["to_Item"] = .entities([ODataEntity(properties: ["Material": "TG11", "RequestedQuantity": .decimal(2)])])
        let created = try await service.create("SalesOrder", order)
        let id = try #require(created.entity?["SalesOrder"]?.stringValue)
        let firstETag = try #require(created.etag)
        let path = ODataPath("SalesOrder").key(.single(.string(id)))
        let items = try await service.entities(path.navigate("to_Item")).collect()
        #expect(items.count == 1)
        #expect(items.first?["Material"]?.stringValue == "TG11")

        try await Task.sleep(for: .milliseconds(20))
        let patched = try await service.update(
            path, with: ODataEntity(properties: ["PurchaseOrderByCustomer": "PATCHED"]), ifMatch: firstETag)
        let afterPatch = try await service.entity(path)
        #expect(afterPatch["PurchaseOrderByCustomer"]?.stringValue == "PATCHED")
        let secondETag = try #require(patched.etag ?? afterPatch.etag)
        #expect(secondETag != firstETag)
        let stale = await LivePeers.odataError {
            try await service.update(
                path, with: ODataEntity(properties: ["PurchaseOrderByCustomer": "STALE"]), ifMatch: firstETag)
        }
        #expect(stale?.code == .preconditionFailed)
        #expect(stale?.method == .patch)

        // A second order, deleted: the delta lists the first as changed and the second as removed.
        let doomed = try await service.create(
            "SalesOrder",
            ODataEntity(properties: [
                "SalesOrderType": "OR", "SalesOrganization": "1010", "DistributionChannel": "10",
                "OrganizationDivision": "00", "SoldToParty": "1000001", "PurchaseOrderByCustomer": "DOOMED",
            ]))
        let doomedID = try #require(doomed.entity?["SalesOrder"]?.stringValue)
        try await service.delete(ODataPath("SalesOrder").key(.single(.string(doomedID))), ifMatch: doomed.etag)
        let delta = try await service.changes(since: link, entitySet: "SalesOrder")
        #expect(delta.changed.contains { $0["SalesOrder"]?.stringValue == id })
        let removed = try #require(delta.removed.first { $0.id?.contains(doomedID) == true })
        #expect(removed.removed?.reason == "deleted")
        #expect(delta.deltaLink?.contains("$deltatoken=") == true)

        try await service.delete(path, ifMatch: afterPatch.etag)
        #expect(await LivePeers.odataError { _ = try await service.entity(path) }?.code == .notFound)
    }
}
