import Foundation
import SatchelHTTP
import SatchelJSON
import SatchelOData
import SatchelTestSupport
import Testing

/// SatchelOData against mock-sap's SAP Gateway style V2 services (GWSAMPLE_BASIC, API_BUSINESS_PARTNER_SRV), over
/// real sockets: metadata, paging, query options, keys, navigation, writes with ETags and CSRF, delta, errors.
@Suite("Live: mock-sap V2", .serialized)
struct MockSAPV2Tests {
    static func gateway(
        pageSize: Int? = nil, auth: [any HTTPAuthProvider] = [CSRFTokenAuth()]
    ) async throws
        -> ODataService
    {
        LivePeers.sapV2(
            try await LivePeers.mockSAP.value, "GWSAMPLE_BASIC", namespace: "IWBEP", pageSize: pageSize, auth: auth)
    }

    static func partners() async throws -> ODataService {
        LivePeers.sapV2(try await LivePeers.mockSAP.value, "API_BUSINESS_PARTNER_SRV")
    }

    @Test(
        "$metadata parses without warnings",
        arguments: [
            ("IWBEP", "GWSAMPLE_BASIC"), ("sap", "API_BUSINESS_PARTNER_SRV"), ("sap", "API_SALES_ORDER_SRV"),
            ("sap", "API_PRODUCT_SRV"),
        ])
    func metadata(namespace: String, name: String) async throws {
        let service = LivePeers.sapV2(try await LivePeers.mockSAP.value, name, namespace: namespace)
        let metadata = try await service.metadata()
        #expect(metadata.version == .v2)
        #expect(metadata.diagnostics.filter { $0.severity == .warning } == [])
        #expect(!metadata.entitySets.isEmpty)
        for set in metadata.entitySets {
            let type = try #require(metadata.entityType(ofSet: set.name), "entity set \(set.name) has no type")
            #expect(!metadata.key(of: type).isEmpty, "\(type.name) has no key")
            for navigation in metadata.allNavigationProperties(of: type) {
                #expect(
                    metadata.entityType(named: navigation.type.name) != nil,
                    "\(type.name)/\(navigation.name) → \(navigation.type.name) unresolved")
            }
        }
    }

    @Test func gatewayModelShape() async throws {
        let metadata = try await Self.gateway().metadata()
        let item = try #require(metadata.entityType(ofSet: "SalesOrderLineItemSet"))
        #expect(metadata.key(of: item) == ["SalesOrderID", "ItemPosition"])
        let order = try #require(metadata.entityType(ofSet: "SalesOrderSet"))
        let lines = try #require(metadata.allNavigationProperties(of: order).first { $0.name == "ToLineItems" })
        #expect(lines.type.isCollection)
        #expect(metadata.entityType(named: lines.type.name)?.name == "SalesOrderLineItem")
        // GWSAMPLE_BASIC models ToLineItems and ToHeader with two separate associations, so they are no partners.
        #expect(lines.partner == nil)
        #expect(lines.relationship == "GWSAMPLE_BASIC.assoc_SalesOrder_ToLineItems")
        let gross = try #require(order.properties.first { $0.name == "GrossAmount" })
        #expect(gross.type.primitive == .decimal)
        #expect(order.properties.first { $0.name == "ChangedAt" }?.isConcurrencyToken == true)
    }

    @Test func clientPagingReadsEverything() async throws {
        let service = try await Self.gateway(pageSize: 4)
        var pages = 0
        var keys: [String] = []
        for try await page in service.pages("SalesOrderLineItemSet") {
            pages += 1
            #expect(page.entities.count <= 4)
            keys += page.entities.map {
                ($0["SalesOrderID"]?.stringValue ?? "?") + "/" + ($0["ItemPosition"]?.stringValue ?? "?")
            }
        }
        let total = try await service.count("SalesOrderLineItemSet")
        #expect(total > 8)
        #expect(Int64(keys.count) == total)
        #expect(Set(keys).count == keys.count, "a page repeated entities")
        #expect(pages >= Int(total + 3) / 4)
        // The sequence stops when the caller stops: only as many pages as needed are fetched.
        var firstFive: [ODataEntity] = []
        for try await line in service.entities("SalesOrderLineItemSet") {
            firstFive.append(line)
            if firstFive.count == 5 { break }
        }
        #expect(firstFive.count == 5)
    }

    @Test func filterSelectOrderByCount() async throws {
        let service = try await Self.gateway()
        let query = ODataQuery()
            .filter(.property("Price") > .literal(.decimal(100)) && .property("Category") != "Nonexistent")
            .select("ProductID", "Name", "Price").orderBy("Price", descending: true).count()
        let page = try await service.page("ProductSet", query: query)
        let prices = page.entities.compactMap { $0["Price"]?.decimalValue }
        #expect(!prices.isEmpty)
        #expect(prices.count == page.entities.count)
        #expect(prices == prices.sorted(by: >))
        #expect(prices.allSatisfy { $0 > 100 })
        #expect(page.count == Int64(page.entities.count))
        #expect(try await service.count("ProductSet", query: query) == Int64(page.entities.count))
        for product in page.entities {
            #expect(Set(product.properties.names).isSubset(of: ["ProductID", "Name", "Price"]))
            if case .decimal = product["Price"] {} else { Issue.record("Price is not typed Decimal: \(product)") }
        }
        // contains → substringof in V2; top/skip
        let notebooks = try await service.entities(
            "ProductSet", query: ODataQuery().filter(.contains(.property("Name"), "Notebook")).orderBy("ProductID")
        ).collect()
        #expect(!notebooks.isEmpty)
        #expect(notebooks.allSatisfy { $0["Name"]?.stringValue?.contains("Notebook") == true })
        let all = try await service.entities("ProductSet", query: ODataQuery().orderBy("ProductID")).collect()
        let second = try await service.page("ProductSet", query: ODataQuery().orderBy("ProductID").skip(1).top(2))
        #expect(second.entities.map { $0["ProductID"] } == Array(all.dropFirst().prefix(2)).map { $0["ProductID"] })
    }

    @Test func expandKeysAndNavigation() async throws {
        let service = try await Self.gateway()
        let first = try #require(
            try await service.page("SalesOrderSet", query: ODataQuery().orderBy("SalesOrderID").top(1)).entities.first)
        let orderID = try #require(first["SalesOrderID"]?.stringValue)
        let order = try await service.entity(
            "SalesOrderSet", key: .single(.string(orderID)), query: ODataQuery().expand("ToLineItems"))
        #expect(order.etag != nil)
        let expanded = try #require(order["ToLineItems"]?.entitiesValue)
        #expect(!expanded.isEmpty)
        #expect(expanded.allSatisfy { $0["SalesOrderID"]?.stringValue == orderID })
        // The same lines by navigation.
        let navigated = try await service.entities(
            ODataPath("SalesOrderSet").key(.single(.string(orderID)))
                .navigate("ToLineItems")
        ).collect()
        #expect(navigated.map { $0["ItemPosition"] } == expanded.map { $0["ItemPosition"] })
        // A line by its composite key equals the line in the collection, typed (Decimal, DateTime).
        let line = try #require(navigated.first)
        let position = try #require(line["ItemPosition"]?.stringValue)
        let key: ODataKey = ["SalesOrderID": .string(orderID), "ItemPosition": .string(position)]
        let byKey = try await service.entity("SalesOrderLineItemSet", key: key)
        #expect(byKey.properties == line.properties)
        if case .decimal = byKey["Quantity"] {
        } else {
            Issue.record("Quantity not Decimal: \(String(describing: byKey["Quantity"]))")
        }
        #expect(byKey["DeliveryDate"]?.dateValue != nil)
        // To-one navigation back to the header.
        let header = try await service.entity(ODataPath("SalesOrderLineItemSet").key(key).navigate("ToHeader"))
        #expect(header["SalesOrderID"]?.stringValue == orderID)
        // A property's raw value.
        let product = try #require(line["ProductID"]?.stringValue)
        let name = try await service.rawValue(ODataPath("ProductSet").key(.single(.string(product))).navigate("Name"))
        let productEntity = try await service.entity("ProductSet", key: .single(.string(product)))
        #expect(String(decoding: name, as: UTF8.self) == productEntity["Name"]?.stringValue)
    }

    @Test func deepInsertUpdateConflictDelete() async throws {
        let service = try await Self.gateway()
        let note = LivePeers.unique("Satchel deep insert ")
        var order = ODataEntity(properties: ["CustomerID": "0100000000", "Note": .string(note), "CurrencyCode": "EUR"])
        order["ToLineItems"] = .entities([
            ODataEntity(properties: [
                "ItemPosition": "0000000010", "ProductID": "HT-1000", "Quantity": .decimal(2), "QuantityUnit": "EA",
                "CurrencyCode": "EUR",
            ]),
            ODataEntity(properties: [
                "ItemPosition": "0000000020", "ProductID": "HT-1001", "Quantity": .decimal(1), "QuantityUnit": "EA",
                "CurrencyCode": "EUR",
            ]),
        ])
        let created = try await service.create("SalesOrderSet", order)
        let entity = try #require(created.entity)
        let id = try #require(entity["SalesOrderID"]?.stringValue)
        #expect(entity["Note"]?.stringValue == note)
        #expect(created.location?.contains(id) == true)
        let firstETag = try #require(created.etag)
        let path = ODataPath("SalesOrderSet").key(.single(.string(id)))
        let lines = try await service.entities(path.navigate("ToLineItems")).collect()
        #expect(lines.map { $0["ProductID"]?.stringValue } == ["HT-1000", "HT-1001"])

        // MERGE with the current ETag.
        try await Task.sleep(for: .milliseconds(20))  // ETags are change timestamps with millisecond precision
        let merged = try await service.update(
            path, with: ODataEntity(properties: ["Note": "merged"]), method: .merge, ifMatch: firstETag)
        let afterMerge = try await service.entity(path)
        #expect(afterMerge["Note"]?.stringValue == "merged")
        #expect(afterMerge["CustomerID"]?.stringValue == "0100000000")
        let secondETag = try #require(merged.etag ?? afterMerge.etag)
        #expect(secondETag != firstETag)

        // A stale ETag: 412, and the error names the current one.
        let stale = await LivePeers.odataError {
            try await service.update(path, with: ODataEntity(properties: ["Note": "stale"]), ifMatch: firstETag)
        }
        #expect(stale?.code == .preconditionFailed)
        #expect(stale?.status == 412)
        #expect(stale?.method == .merge)
        #expect(stale?.currentETag == secondETag || stale?.message.contains(secondETag) == true)

        // PUT replaces the entity.
        try await Task.sleep(for: .milliseconds(20))
        try await service.update(
            path,
            with: ODataEntity(properties: ["CustomerID": "0100000000", "Note": "replaced", "CurrencyCode": "EUR"]),
            method: .replace,
            ifMatch: secondETag)
        let afterPut = try await service.entity(path)
        #expect(afterPut["Note"]?.stringValue == "replaced")
        #expect(afterPut.etag != secondETag)

        // DELETE with a stale ETag fails, with the current one succeeds; then the entity is gone (404).
        let staleDelete = await LivePeers.odataError { try await service.delete(path, ifMatch: firstETag) }
        #expect(staleDelete?.code == .preconditionFailed)
        try await service.delete(path, ifMatch: afterPut.etag)
        let gone = await LivePeers.odataError { _ = try await service.entity(path) }
        #expect(gone?.code == .notFound)
        #expect(gone?.status == 404)
        #expect(gone?.serviceCode == "/IWBEP/CX_MGW_RESOURCE_NOT_FOUND")
        #expect(gone?.message.contains(id) == true)
        #expect(gone?.sapErrorDetails.isEmpty == false)
        #expect(gone?.innerError?["transactionid"] != nil)
    }

    @Test func csrfIsRequiredForWrites() async throws {
        let withoutToken = try await Self.gateway(auth: [])
        let error = await LivePeers.odataError {
            try await withoutToken.create(
                "SalesOrderSet", ODataEntity(properties: ["CustomerID": "0100000000", "Note": "no token"]))
        }
        #expect(error?.code == .forbidden)
        #expect(error?.status == 403)
        #expect(error?.httpError?.responseHeaders?["X-CSRF-Token"]?.lowercased() == "required")
        // Reads need no token.
        #expect(try await withoutToken.count("ProductSet") > 0)
    }

    @Test func sapClientIsSentAndChecked() async throws {
        let server = try await LivePeers.mockSAP.value
        var configuration = ODataService.Configuration(
            serviceURL: server.serviceURL("GWSAMPLE_BASIC", namespace: "IWBEP"), sapClient: "200",
            http: LivePeers.http)
        let wrongClient = ODataService(configuration: configuration)
        let error = await LivePeers.odataError { _ = try await wrongClient.metadata() }
        #expect(error?.code == .badRequest)
        #expect(error?.message.contains("200") == true)
        #expect(error?.url?.absoluteString.contains("sap-client=200") == true)
        configuration.sapClient = "100"
        #expect(try await ODataService(configuration: configuration).count("ProductSet") > 0)
    }

    @Test func errorBodiesAreParsed() async throws {
        let service = try await Self.gateway()
        let bad = await LivePeers.odataError {
            _ = try await service.page("ProductSet", query: ODataQuery().filter(raw: "Price gtx 3"))
        }
        #expect(bad?.code == .badRequest)
        #expect(bad?.status == 400)
        #expect(bad?.serviceCode?.hasPrefix("/IWBEP/") == true)
        #expect(bad?.message.contains("gtx") == true)
        #expect(bad?.operation == "read ProductSet")
        let missing = await LivePeers.odataError {
            _ = try await service.entity("ProductSet", key: .single(.string("NO-SUCH-PRODUCT")))
        }
        #expect(missing?.code == .notFound)
        #expect(missing?.message.contains("NO-SUCH-PRODUCT") == true)
        // mock-sap's V2 services declare no function imports: calling one is a clear 404, not a crash.
        let metadata = try await service.metadata()
        #expect(metadata.operationImport(named: "SalesOrder_Confirm") == nil)
        let noFunction = await LivePeers.odataError { try await service.call("SalesOrder_Confirm") }
        #expect(noFunction?.code == .notFound)
    }

    @Test func deltaReportsChangesAndDeletions() async throws {
        let service = try await Self.partners()
        let query = ODataQuery().select("BusinessPartner", "SearchTerm1")
        let start = try await service.trackChanges("A_BusinessPartner", query: query)
        #expect(start.changed.count > 10)
        #expect(start.removed.isEmpty)
        let link = try #require(start.deltaLink)
        #expect(link.contains("!deltatoken="))

        // Create one partner to delete, change another.
        let created = try await service.create(
            "A_BusinessPartner",
            ODataEntity(properties: [
                "BusinessPartnerCategory": "2", "OrganizationBPName1": "Satchel Delta",
                "BusinessPartnerGrouping": "BP01",
            ]))
        let doomed = try #require(created.entity?["BusinessPartner"]?.stringValue)
        let changedID = try #require(start.changed.first?["BusinessPartner"]?.stringValue)
        let changedPath = ODataPath("A_BusinessPartner").key(.single(.string(changedID)))
        let current = try await service.entity(changedPath)
        try await service.update(
            changedPath, with: ODataEntity(properties: ["SearchTerm1": "SATCHEL"]), ifMatch: current.etag)
        try await service.delete(ODataPath("A_BusinessPartner").key(.single(.string(doomed))), ifMatch: "*")

        let delta = try await service.changes(since: link, entitySet: "A_BusinessPartner")
        #expect(delta.changed.contains { $0["BusinessPartner"]?.stringValue == changedID })
        #expect(delta.changed.first { $0["BusinessPartner"]?.stringValue == changedID }?["SearchTerm1"] == "SATCHEL")
        let removed = try #require(delta.removed.first { $0.id?.contains(doomed) == true })
        #expect(removed.removed?.reason == "deleted")
        #expect(!delta.changed.contains { $0.id?.contains(doomed) == true })
        #expect(delta.deltaLink != nil)
        #expect(delta.deltaLink != link)
    }

    @Test func linksReadAsURIs() async throws {
        let service = try await Self.gateway()
        let first = try #require(
            try await service.page("SalesOrderSet", query: ODataQuery().orderBy("SalesOrderID").top(1)).entities.first)
        let id = try #require(first["SalesOrderID"]?.stringValue)
        let response = try await LivePeers.get(
            service.configuration.serviceURL.appendingPathComponent("SalesOrderSet('\(id)')/$links/ToLineItems"),
            headers: ["Accept": "application/json"])
        let json = try JSONValue(parsing: response.body)
        let uris = (json["d"]?["results"]?.arrayValue ?? []).compactMap { $0["uri"]?.stringValue }
        let lines = try await service.entities(
            ODataPath("SalesOrderSet").key(.single(.string(id))).navigate("ToLineItems")
        ).collect()
        #expect(uris.count == lines.count)
        #expect(Set(uris) == Set(lines.compactMap(\.id)))
    }
}

