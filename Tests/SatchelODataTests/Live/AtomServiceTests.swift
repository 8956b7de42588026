import Foundation
import SatchelHTTP
import SatchelTestSupport
import Testing

@testable import SatchelOData

/// Against pyslet, a real OData V2 service that answers in Atom (started with `atomOnly`: it offers no JSON and
/// refuses JSON bodies with 415, as a Gateway service configured for XML): reads follow its paging, writes go as
/// Atom entries, the default format finds out by itself.
@Suite("Atom against a V2 service that speaks only Atom (pyslet)", .serialized)
struct AtomServiceTests {
    static func service(_ server: PysletServer, format: ODataPayloadFormat = .automatic) -> ODataService {
        var configuration = ODataService.Configuration(
            serviceURL: server.serviceURL, http: HTTPClient.Configuration(timeout: .seconds(30), retry: .never))
        configuration.payloadFormat = format
        return ODataService(configuration: configuration)
    }

    @Test("reads: server paging, count, typed values, nulls, an expanded entry, a count request")
    func reads() async throws {
        let server = try await PysletServer.start(products: 30, pageSize: 7, atomOnly: true)
        defer { server.stop() }
        let service = Self.service(server)
        var pages: [ODataPage] = []
        for try await page in service.pages("Products", query: ODataQuery().count()) { pages.append(page) }
        #expect(pages.map(\.entities.count) == [7, 7, 7, 7, 2], "every page followed, none cut short")
        #expect(pages.first?.count == 30)
        let products = pages.flatMap(\.entities)
        #expect(products.map { $0["ID"] } == (1...30).map { .int(Int64($0)) })
        let seven = products[6]
        #expect(seven["Name"] == .string("Product <7> & more"))
        #expect(seven["Price"] == .double(8.75) && seven["Stock"] == .int(10_000_000_007))
        #expect(seven["Released"] == .dateTime(ODataDateFormat.parseISO8601("2026-01-08T10:30:00Z")!))
        #expect(products[5]["Note"] == .null && seven["Note"] == .string("note 7"))
        #expect(seven.editLink == server.serviceURL.absoluteString + "/Products(7)")
        #expect(seven.navigationLinks["Category"]?.hasSuffix("Products(7)/Category") == true)

        let expanded = try await service.entity(
            ODataPath("Products").key(.single(.int(2))), query: ODataQuery().expand("Category"))
        #expect(expanded["Category"]?.entityValue?["Title"] == .string("Food & Drink"))
        #expect(try await service.count("Products", query: ODataQuery().filter(.property("ID") <= 10)) == 10)
    }

    @Test("writes: create, merge, link and delete go as Atom and XML, and read back")
    func writes() async throws {
        let server = try await PysletServer.start(products: 3, atomOnly: true)
        defer { server.stop() }
        // Asked for by the setting; then the default, which learns Atom from the first answer.
        for (format, id) in [(ODataPayloadFormat.atom, 501), (.automatic, 502)] {
            let service = Self.service(server, format: format)
            _ = try await service.entities("Categories").collect()
            var product = ODataEntity(type: "Shop.Product")
            product["ID"] = .int(Int64(id))
            product["Name"] = "Made in <Atom> & XML"
            product["Price"] = .double(1e-3)
            product["Stock"] = .int(9_007_199_254_740_993)
            product["Released"] = .dateTime(ODataDateFormat.parseISO8601("2026-11-29T08:15:30Z")!)
            product["Note"] = .null
            product.bind("Category", to: "Categories('FOOD')")
            let created = try await service.create("Products", product)
            #expect(created.entity?["Name"] == .string("Made in <Atom> & XML"), "\(format)")
            let path = ODataPath("Products").key(.single(.int(id)))
            let read = try await service.entity(path, query: ODataQuery().expand("Category"))
            for name in ["Name", "Price", "Stock", "Released", "Note"] {
                #expect(read[name] == product[name], "\(format) \(name)")
            }
            #expect(read["Category"]?.entityValue?["Code"] == .string("FOOD"), "the binding became a link")

            try await service.update(path, with: ODataEntity(properties: ["Name": "merged"]))
            #expect(try await service.entity(path)["Name"] == .string("merged"))
            #expect(try await service.entity(path)["Stock"] == .int(9_007_199_254_740_993), "MERGE kept the rest")

            try await service.addLink(
                from: path, navigation: "Category", to: ODataPath("Categories").key(.single(.string("TOOLS"))),
                replace: true)
            let relinked = try await service.entity(path.navigate("Category"))
            #expect(relinked["Code"] == .string("TOOLS"))

            try await service.delete(path)
            await #expect(throws: ODataError.self) { try await service.entity(path) }
        }
        // A write before any read: the default format is refused once with 415, then sends Atom and keeps to it.
        let fresh = Self.service(server)
        let first = try await fresh.create(
            "Categories", ODataEntity(properties: ["Code": "NEW", "Title": "written first"]))
        #expect(first.entity?["Title"] == .string("written first") && fresh.writesAtom(.v2))
        // JSON against this service is refused: what the test above sent was Atom.
        let json = Self.service(server, format: .json)
        await #expect(throws: ODataError.self) {
            try await json.create("Categories", ODataEntity(properties: ["Code": "X", "Title": "x"]))
        }
    }
}
