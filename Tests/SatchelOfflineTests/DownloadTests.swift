import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelTestSupport
import Synchronization
import Testing

/// Downloads after the initial one: what changed on the server arrives, what was deleted there goes, local changes
/// not uploaded yet stay.
@Suite("Offline store: downloads with local changes pending")
struct DownloadTests {
    static let odataPy = Task { try await ODataPyServer.start(maxPageSize: 40, timeout: .seconds(60)) }
    static let mockSAP = Task { try await MockSAPServer.start(.init(csrf: true), timeout: .seconds(60)) }
    static var http: HTTPClient.Configuration { HTTPClient.Configuration(timeout: .seconds(60), retry: .never) }

    static func store(_ service: ODataService, query: String) async throws -> (OfflineStore, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-offline-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = OfflineStore(
            configuration: .init(
                service: service, path: folder.appendingPathComponent("s.store").path,
                definingQueries: [.init(name: "q", query: query)], key: StoreKey.random()))
        try await store.open()
        return (store, folder)
    }

    /// GWSAMPLE_BASIC on this suite's mock-sap, with CSRF.
    static func gateway() async throws -> ODataService {
        let server = try await Self.mockSAP.value
        return ODataService(
            configuration: .init(
                serviceURL: server.serviceURL("GWSAMPLE_BASIC", namespace: "IWBEP"), sapClient: "100", http: Self.http,
                auth: [CSRFTokenAuth()]))
    }

    static func name(_ store: OfflineStore, _ set: String, _ key: String, _ id: ODataLiteral) async throws -> String? {
        try await store.entities(set, query: ODataQuery().filter(.property(key) == .literal(id))).first?["Name"]?
            .stringValue
    }

    @Test("V4 (odatapy, delta links): changes, deletions and creations arrive; a local change stays pending")
    func v4Delta() async throws {
        let server = try await Self.odataPy.value
        let service = ODataService(configuration: .init(serviceURL: server.serviceURL, http: Self.http))
        let (store, folder) = try await Self.store(service, query: "Products")
        defer { try? FileManager.default.removeItem(at: folder) }
        let before = try await store.count("Products")

        try await store.update(
            "Products", .key(.single(.int(42))), with: ODataEntity(properties: ["Name": .string("mine")]))
        for (id, name) in [(40, "changed on the server"), (42, "theirs")] {
            let current = try await service.entity("Products", key: .single(.int(id)))
            try await service.update(
                "Products", key: .single(.int(id)), with: ODataEntity(properties: ["Name": .string(name)]),
                ifMatch: current.etag)
        }
        let doomed = try await service.entity("Products", key: .single(.int(41)))
        try await service.delete(ODataPath("Products").key(.single(.int(41))), ifMatch: doomed.etag)
        try await service.create(
            "Products",
            ODataEntity(properties: ["ID": .int(7001), "Name": .string("new on the server"), "CategoryID": .int(1)]))

        try await store.download()
        #expect(try await Self.name(store, "Products", "ID", .int(40)) == "changed on the server")
        #expect(try await Self.name(store, "Products", "ID", .int(41)) == nil)
        #expect(try await Self.name(store, "Products", "ID", .int(7001)) == "new on the server")
        #expect(try await Self.name(store, "Products", "ID", .int(42)) == "mine")
        #expect(try await store.count("Products") == before)
        #expect(try await store.requests().count == 1)

        // The pending change meets the server's newer version: a conflict, not an overwrite.
        let result = try await store.upload()
        #expect(result.failed == 1)
        #expect(try await service.entity("Products", key: .single(.int(42)))["Name"]?.stringValue == "theirs")
        try await store.close()
    }

    @Test("V2 (mock-sap, SAP delta tokens): only what changed arrives; a change and a deletion are applied")
    func v2DeltaTokens() async throws {
        let service = try await Self.gateway()
        let (store, folder) = try await Self.store(service, query: "BusinessPartnerSet")
        defer { try? FileManager.default.removeItem(at: folder) }
        let partners = try await store.entities(
            "BusinessPartnerSet", query: ODataQuery().orderBy("BusinessPartnerID").skip(2).top(2))
        let changed = try #require(partners.first?["BusinessPartnerID"]?.stringValue)
        let gone = try #require(partners.last?["BusinessPartnerID"]?.stringValue)
        let before = try await store.count("BusinessPartnerSet")
        let online = try await service.count(ODataPath("BusinessPartnerSet"), query: ODataQuery())
        #expect(before > 3 && Int64(before) == online, "\(before) of \(online)")
        try await service.update(
            "BusinessPartnerSet", key: .single(.string(changed)),
            with: ODataEntity(properties: ["CompanyName": .string("Changed on the server")]), ifMatch: "*")
        try await service.delete(ODataPath("BusinessPartnerSet").key(.single(.string(gone))), ifMatch: "*")

        let steps = Mutex<[OfflineProgress]>([])
        let stream = store.progress()
        let collector = Task { for await step in stream { steps.withLock { $0.append(step) } } }
        try await store.download()
        try await Task.sleep(for: .milliseconds(100))
        collector.cancel()
        // The delta: the changed partner and the deleted one, not the whole set again.
        let received = steps.withLock { $0 }.compactMap { step -> Int? in
            if case .received(_, let entities) = step { return entities }
            return nil
        }
        #expect(received.max() == 2, "\(received)")
        #expect(try await store.count("BusinessPartnerSet") == before - 1)
        let left = try await store.count(
            "BusinessPartnerSet", query: ODataQuery().filter(.property("BusinessPartnerID") == .literal(.string(gone))))
        #expect(left == 0)
        let local = try await store.entities(
            "BusinessPartnerSet",
            query: ODataQuery().filter(.property("BusinessPartnerID") == .literal(.string(changed))))
        #expect(local.first?["CompanyName"]?.stringValue == "Changed on the server")
        try await store.close()
    }

    @Test("V2 (mock-sap, no delta for ProductSet): a full refresh removes what the server deleted")
    func v2FullRefresh() async throws {
        let service = try await Self.gateway()
        let (store, folder) = try await Self.store(service, query: "ProductSet")
        defer { try? FileManager.default.removeItem(at: folder) }
        let products = try await store.entities("ProductSet", query: ODataQuery().orderBy("ProductID").top(2))
        let gone = try #require(products.first?["ProductID"]?.stringValue)
        let renamed = try #require(products.last?["ProductID"]?.stringValue)
        try await service.delete(ODataPath("ProductSet").key(.single(.string(gone))), ifMatch: "*")
        try await service.update(
            "ProductSet", key: .single(.string(renamed)),
            with: ODataEntity(properties: ["Name": .string("Renamed on the server")]),
            ifMatch: "*")
        let before = try await store.count("ProductSet")
        try await store.download()
        #expect(try await store.count("ProductSet") == before - 1)
        #expect(try await Self.name(store, "ProductSet", "ProductID", .string(gone)) == nil)
        #expect(try await Self.name(store, "ProductSet", "ProductID", .string(renamed)) == "Renamed on the server")
        try await store.close()
    }
}
