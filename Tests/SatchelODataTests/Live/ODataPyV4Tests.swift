import Foundation
import SatchelHTTP
import SatchelJSON
import SatchelOData
import SatchelTestSupport
import Testing

/// SatchelOData against odatapy's in-memory reference service serving `Tests/Peers/odata_v4_service.xml` (250
/// products paged 20 at a time, orders with composite-key items, media documents, ETags, change tracking).
@Suite("Live: odatapy V4", .serialized)
struct ODataPyV4Tests {
    static func shop(pageSize: Int? = nil) async throws -> ODataService {
        LivePeers.shop(try await LivePeers.odataPy.value, pageSize: pageSize)
    }

    @Test func metadataModel() async throws {
        let metadata = try await Self.shop().metadata()
        #expect(metadata.version == .v4)
        #expect(metadata.diagnostics.filter { $0.severity == .warning } == [])
        let product = try #require(metadata.entityType(ofSet: "Products"))
        let types = Dictionary(uniqueKeysWithValues: product.properties.map { ($0.name, $0.type.name) })
        #expect(types["Stock"] == "Edm.Int64")
        #expect(types["Price"] == "Edm.Decimal")
        #expect(types["Token"] == "Edm.Guid")
        #expect(
            metadata.enumType(named: types["Status"] ?? "")?.members.map(\.name) == [
                "Active", "Backordered", "Discontinued",
            ])
        let item = try #require(metadata.entityType(ofSet: "OrderItems"))
        #expect(metadata.key(of: item) == ["OrderID", "LineNumber"])
        let category = try #require(metadata.allNavigationProperties(of: product).first { $0.name == "Category" })
        #expect(category.partner == "Products")
        #expect(category.referentialConstraints.first?.property == "CategoryID")
        #expect(metadata.entityType(ofSet: "Documents")?.hasStream == true)
        #expect(metadata.operationImport(named: "Restock")?.kind == .action)
        #expect(metadata.operationImport(named: "ProductsByCategory")?.kind == .function)
        let order = try #require(metadata.entityType(ofSet: "Orders"))
        let shipTo = try #require(order.properties.first { $0.name == "ShipTo" })
        #expect(
            metadata.complexType(named: shipTo.type.name)?.properties.map(\.name) == [
                "Street", "City", "PostalCode",
            ])
    }

    @Test func serverPagingFollowsNextLinks() async throws {
        let service = try await Self.shop()
        var pages: [ODataPage] = []
        for try await page in service.pages("Products", query: ODataQuery().select("ID").count()) { pages.append(page) }
        let ids = pages.flatMap(\.entities).compactMap { $0["ID"]?.intValue }
        let total = try await service.count("Products")
        #expect(total >= 240)
        #expect(Int64(ids.count) == total)
        #expect(Set(ids).count == ids.count)
        #expect(pages.count == Int((total + 19) / 20))
        #expect(pages.dropLast().allSatisfy { $0.nextLink != nil && $0.entities.count == 20 })
        #expect(pages.last?.nextLink == nil)
        #expect(pages.first?.count == total)
        // The client's page size (Prefer: odata.maxpagesize) on every page request.
        let small = try await Self.shop(pageSize: 7)
        var smallPages = 0
        var seen = 0
        for try await page in small.pages("Products", query: ODataQuery().select("ID").top(30)) {
            smallPages += 1
            seen += page.entities.count
            #expect(page.entities.count <= 7)
        }
        #expect(seen == 30)
        #expect(smallPages == 5)
    }

    /// A product's id, pulled straight from the bytes (what generated proxies do).
    struct ProductID: JSONDecodable, Decodable, Sendable {
        var ID = 0

        init(from reader: inout JSONReader) throws {
            try reader.readObject { key, reader in
                switch key {
                case "ID": ID = try reader.readInt()
                default: try reader.skipValue()
                }
            }
        }
    }

    /// Typed reads decode while each page streams in and request the next page before the current one is decoded
    /// (on the same kept-alive connection, which this one-request-at-a-time peer needs): every product once, in
    /// the server's order, as the dynamic read sees them; a read stopped early leaves the peer usable.
    @Test func typedReadsAcrossServerPages() async throws {
        let service = try await Self.shop()
        let query = ODataQuery().select("ID")
        let dynamic = try await service.entities("Products", query: query).collect().compactMap { $0["ID"]?.intValue }
        #expect(dynamic.count > 200)
        var pulled: [Int] = []
        for try await product in service.entities("Products", query: query, pullDecoding: ProductID.self) {
            pulled.append(product.ID)
        }
        #expect(pulled == dynamic.map { Int($0) })
        var decoded: [Int] = []
        for try await product in service.entities("Products", query: query, as: ProductID.self) {
            decoded.append(product.ID)
        }
        #expect(decoded == pulled)
        var firstOnes: [Int] = []
        for try await product in service.entities("Products", query: query, pullDecoding: ProductID.self) {
            firstOnes.append(product.ID)
            if firstOnes.count == 25 { break }
        }
        #expect(firstOnes == Array(pulled.prefix(25)))
        #expect(try await service.count("Products") == Int64(pulled.count))
    }

    @Test func typedValues() async throws {
        let product = try await Self.shop().entity("Products", key: 50)
        #expect(product.etag?.hasPrefix("W/") == true)
        #expect(product["Stock"] == .int(50_000_000_350))
        #expect(product["Price"] == .decimal(Decimal(string: "88.49")!))
        #expect(product["Released"] == .date("2020-09-07"))
        #expect(product["Modified"]?.dateValue == ISO8601DateFormatter().date(from: "2026-01-03T10:00:50Z"))
        #expect(product["Token"] == .guid(UUID(uuidString: "00000000-0000-0000-0032-003200320032")!))
        #expect(product["Thumbnail"] == .binary(Data([0x32, 0xFF, 0xFB, 0x3E])))
        #expect(product["Status"] == .enumMember("Discontinued"))
        let order = try await Self.shop().entity("Orders", key: 3)
        guard case .complex(let address) = order["ShipTo"] else {
            Issue.record("ShipTo is not complex: \(String(describing: order["ShipTo"]))")
            return
        }
        #expect(address["City"] == "Biloxi")
        #expect(address["Street"] == "3 Main Street")
    }

    @Test func filtersLambdasExpandAndKeys() async throws {
        let service = try await Self.shop()
        let products = try await service.entities(
            "Products", query: ODataQuery().select("ID", "Price", "CategoryID", "Status")
        ).collect()
        let prices = products.compactMap { $0["Price"]?.decimalValue }
        let highest = try #require(prices.max())
        let threshold = highest - 5
        let expected = Set(
            products.filter { ($0["Price"]?.decimalValue ?? 0) > threshold }.compactMap { $0["CategoryID"]?.intValue })
        #expect(!expected.isEmpty)
        let withAny = try await service.entities(
            "Categories",
            query: ODataQuery().filter(.any("Products", "p", .property("p/Price") > .literal(.decimal(threshold))))
                .select("ID")
        ).collect()
        #expect(Set(withAny.compactMap { $0["ID"]?.intValue }) == expected)
        let withAll = try await service.entities(
            "Categories",
            query: ODataQuery().filter(.all("Products", "p", .property("p/Price") > .literal(.decimal(0)))).count()
        ).collect()
        #expect(withAll.count == 5)
        // enum literal, in, count with filter
        let active = try await service.count(
            "Products",
            query: ODataQuery().filter(
                .property("Status") == .literal(.enumMember(type: "Satchel.Shop.ProductStatus", member: "Active"))))
        #expect(active == Int64(products.filter { $0["Status"] == .enumMember("Active") }.count))
        #expect(active > 0)
        let chosen = try await service.entities(
            "Products", query: ODataQuery().filter(.property("ID").isIn([.int(3), .int(7), .int(11)])).orderBy("ID")
        ).collect()
        #expect(chosen.compactMap { $0["ID"]?.intValue } == [3, 7, 11])
        // Nested expand with options on each level.
        let order = try await service.entity(
            "Orders", key: 2,
            query: ODataQuery().select("ID").expand(
                "Items",
                ODataQuery().orderBy("LineNumber", descending: true).expand("Product", ODataQuery().select("Name"))))
        let items = try #require(order["Items"]?.entitiesValue)
        #expect(items.count == 3)
        #expect(items.compactMap { $0["LineNumber"]?.intValue } == [3, 2, 1])
        for item in items {
            let product = try #require(item["Product"]?.entityValue)
            #expect(
                product["Name"]?.stringValue == String(format: "Product %03d", Int(item["ProductID"]?.intValue ?? 0)))
        }
        // Composite key, and to-one navigation from it.
        let key: ODataKey = ["OrderID": .int(2), "LineNumber": .int(2)]
        let line = try await service.entity("OrderItems", key: key)
        #expect(line["Quantity"] == .int(4))
        let back = try await service.entity(ODataPath("OrderItems").key(key).navigate("Order"))
        #expect(back["CustomerName"] == "Customer 2")
    }

    @Test func writesWithETags() async throws {
        let service = try await Self.shop()
        let id = Int64.random(in: 10_000...99_999)
        let created = try await service.create(
            "Products",
            ODataEntity(properties: [
                "ID": .int(id), "Name": "Satchel Kettle", "Price": .decimal(Decimal(string: "12.34")!),
                "Stock": .int(9_007_199_254_740_993), "Status": .enumMember("Backordered"), "CategoryID": 3,
                "Released": .date("2026-11-22"),
                "Token": .guid(UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!),
            ]))
        let firstETag = try #require(created.etag)
        #expect(created.entity?["Name"] == "Satchel Kettle")
        let path = ODataPath("Products").key(.single(.int64(id)))
        let read = try await service.entity(path)
        #expect(read["Price"] == .decimal(Decimal(string: "12.34")!))
        #expect(read["Status"] == .enumMember("Backordered"))
        #expect(read["Token"] == .guid(UUID(uuidString: "6F9619FF-8B86-D011-B42D-00C04FC964FF")!))
        #expect(read["Stock"] == .int(9_007_199_254_740_993))  // above 2^53: exact, not through a Double
        #expect(read["Released"] == .date("2026-11-22"))

        // Without If-Match the service refuses (428); with a stale one, 412.
        let unguarded = await LivePeers.odataError {
            try await service.update(path, with: ODataEntity(properties: ["Name": "x"]))
        }
        #expect(unguarded?.code == .preconditionRequired)
        let patched = try await service.update(
            path, with: ODataEntity(properties: ["Name": "Satchel Kettle II"]), ifMatch: firstETag)
        let afterPatch = try await service.entity(path)
        #expect(afterPatch["Name"] == "Satchel Kettle II")
        #expect(afterPatch["Price"] == .decimal(Decimal(string: "12.34")!))
        let secondETag = try #require(afterPatch.etag)
        #expect(secondETag != firstETag)
        if let etag = patched.etag { #expect(etag == secondETag) }
        let stale = await LivePeers.odataError {
            try await service.update(path, with: ODataEntity(properties: ["Name": "stale"]), ifMatch: firstETag)
        }
        #expect(stale?.code == .preconditionFailed)
        #expect(stale?.status == 412)
        // PUT replaces: properties not sent become null.
        try await service.update(
            path, with: ODataEntity(properties: ["ID": .int(id), "Name": "Replaced"]), method: .replace,
            ifMatch: secondETag)
        let afterPut = try await service.entity(path)
        #expect(afterPut["Name"] == "Replaced")
        #expect(afterPut["Price"]?.isNull ?? true)
        let staleDelete = await LivePeers.odataError { try await service.delete(path, ifMatch: secondETag) }
        #expect(staleDelete?.code == .preconditionFailed)
        try await service.delete(path, ifMatch: afterPut.etag)
        let gone = await LivePeers.odataError { _ = try await service.entity(path) }
        #expect(gone?.code == .notFound)
        #expect(gone?.status == 404)
        #expect(gone?.message.isEmpty == false)
    }

    @Test func deepInsertAndReferences() async throws {
        let service = try await Self.shop()
        let orderID = Int64.random(in: 10_000...99_999)
        var order = ODataEntity(properties: [
            "ID": .int(orderID), "CustomerName": "Satchel Deep",
            "ShipTo": .complex(["Street": "1 Loop", "City": "Oxford", "PostalCode": "38655"]),
        ])
        order["Items"] = .entities([
            ODataEntity(properties: ["OrderID": .int(orderID), "LineNumber": 1, "ProductID": 5, "Quantity": 1]),
            ODataEntity(properties: ["OrderID": .int(orderID), "LineNumber": 2, "ProductID": 6, "Quantity": 2]),
        ])
        let created = try await service.create("Orders", order)
        #expect(created.etag != nil)
        let orderPath = ODataPath("Orders").key(.single(.int64(orderID)))
        let items = try await service.entities(orderPath.navigate("Items")).collect()
        #expect(items.compactMap { $0["LineNumber"]?.intValue }.sorted() == [1, 2])
        let byKey = try await service.entity("OrderItems", key: ["OrderID": .int64(orderID), "LineNumber": .int(2)])
        #expect(byKey["ProductID"] == .int(6))

        // $ref: link a product to a category and unlink it.
        let category = ODataPath("Categories").key(1)
        let product = ODataPath("Products").key(2)
        let before = try await service.entities(category.navigate("Products"), query: ODataQuery().select("ID"))
            .collect().compactMap { $0["ID"]?.intValue }
        #expect(!before.contains(2))
        try await service.addLink(from: category, navigation: "Products", to: product)
        let linked = try await service.entities(category.navigate("Products"), query: ODataQuery().select("ID"))
            .collect().compactMap { $0["ID"]?.intValue }
        #expect(linked.contains(2))
        let refs = try await LivePeers.get(
            URL(string: service.configuration.serviceURL.absoluteString + "/Categories(1)/Products/$ref")!)
        let ids = (try JSONValue(parsing: refs.body)["value"]?.arrayValue ?? []).compactMap {
            $0["@odata.id"]?.stringValue
        }
        #expect(ids.contains { $0.hasSuffix("/Products(2)") })
        try await service.removeLink(from: category, navigation: "Products", to: product)
        let unlinked = try await service.entities(category.navigate("Products"), query: ODataQuery().select("ID"))
            .collect().compactMap { $0["ID"]?.intValue }
        #expect(unlinked == before)
    }

    @Test func mediaUploadAndDownload() async throws {
        let service = try await Self.shop()
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-odata-media-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let downloaded = folder.appendingPathComponent("readme.txt")
        try await service.downloadMedia(ODataPath("Documents").key(1), to: downloaded)
        #expect(try String(contentsOf: downloaded, encoding: .utf8) == "Satchel test document one\n")

        let source = folder.appendingPathComponent("upload.bin")
        let bytes = Data((0..<300_000).map { UInt8(truncatingIfNeeded: $0 &* 31) })
        try bytes.write(to: source)
        let created = try await service.createMedia("Documents", from: source, contentType: "application/octet-stream")
        let document = try #require(created.entity)
        let id = try #require(document["ID"]?.intValue)
        #expect(document.mediaContentType == "application/octet-stream")
        let path = ODataPath("Documents").key(.single(.int64(id)))
        let copy = folder.appendingPathComponent("copy.bin")
        try await service.downloadMedia(path, to: copy)
        #expect(try Data(contentsOf: copy) == bytes)

        let replacement = folder.appendingPathComponent("replacement.txt")
        try Data("replaced content\n".utf8).write(to: replacement)
        let etag = try await service.entity(path).etag
        try await service.uploadMedia(path, from: replacement, contentType: "text/plain", ifMatch: etag)
        #expect(try await service.rawValue(path) == Data("replaced content\n".utf8))
        let stale = await LivePeers.odataError {
            try await service.uploadMedia(path, from: replacement, contentType: "text/plain", ifMatch: etag)
        }
        #expect(stale?.code == .preconditionFailed)
    }

    @Test func deltaLinksReportChangesAndDeletions() async throws {
        // A client page size too: the request prefers both change tracking and a page size.
        let service = try await Self.shop(pageSize: 30)
        let start = try await service.trackChanges("Products", query: ODataQuery().select("ID", "Name"))
        #expect(start.changed.count >= 240)
        let link = try #require(start.deltaLink)
        #expect(link.contains("$deltatoken="))

        let id = Int64.random(in: 100_000...199_999)
        let doomed = try await service.create(
            "Products", ODataEntity(properties: ["ID": .int(id), "Name": "Doomed", "CategoryID": 1]))
        let changedPath = ODataPath("Products").key(7)
        let current = try await service.entity(changedPath)
        try await service.update(
            changedPath, with: ODataEntity(properties: ["Name": "Product 007 (changed)"]), ifMatch: current.etag)
        try await service.delete(ODataPath("Products").key(.single(.int64(id))), ifMatch: doomed.etag)

        let delta = try await service.changes(since: link, entitySet: "Products")
        #expect(delta.changed.contains { $0["ID"] == .int(7) && $0["Name"] == "Product 007 (changed)" })
        let removed = try #require(delta.removed.first { $0.id?.hasSuffix("Products(\(id))") == true })
        #expect(removed.removed?.reason == "deleted")
        let next = try #require(delta.deltaLink)
        #expect(next != link)
        let quiet = try await service.changes(since: next, entitySet: "Products")
        #expect(quiet.changed.isEmpty && quiet.removed.isEmpty)
        try await service.update(
            changedPath, with: ODataEntity(properties: ["Name": "Product 007"]),
            ifMatch: try await service.entity(changedPath).etag)
    }

    @Test func actionsAndFunctions() async throws {
        let service = try await Self.shop()
        _ = try await service.metadata()
        let before = try await service.entity("Products", key: 9)
        let stock = try #require(before["Stock"]?.intValue)
        let result = try await service.call("Restock", parameters: ["ProductID": 9, "Quantity": 5])
        #expect(result.intValue == stock + 5)
        let after = try await service.entity("Products", key: 9)
        #expect(after["Stock"] == .int(stock + 5))
        #expect(after.etag != before.etag)
        let missing = await LivePeers.odataError {
            try await service.call("Restock", parameters: ["ProductID": 999_999, "Quantity": 1])
        }
        #expect(missing?.code == .notFound)
        #expect(missing?.message.contains("999999") == true)

        // A function returning entities: the call's first page, and the whole collection through its path.
        let byCall = try await service.call("ProductsByCategory", parameters: ["CategoryID": 2])
        let called = try #require(byCall.entitiesValue)
        #expect(called.allSatisfy { $0["CategoryID"] == .int(2) })
        let all = try await service.entities(ODataPath.raw("ProductsByCategory(CategoryID=2)")).collect()
        let expected = try await service.count("Products", query: ODataQuery().filter(.property("CategoryID") == 2))
        #expect(expected > 20)  // more than one server page
        #expect(Int64(all.count) == expected)
        #expect(Int64(called.count) == expected)  // the call follows the function result's next links
        // A function returning a primitive.
        let products = try await service.entities("Products", query: ODataQuery().select("Stock")).collect()
        let total = products.compactMap { $0["Stock"]?.intValue }.reduce(0, +)
        #expect(try await service.call("TotalStock").intValue == total)
    }
}