/// mock-sap started with options: basic authentication without CSRF, and fault injection.
@Suite("Live: mock-sap options")
struct MockSAPOptionsTests {
    @Test func basicAuthentication() async throws {
        let server = try await LivePeers.mockSAPWithAuth.value
        let wrong = LivePeers.sapV2(
            server, "GWSAMPLE_BASIC", namespace: "IWBEP", auth: [BasicAuth(user: "satchel", password: "wrong")])
        let error = await LivePeers.odataError { _ = try await wrong.metadata() }
        #expect(error?.code == .unauthorized)
        #expect(error?.status == 401)
        let none = LivePeers.sapV2(server, "GWSAMPLE_BASIC", namespace: "IWBEP", auth: [])
        #expect(await LivePeers.odataError { _ = try await none.count("ProductSet") }?.code == .unauthorized)
        let right = LivePeers.sapV2(
            server, "GWSAMPLE_BASIC", namespace: "IWBEP", auth: [BasicAuth(user: "satchel", password: "s3cret")])
        #expect(try await right.metadata().version == .v2)
        // Without CSRF (--no-csrf), a write needs no token.
        let created = try await right.create(
            "SalesOrderSet",
            ODataEntity(properties: ["CustomerID": "0100000000", "Note": "no csrf", "CurrencyCode": "EUR"]))
        let id = try #require(created.entity?["SalesOrderID"]?.stringValue)
        try await right.delete(ODataPath("SalesOrderSet").key(.single(.string(id))), ifMatch: "*")
    }

    @Test func injectedFaultsAreClearErrors() async throws {
        let server = try await LivePeers.mockSAPFailing.value
        let service = LivePeers.sapV2(server, "GWSAMPLE_BASIC", namespace: "IWBEP", auth: [])
        let metadataError = await LivePeers.odataError { _ = try await service.metadata() }
        #expect(metadataError?.code == .server)
        #expect(metadataError?.status == 500)
        #expect(metadataError?.message.isEmpty == false)
        #expect(metadataError?.operation == "read $metadata")
        #expect(metadataError?.serviceCode == "/IWBEP/CX_MGW_TECH_EXCEPTION")
        #expect(metadataError?.message.contains("injected") == true)
        let explicit = ODataService(
            configuration: .init(
                serviceURL: server.serviceURL("GWSAMPLE_BASIC", namespace: "IWBEP"), version: .v2, sapClient: "100",
                http: LivePeers.http))
        let readError = await LivePeers.odataError { _ = try await explicit.entities("ProductSet").collect() }
        #expect(readError?.code == .server)
        #expect(readError?.url?.path.hasSuffix("/ProductSet") == true)
        #expect(readError.map { String(describing: $0) }?.contains("500") == true)
    }
}
