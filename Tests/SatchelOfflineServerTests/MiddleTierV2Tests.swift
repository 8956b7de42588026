import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelOfflineServer
import SatchelTestSupport
import Synchronization
import Testing

/// `OfflineStore` through the middle tier in front of mock-sap (V2, SAP Gateway's GWSAMPLE_BASIC, CSRF tokens):
/// BusinessPartnerSet has SAP delta tokens, which the middle tier follows; ProductSet has none, so the middle tier
/// computes its deltas itself. Either way a download carries only what changed.
@Suite("Offline middle tier in front of mock-sap (V2)", .serialized)
struct MiddleTierV2Tests {
    static let ini = """
        [endpoint]
        name = gw
        backend_url = BACKEND
        sap_client = 100
        csrf = Y
        service_user = svc
        service_password_env = SVC_PASSWORD

        [defining_request]
        name = partners
        query = /BusinessPartnerSet
        is_shared_data = Y
        refresh_interval = 0

        [defining_query]
        name = products
        query = /ProductSet
        """

    @Test("open, a change uploaded, the back-end's changes downloaded as deltas (its own and the middle tier's)")
    func roundTrip() async throws {
        let server = try await MockSAPServer.start(.init(csrf: true), timeout: .seconds(60))
        defer { server.stop() }
        let tier = try await MiddleTierHarness.start(
            ini: Self.ini, backendPort: server.port, backendPath: "/sap/opu/odata/IWBEP/GWSAMPLE_BASIC")
        let direct = ODataService(
            configuration: .init(
                serviceURL: server.serviceURL("GWSAMPLE_BASIC", namespace: "IWBEP"), sapClient: "100",
                http: HTTPClient.Configuration(timeout: .seconds(60), retry: .never), auth: [CSRFTokenAuth()]))
        let store = try await tier.store(
            "gw", user: "ada",
            queries: [
                .init(name: "partners", query: "BusinessPartnerSet"), .init(name: "products", query: "ProductSet"),
            ])
        let partnerCount = try await direct.count(ODataPath("BusinessPartnerSet"), query: ODataQuery())
        let productCount = try await direct.count(ODataPath("ProductSet"), query: ODataQuery())
        #expect(Int64(try await store.count("BusinessPartnerSet")) == partnerCount)
        #expect(Int64(try await store.count("ProductSet")) == productCount)

        // A local change, uploaded (a V2 MERGE in a $batch, with the back-end's CSRF token) and found there.
        let products = try await store.entities("ProductSet", query: ODataQuery().orderBy("ProductID").top(3))
        let mine = try #require(products[0]["ProductID"]?.stringValue)
        let theirs = try #require(products[1]["ProductID"]?.stringValue)
        try await store.update(
            "ProductSet", .key(.single(.string(mine))), with: ODataEntity(properties: ["Name": "renamed offline"]))
        let uploaded = try await store.upload()
        #expect(uploaded.failed == 0 && uploaded.sent == 1, "\(uploaded)")
        #expect(
            try await direct.entity("ProductSet", key: .single(.string(mine)))["Name"]?.stringValue == "renamed offline"
        )

        // Changes on the back-end: one partner changed, one deleted, one product renamed.
        let partners = try await direct.entities(
            ODataPath("BusinessPartnerSet"), query: ODataQuery().orderBy("BusinessPartnerID").top(4)
        ).collect()
        let changed = try #require(partners[2]["BusinessPartnerID"]?.stringValue)
        let gone = try #require(partners[3]["BusinessPartnerID"]?.stringValue)
        try await direct.update(
            "BusinessPartnerSet", key: .single(.string(changed)),
            with: ODataEntity(properties: ["CompanyName": "Changed on the back-end"]), ifMatch: "*")
        try await direct.delete(ODataPath("BusinessPartnerSet").key(.single(.string(gone))), ifMatch: "*")
        try await direct.update(
            "ProductSet", key: .single(.string(theirs)), with: ODataEntity(properties: ["Name": "theirs"]),
            ifMatch: "*")

        let steps = Mutex<[OfflineProgress]>([])
        let stream = store.progress()
        let collector = Task { for await step in stream { steps.withLock { $0.append(step) } } }
        try await store.download()
        try await Task.sleep(for: .milliseconds(100))
        collector.cancel()
        let received = steps.withLock { $0 }.compactMap { step -> Int? in
            if case .received(_, let entities) = step { return entities }
            return nil
        }
        // Partners: the changed one and the deleted one; products: the renamed one and the one uploaded (its ETag
        // changed on the back-end), never the whole set again.
        #expect(!received.isEmpty && received.allSatisfy { $0 <= 2 }, "\(received)")
        #expect(try await store.count("BusinessPartnerSet") == Int(partnerCount) - 1)
        let company = try await store.entities(
            "BusinessPartnerSet",
            query: ODataQuery().filter(.property("BusinessPartnerID") == .literal(.string(changed))))
        #expect(company.first?["CompanyName"]?.stringValue == "Changed on the back-end")
        let renamed = try await store.entities(
            "ProductSet", query: ODataQuery().filter(.property("ProductID") == .literal(.string(theirs))))
        #expect(renamed.first?["Name"]?.stringValue == "theirs")
        // The partners' refresh followed mock-sap's own delta token; the products were read in full and compared.
        let partnerReads = tier.backendRequests("GET /sap/opu/odata/IWBEP/GWSAMPLE_BASIC/BusinessPartnerSet")
        #expect(partnerReads.contains { $0.contains("deltatoken") }, "\(partnerReads.map { $0.prefix(120) })")
        try await store.close()
        await tier.stop()
    }
}
