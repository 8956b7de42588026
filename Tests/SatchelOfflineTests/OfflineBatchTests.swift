import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelTestSupport
import Testing

/// The same `$batch` sent online to odatapy and offline to a store (then uploaded): reads answered, a changeset whose
/// second creation links to the first by `$1`, a change outside changesets; a changeset failing locally is undone
/// whole. Results checked on the server.
@Suite("Offline store: $batch through the seam")
struct OfflineBatchTests {
    /// One body for the service and for the store.
    static func shop(_ provider: any ODataProvider, product: Int, stock: Int64) async throws -> ODataBatchResponse {
        var batch = ODataBatch()
        batch.page(ODataPath("Products"), query: ODataQuery().filter(.property("ID") <= 3).orderBy("ID"))
        batch.count(ODataPath("Categories"))
        batch.changeset { changes in
            let category = changes.create(
                "Categories", ODataEntity(properties: ["Name": .string("batched \(product)")]))
            var item = ODataEntity(properties: ["ID": .int(Int64(product)), "Name": .string("in a batch")])
            item.bind("Category", to: category.path.description)
            changes.create("Products", item)
        }
        batch.changeset { changes in
            changes.update(
                ODataPath("Products").key(.single(.int(5))), with: ODataEntity(properties: ["Stock": .int(stock)]),
                ifMatch: "*")
        }
        return try await provider.send(batch)
    }

    static func check(_ response: ODataBatchResponse) throws {
        #expect(response.count == 5)
        #expect(try response[0].page().entities.map { $0["ID"] } == [.int(1), .int(2), .int(3)])
        #expect(try response[1].count() >= 5)
        #expect(response[2].status == 201 && response[3].status == 201)
        #expect(try response[3].entity()["Name"] == .string("in a batch"))
        #expect(response[4].succeeded, "\(String(describing: response[4].error))")
    }

    @Test("one batch online and offline: the server ends the same")
    func sameBatch() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, repeatable: true, timeout: .seconds(60))
        defer { server.stop() }
        let service = offlineTestService(server.serviceURL)
        try Self.check(try await Self.shop(service, product: 7601, stock: 501))

        let folder = try offlineTestFolder("batch-seam")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder,
            queries: [.init(name: "c", query: "Categories"), .init(name: "p", query: "Products")])
        try await store.open()
        try Self.check(try await Self.shop(store, product: 7602, stock: 502))
        let queued = try await store.requests()
        #expect(queued.map(\.method) == ["POST", "POST", "PATCH"])
        #expect(queued[0].transactionID != nil && queued[0].transactionID == queued[1].transactionID)
        #expect(queued[2].transactionID == nil)
        #expect(try await store.upload() == OfflineUploadResult(sent: 3, failed: 0, held: 0))

        for product in [7601, 7602] {
            let path = ODataPath("Products").key(.single(.int(product)))
            let category = try await service.entity(path.navigate("Category"))
            #expect(category["Name"] == .string("batched \(product)"), "product \(product)")
        }
        #expect(try await service.entity("Products", key: .single(.int(5)))["Stock"] == .int(502))
        try await store.close()
    }

    @Test("a changeset failing locally is undone whole; operations and link removals are the service's")
    func failures() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let folder = try offlineTestFolder("batch-fail")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder, queries: [.init(name: "p", query: "Products")])
        try await store.open()
        var batch = ODataBatch()
        batch.changeset { changes in
            changes.create("Products", ODataEntity(properties: ["ID": .int(7701), "Name": .string("undone")]))
            changes.update(
                ODataPath("Products").key(.single(.int(99_999))), with: ODataEntity(properties: ["Stock": 1]))
        }
        batch.call("TotalStock")
        let response = try await store.send(batch)
        #expect(response[0].status == 404 && response[1].status == 404, "the changeset answers with its failure")
        #expect(response[2].error?.code == .notSupported)
        #expect(try await store.requests().isEmpty, "nothing queued")
        #expect(try await store.count("Products", query: ODataQuery().filter(.property("ID") == 7701)) == 0)
        try await store.close()
    }
}
