import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelTestSupport
import Testing

/// One body of code written against the generated proxies, run online against mock-sap and offline against an
/// offline store of the same service: the same answers.
@Suite("Generated proxies, online and offline")
struct OnlineOfflineProxyTests {
    /// Typed reads and a typed change, through whichever provider `api` has.
    static func body(_ api: GWSAMPLEBASICEntitiesService) async throws -> [String] {
        let query = ODataQuery().filter(Product.Fields.price > 500 && Product.Fields.currencyCode == "EUR")
            .orderBy(Product.Fields.price.ordering(descending: true)).top(8)
        let expensive = try await api.productSet.all(query)
        let count = try await api.productSet.count(ODataQuery().filter(Product.Fields.category == "Notebooks"))
        let first = try #require(expensive.first)
        let fetched = try await api.productSet.get(first.entityKey)
        var lines = expensive.map { "\($0.productID) \($0.name ?? "") \($0.price ?? 0)" }
        lines.append("notebooks: \(count)")
        lines.append("fetched: \(fetched == first)")
        return lines
    }

    @Test("the same typed queries answer the same online and offline; a typed change offline reaches the server")
    func sameAnswers() async throws {
        let server = try await MockSAPServer.start(.init(csrf: true), timeout: .seconds(60))
        defer { server.stop() }
        var configuration = ODataService.Configuration(
            serviceURL: server.serviceURL("GWSAMPLE_BASIC", namespace: "IWBEP"))
        configuration.auth = [CSRFTokenAuth()]
        configuration.http = HTTPClient.Configuration(timeout: .seconds(60), retry: .never)
        let service = ODataService(configuration: configuration)

        let online = try await Self.body(GWSAMPLEBASICEntitiesService(service: service))

        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-proxies-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = OfflineStore(
            configuration: .init(
                service: service, path: folder.appendingPathComponent("gw.store").path,
                definingQueries: [.init(name: "products", query: "ProductSet")], key: StoreKey.random()))
        try await store.open()
        let offlineAPI = GWSAMPLEBASICEntitiesService(provider: store)
        let offline = try await Self.body(offlineAPI)
        #expect(online == offline)
        #expect(online.count > 2)

        // A typed change offline, uploaded, seen online.
        let product = try #require(try await offlineAPI.productSet.all(ODataQuery().top(1)).first)
        var changed = Product(productID: product.productID)
        changed.name = "Typed offline change"
        try await offlineAPI.productSet.update(product.entityKey, with: changed)
        #expect(try await offlineAPI.productSet.get(product.entityKey).name == "Typed offline change")
        #expect(try await store.upload().sent == 1)
        #expect(
            try await GWSAMPLEBASICEntitiesService(service: service).productSet.get(product.entityKey).name
                == "Typed offline change")
        try await store.close()
    }
}
