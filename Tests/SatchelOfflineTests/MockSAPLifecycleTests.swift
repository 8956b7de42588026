import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelTestSupport
import Synchronization
import Testing

/// Issue 33's expectations against SAP Gateway's V2 (mock-sap, CSRF): the `$metadata` check of a download, local
/// paging equal to the service's own pages, a query observed across a download and a local change, the sync state,
/// and the store's own errors.
@Suite("Offline store over months, against mock-sap (V2)")
struct MockSAPLifecycleTests {
    @Test("metadata check, local paging, observed query and sync state against SAP Gateway V2")
    func lifecycle() async throws {
        let server = try await MockSAPServer.start(.init(csrf: true), timeout: .seconds(60))
        defer { server.stop() }
        let service = ODataService(
            configuration: .init(
                serviceURL: server.serviceURL("GWSAMPLE_BASIC", namespace: "IWBEP"), sapClient: "100", pageSize: 25,
                http: HTTPClient.Configuration(timeout: .seconds(60), retry: .never), auth: [CSRFTokenAuth()]))
        let folder = try offlineTestFolder("mocksap-lifecycle")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = OfflineStore(
            configuration: .init(
                service: service, path: folder.appendingPathComponent("gw.store").path,
                definingQueries: [.init(name: "products", query: "ProductSet")], key: StoreKey.random()))
        let states = SyncStateTests.Recorder<OfflineSyncState.Phase>()
        let following = Task {
            for await state in store.syncStates() { states.elements.withLock { $0.append(state.phase) } }
        }
        defer { following.cancel() }
        try await store.open()

        // The same $metadata: a download migrates nothing, and says so.
        #expect(try await store.updateMetadata().isEmpty)

        // Local pages equal the service's answer (ties in price ordered by key on both sides).
        let query = ODataQuery().orderBy("Price", descending: true)
        let online = try await service.entities(ODataPath("ProductSet"), query: query).collect()
        var local: [ODataEntity] = []
        var sizes: [Int] = []
        for try await page in store.pages(ODataPath("ProductSet"), query: query, pageSize: 7) {
            sizes.append(page.entities.count)
            local += page.entities
        }
        #expect(online.count > 7 && sizes.first == 7 && sizes.count == (online.count + 6) / 7, "\(sizes)")
        #expect(local.map { $0["ProductID"] } == online.map { $0["ProductID"] })

        // An observed query: a local change and a download that brings a change made online both reach it.
        let watched = ODataQuery().filter(.property("Name") == "watched").orderBy("ProductID")
        let results = SyncStateTests.Recorder<[String]>()
        let observing = Task {
            for try await entities in store.observe("ProductSet", query: watched) {
                results.elements.withLock { $0.append(entities.compactMap { $0["ProductID"]?.stringValue }) }
            }
        }
        defer { observing.cancel() }
        #expect(try await results.wait { $0 == [[]] }, "\(results.all)")
        try await store.update(
            "ProductSet", .key(.single(.string("HT-1000"))), with: ODataEntity(properties: ["Name": "watched"]))
        #expect(try await results.wait { $0.last == ["HT-1000"] }, "\(results.all)")
        #expect(try await store.requests().count == 1)
        try await service.update(
            ODataPath("ProductSet").key(.single(.string("HT-1001"))), with: ODataEntity(properties: ["Name": "watched"])
        )
        try await store.download()
        #expect(try await results.wait { $0.last == ["HT-1000", "HT-1001"] }, "\(results.all)")
        #expect(try await store.upload().sent == 1)
        #expect(
            try await service.entity(ODataPath("ProductSet").key(.single(.string("HT-1000"))))["Name"]?.stringValue
                == "watched")
        #expect(store.syncState.lastDownload != nil && store.syncState.lastUpload != nil)
        #expect(states.all.contains(.downloading) && states.all.contains(.uploading), "\(states.all)")

        // The store's own errors, with their codes.
        do {
            _ = try await store.entity("ProductSet", .key(.single(.string("NOPE"))))
            Issue.record("a missing entity was found")
        } catch let error as OfflineStoreError {
            #expect(error.code == .entityNotFound)
        }
        try await store.close()
    }
}
