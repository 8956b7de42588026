import Foundation
import SatchelHTTP
import SatchelJSON
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelTestSupport
import Testing

/// The upload in `$batch` requests against odatapy (V4, OASIS repeatable requests): many changes in one exchange,
/// transactions as one changeset, upload categories, unmodifiable requests. Checked on the server.
@Suite("Offline store: uploads in $batch, transactions, categories")
struct BatchUploadTests {
    static func applied(_ server: ODataPyServer) async throws -> Int { try await server.repeatability().applied }

    static func stock(_ service: ODataService, _ id: Int) async throws -> Int64? {
        try await service.entity("Products", key: .single(.int(id)))["Stock"]?.intValue
    }

    @Test("changes on eight entities go in one $batch; a transaction is applied all or none")
    func batchesAndTransactions() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, repeatable: true, timeout: .seconds(60))
        defer { server.stop() }
        let service = ODataService(configuration: .init(serviceURL: server.serviceURL))
        let folder = try offlineTestFolder("batch")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder, queries: [.init(name: "p", query: "Products")])
        try await store.open()

        for id in 21...28 {
            try await store.update(
                "Products", .key(.single(.int(id))), with: ODataEntity(properties: ["Stock": .int(Int64(1000 + id))]))
        }
        let before = try await Self.applied(server)
        let result = try await store.upload()
        #expect(result == OfflineUploadResult(sent: 8, failed: 0, held: 0))
        #expect(try await Self.applied(server) == before + 1, "one $batch for the eight changes")
        for id in 21...28 { #expect(try await Self.stock(service, id) == Int64(1000 + id)) }

        // A transaction: a creation and a change of a product someone else changed meanwhile. The server refuses the
        // change (412), so it applies neither; both wait in the ErrorArchive.
        let current = try await service.entity("Products", key: .single(.int(30)))
        try await service.update(
            "Products", key: .single(.int(30)), with: ODataEntity(properties: ["Name": .string("changed online")]),
            ifMatch: current.etag)
        let transaction = OfflineChangeOptions(transactionID: "order-1")
        try await store.create(
            "Products",
            ODataEntity(properties: ["ID": .int(6001), "Name": .string("in a transaction"), "CategoryID": .int(1)]),
            options: transaction)
        try await store.update(
            "Products", .key(.single(.int(30))), with: ODataEntity(properties: ["Stock": .int(3030)]),
            options: transaction)
        // Outside the transaction: goes through whatever happens to it.
        try await store.update(
            "Products", .key(.single(.int(31))), with: ODataEntity(properties: ["Stock": .int(3131)]))
        #expect(try await store.requests().map(\.transactionID) == ["order-1", "order-1", nil])
        let second = try await store.upload()
        #expect(second == OfflineUploadResult(sent: 1, failed: 2, held: 0))
        let errors = try await store.errors()
        #expect(errors.count == 2)
        #expect(errors.allSatisfy { $0.httpStatus == 412 }, "\(errors)")
        await #expect(throws: ODataError.self) { try await service.entity("Products", key: .single(.int(6001))) }
        #expect(try await Self.stock(service, 30) != 3030)
        #expect(try await Self.stock(service, 31) == 3131)
        for error in errors { try await store.revert(errorID: error.errorID) }
        #expect(try await store.requests().isEmpty)
        #expect(try await store.count("Products", query: ODataQuery().filter(.property("ID") == 6001)) == 0)
        try await store.close()
    }

    @Test("upload(transactions:) sends only those transactions; a request behind one not sent waits")
    func chosenTransactions() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let service = ODataService(configuration: .init(serviceURL: server.serviceURL))
        let folder = try offlineTestFolder("transactions")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder, queries: [.init(name: "p", query: "Products")])
        try await store.open()
        try await store.update(
            "Products", .key(.single(.int(42))), with: ODataEntity(properties: ["Stock": .int(4242)]),
            options: .init(transactionID: "a"))
        try await store.update(
            "Products", .key(.single(.int(43))), with: ODataEntity(properties: ["Stock": .int(4343)]),
            options: .init(transactionID: "b"))
        // In transaction a, but behind b's change on the same entity: a waits, whole, for b.
        try await store.update(
            "Products", .key(.single(.int(43))), with: ODataEntity(properties: ["Name": .string("a too")]),
            options: .init(transactionID: "a", unmodifiable: true))
        try await store.update(
            "Products", .key(.single(.int(44))), with: ODataEntity(properties: ["Stock": .int(4444)]),
            options: .init(transactionID: "c"))
        let chosen = try await store.upload(transactions: ["a", "c"])
        #expect(chosen == OfflineUploadResult(sent: 1, failed: 0, held: 2), "\(chosen)")
        #expect(try await Self.stock(service, 44) == 4444)
        #expect(try await Self.stock(service, 42) != 4242)
        #expect(try await Self.stock(service, 43) != 4343)
        #expect(try await store.requests().compactMap(\.transactionID) == ["a", "b", "a"])
        // b alone, then a, whole.
        #expect(try await store.upload(transactions: ["b"]).sent == 1)
        let rest = try await store.upload(transactions: ["a"])
        #expect(rest.sent == 2 && rest.failed == 0 && rest.held == 0, "\(rest)")
        #expect(try await Self.stock(service, 42) == 4242)
        #expect(try await Self.stock(service, 43) == 4343)
        #expect(try await store.requests().isEmpty)
        try await store.close()
    }

    @Test("upload(categories:) sends only those categories; an unmodifiable request keeps later changes apart")
    func categoriesAndUnmodifiable() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let service = ODataService(configuration: .init(serviceURL: server.serviceURL))
        let folder = try offlineTestFolder("categories")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder, queries: [.init(name: "p", query: "Products")])
        try await store.open()

        try await store.update(
            "Products", .key(.single(.int(40))), with: ODataEntity(properties: ["Stock": .int(4040)]),
            options: .init(uploadCategory: "urgent"))
        try await store.update(
            "Products", .key(.single(.int(41))), with: ODataEntity(properties: ["Stock": .int(4141)]),
            options: .init(uploadCategory: "later"))
        // Held: an earlier request on the same entity is in a category not being sent.
        try await store.update(
            "Products", .key(.single(.int(41))), with: ODataEntity(properties: ["Name": .string("urgent too")]),
            options: .init(uploadCategory: "urgent"))
        #expect(try await store.requests().map(\.uploadCategory) == ["urgent", "later", "urgent"])
        let urgent = try await store.upload(categories: ["urgent"])
        #expect(urgent == OfflineUploadResult(sent: 1, failed: 0, held: 1))
        #expect(try await Self.stock(service, 40) == 4040)
        #expect(try await Self.stock(service, 41) != 4141)
        let rest = try await store.upload()
        #expect(rest == OfflineUploadResult(sent: 2, failed: 0, held: 0))
        let product = try await service.entity("Products", key: .single(.int(41)))
        #expect(product["Stock"]?.intValue == 4141 && product["Name"]?.stringValue == "urgent too")

        // Unmodifiable: the creation goes as made; the change after it and the deletion are requests of their own.
        let id = try await store.create(
            "Products",
            ODataEntity(properties: ["ID": .int(6002), "Name": .string("as made"), "CategoryID": .int(1)]),
            options: .init(unmodifiable: true))
        try await store.update("Products", .id(id), with: ODataEntity(properties: ["Name": .string("changed")]))
        #expect(try await store.requests().map(\.method) == ["POST", "PATCH"])
        try await store.delete("Products", .id(id))
        #expect(try await store.requests().map(\.method) == ["POST", "DELETE"])
        #expect(try await store.requests().map(\.unmodifiable) == [true, false])
        let last = try await store.upload()
        #expect(last == OfflineUploadResult(sent: 2, failed: 0, held: 0))
        await #expect(throws: ODataError.self) { try await service.entity("Products", key: .single(.int(6002))) }

        // A creation and a change of it in one transaction: one changeset, the change addressed by `$n`.
        let together = OfflineChangeOptions(transactionID: "t2", unmodifiable: true)
        let made = try await store.create(
            "Products",
            ODataEntity(properties: ["ID": .int(6003), "Name": .string("made"), "CategoryID": .int(1)]),
            options: together)
        try await store.update(
            "Products", .id(made), with: ODataEntity(properties: ["Name": .string("named in the same changeset")]),
            options: together)
        #expect(try await store.requests().map(\.method) == ["POST", "PATCH"])
        let pair = try await store.upload()
        let pairErrors = try await store.errors()
        #expect(pair == OfflineUploadResult(sent: 2, failed: 0, held: 0), "\(pairErrors)")
        #expect(
            try await service.entity("Products", key: .single(.int(6003)))["Name"]?.stringValue
                == "named in the same changeset")
        try await store.close()
    }
}
