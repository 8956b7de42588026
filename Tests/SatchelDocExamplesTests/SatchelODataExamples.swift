import Foundation
import SatchelOData

/// The code of SatchelOData's DocC article (GettingStarted.md), compiled with the suite.
enum ODataExamples {
    /// GettingStarted.md: a service reached with Basic authentication.
    static func connect(user: String, password: String) -> ODataService {
        let configuration = ODataService.Configuration(
            serviceURL: URL(string: "https://services.example.com/odata/v4/catalog")!,
            pageSize: 200,
            auth: [BasicAuth(user: user, password: password)])
        let service = ODataService(configuration: configuration)
        return service
    }

    /// GettingStarted.md: an SAP Gateway service, with a client number and CSRF tokens.
    static func connectToGateway(user: String, password: String) -> ODataService {
        var configuration = ODataService.Configuration(
            serviceURL: URL(string: "https://gw.example.com/sap/opu/odata/sap/ZSALES_SRV")!, sapClient: "100")
        configuration.auth = [BasicAuth(user: user, password: password), CSRFTokenAuth()]
        return ODataService(configuration: configuration)
    }

    /// GettingStarted.md: read an entity set with a filter built from runtime values.
    static func readProducts(service: ODataService, price: Decimal, category: String) async throws {
        let query = ODataQuery()
            .filter(.property("Price") < price && .property("Category") == category)
            .select("ID", "Name", "Price")
            .orderBy("Price", descending: true)
        for try await product in service.entities("Products", query: query) {
            let name = product["Name"]?.stringValue ?? ""
            let amount = product["Price"]?.decimalValue ?? 0
            print(name, amount)
        }
    }

    /// GettingStarted.md: read page by page, with the total count.
    static func readPages(service: ODataService) async throws {
        let query = ODataQuery().orderBy("ID").count()
        for try await page in service.pages("Products", query: query) {
            print(page.entities.count, "of", page.count ?? 0, "more:", page.nextLink != nil)
        }
        let expensive = try await service.count("Products", query: ODataQuery().filter(.property("Price") > 100))
        print(expensive, "expensive products")
    }

    /// GettingStarted.md: one page, then the next ones by their links.
    static func readByLinks(service: ODataService) async throws {
        var page = try await service.page("Products", query: ODataQuery().top(50))
        while let next = page.nextLink {
            page = try await service.page(link: next, entitySet: "Products")
        }
    }

    /// GettingStarted.md: create an entity, change it, delete it.
    static func createAndUpdate(service: ODataService, name: String, price: Decimal) async throws {
        let product = ODataEntity(properties: ["Name": .string(name), "Price": .decimal(price)])
        let created = try await service.create("Products", product)
        guard let id = created.entity?["ID"] else { return }
        let path = ODataPath("Products").key(.single(ODataLiteral(id)))

        var changes = ODataEntity()
        changes["Price"] = .decimal(price + 1)
        let updated = try await service.update(path, with: changes, ifMatch: created.etag)

        try await service.delete(path, ifMatch: updated.etag ?? "*")
    }

    /// GettingStarted.md: tell a conflict from other failures.
    static func changePrice(service: ODataService, path: ODataPath, etag: String, price: Decimal) async throws {
        var changes = ODataEntity()
        changes["Price"] = .decimal(price)
        do {
            try await service.update(path, with: changes, ifMatch: etag)
        } catch let error as ODataError where error.code == .preconditionFailed {
            print("changed meanwhile; the current ETag is", error.currentETag ?? "unknown")
        } catch let error as ODataError where error.code == .notFound {
            print("gone:", error.message)
        } catch let error as ODataError {
            print(error.code, error.status ?? 0, error.serviceCode ?? "", error.message)
        }
    }

    /// GettingStarted.md: entities decoded into a type of your own.
    struct Product: Decodable, Sendable {
        var id: Int
        var name: String
        var price: Decimal

        enum CodingKeys: String, CodingKey {
            case id = "ID"
            case name = "Name"
            case price = "Price"
        }
    }

    /// GettingStarted.md: read into `Product`.
    static func readDecoded(service: ODataService) async throws -> [Product] {
        var products: [Product] = []
        for try await product in service.entities("Products", query: ODataQuery().top(20), as: Product.self) {
            products.append(product)
        }
        return products
    }

    /// GettingStarted.md: several requests in one `$batch`.
    static func readInOneBatch(service: ODataService) async throws {
        var batch = ODataBatch()
        let cheap = batch.page("Products", query: ODataQuery().filter(.property("Price") < 10).top(5))
        let total = batch.count("Products")
        let response = try await service.send(batch)
        let page = try response[cheap].page()
        let count = try response[total].count()
        print(page.entities.count, "of", count)
    }
}
