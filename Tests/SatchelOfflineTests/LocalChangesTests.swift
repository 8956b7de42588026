import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelTestSupport
import Testing

/// Local changes queued and uploaded to odatapy (V4) and mock-sap (V2), checked on the server itself.
@Suite("Offline store: local changes and upload")
struct LocalChangesTests {
    /// A peer of this suite's own: the tests change its data.
    static let peer = Task { try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60)) }

    static func openStore(_ service: ODataService) async throws -> (OfflineStore, URL) {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-offline-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let store = OfflineStore(
            configuration: .init(
                service: service, path: folder.appendingPathComponent("shop.store").path,
                definingQueries: [.init(name: "products", query: "Products")],
                key: try StoreKey.raw(Data(repeating: 3, count: 32))))
        try await store.open()
        return (store, folder)
    }

    static func service(_ server: ODataPyServer) -> ODataService {
        ODataService(
            configuration: .init(
                serviceURL: server.serviceURL, http: HTTPClient.Configuration(timeout: .seconds(60), retry: .never)))
    }

    @Test("create, update and delete offline; reads see them; upload applies them on the server")
    func crudThenUpload() async throws {
        let server = try await Self.peer.value
        let service = Self.service(server)
        let (store, folder) = try await Self.openStore(service)
        defer { try? FileManager.default.removeItem(at: folder) }
        let before = try await store.count("Products")

        let newID = try await store.create(
            "Products",
            ODataEntity(properties: [
                "ID": .int(5001), "Name": .string("Made offline"), "Price": .decimal(12.5), "Stock": .int(3),
                "CategoryID": .int(1),
            ]))
        try await store.update(
            "Products", .key(.single(.int(3))),
            with: ODataEntity(properties: ["Name": .string("Renamed offline"), "Stock": .int(77)]))
        try await store.delete("Products", .key(.single(.int(4))))

        // Reads see the pending changes.
        #expect(try await store.count("Products") == before)
        let made = try await store.entities("Products", query: ODataQuery().filter(.property("ID") == 5001))
        #expect(made.first?.offlineEntityID == newID && made.first?["Name"]?.stringValue == "Made offline")
        let renamed = try await store.entities("Products", query: ODataQuery().filter(.property("ID") == 3))
        #expect(renamed.first?["Name"]?.stringValue == "Renamed offline")
        #expect(try await store.count("Products", query: ODataQuery().filter(.property("ID") == 4)) == 0)
        let queued = try await store.requests()
        #expect(queued.map(\.method) == ["POST", "PATCH", "DELETE"])
        #expect(Set(queued.map(\.repeatabilityRequestID)).count == 3)

        let result = try await store.upload()
        #expect(result == OfflineUploadResult(sent: 3, failed: 0, held: 0))
        #expect(try await store.requests().isEmpty)

        // On the server.
        let created = try await service.entity("Products", key: .single(.int(5001)))
        #expect(created["Name"]?.stringValue == "Made offline")
        let changed = try await service.entity("Products", key: .single(.int(3)))
        #expect(changed["Name"]?.stringValue == "Renamed offline" && changed["Stock"]?.intValue == 77)
        await #expect(throws: ODataError.self) { try await service.entity("Products", key: .single(.int(4))) }

        // The created entity keeps its id; a later change goes to the server by its key.
        try await store.update("Products", .id(newID), with: ODataEntity(properties: ["Stock": .int(9)]))
        #expect(try await store.upload().sent == 1)
        #expect(try await service.entity("Products", key: .single(.int(5001)))["Stock"]?.intValue == 9)
        try await store.close()
    }

    @Test("the queue is optimised: create+update is one POST, create+delete is nothing, updates merge")
    func queueOptimisation() async throws {
        let server = try await Self.peer.value
        let (store, folder) = try await Self.openStore(Self.service(server))
        defer { try? FileManager.default.removeItem(at: folder) }
        let kept = try await store.create(
            "Products", ODataEntity(properties: ["ID": .int(6001), "Name": .string("a"), "CategoryID": .int(2)]))
        try await store.update("Products", .id(kept), with: ODataEntity(properties: ["Name": .string("b")]))
        let dropped = try await store.create(
            "Products", ODataEntity(properties: ["ID": .int(6002), "Name": .string("gone"), "CategoryID": .int(2)]))
        try await store.delete("Products", .id(dropped))
        try await store.update("Products", .key(.single(.int(20))), with: ODataEntity(properties: ["Stock": .int(1)]))
        try await store.update(
            "Products", .key(.single(.int(20))), with: ODataEntity(properties: ["Name": .string("x")]))
        let queued = try await store.requests()
        #expect(queued.map(\.method) == ["POST", "PATCH"])
        #expect(try await store.upload().sent == 2)
        let service = Self.service(server)
        #expect(try await service.entity("Products", key: .single(.int(6001)))["Name"]?.stringValue == "b")
        let twenty = try await service.entity("Products", key: .single(.int(20)))
        #expect(twenty["Name"]?.stringValue == "x" && twenty["Stock"]?.intValue == 1)
        await #expect(throws: ODataError.self) { try await service.entity("Products", key: .single(.int(6002))) }
        try await store.close()
    }

    @Test("comparisons with null are false, as in OData: not (Price gt 10) keeps a product without a price")
    func nullComparisons() async throws {
        let server = try await Self.peer.value
        let (store, folder) = try await Self.openStore(Self.service(server))
        defer { try? FileManager.default.removeItem(at: folder) }
        try await store.create("Products", ODataEntity(properties: ["ID": .int(6100), "Name": .string("no price")]))
        func ids(_ filter: ODataExpression) async throws -> [Int64] {
            try await store.entities("Products", query: ODataQuery().filter(filter && .property("ID") == 6100))
                .compactMap { $0["ID"]?.intValue }
        }
        #expect(try await ids(!(.property("Price") > .literal(.decimal(10)))) == [6100])
        #expect(try await ids(.property("Price") == .literal(.null)) == [6100])
        #expect(try await ids(.property("Price") != .literal(.decimal(5))) == [6100])
        #expect(
            try await ids(.property("Price") > .literal(.decimal(0)) || .property("Price") < .literal(.decimal(0)))
                == [])
        #expect(try await ids(!(.property("Price").isIn([1, 2]))) == [6100])
        try await store.close()
    }

    static let mockSAP = Task { try await MockSAPServer.start(.init(csrf: true), timeout: .seconds(60)) }

    @Test("V2 (mock-sap, CSRF, MERGE with If-Match): an offline change and deletion reach the server")
    func mockSAPV2Upload() async throws {
        let server = try await Self.mockSAP.value
        let service = ODataService(
            configuration: .init(
                serviceURL: server.serviceURL("GWSAMPLE_BASIC", namespace: "IWBEP"), sapClient: "100",
                http: HTTPClient.Configuration(timeout: .seconds(60), retry: .never), auth: [CSRFTokenAuth()]))
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-offline-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = OfflineStore(
            configuration: .init(
                service: service, path: folder.appendingPathComponent("gw.store").path,
                definingQueries: [.init(name: "products", query: "ProductSet")], key: nil))
        try await store.open()
        let products = try await store.entities("ProductSet", query: ODataQuery().orderBy("ProductID").top(2))
        let first = try #require(products.first?["ProductID"]?.stringValue)
        let second = try #require(products.last?["ProductID"]?.stringValue)
        // (mock-sap sends no ETags in ProductSet pages: the upload reads each entity's ETag and compares its values.)
        try await store.update(
            "ProductSet", .key(.single(.string(first))),
            with: ODataEntity(properties: ["Name": .string("Renamed offline (V2)")]))
        try await store.delete("ProductSet", .key(.single(.string(second))))
        let result = try await store.upload()
        let errors = try await store.errors()
        #expect(result == OfflineUploadResult(sent: 2, failed: 0, held: 0), "\(errors)")
        #expect(
            try await service.entity("ProductSet", key: .single(.string(first)))["Name"]?.stringValue
                == "Renamed offline (V2)")
        await #expect(throws: ODataError.self) { try await service.entity("ProductSet", key: .single(.string(second))) }
        try await store.close()
    }

    @Test("a change made on the server meanwhile: 412 into the ErrorArchive, later changes of it held, revert")
    func conflictAndRevert() async throws {
        let server = try await Self.peer.value
        let service = Self.service(server)
        let (store, folder) = try await Self.openStore(service)
        defer { try? FileManager.default.removeItem(at: folder) }
        let original = try #require(
            try await store.entities("Products", query: ODataQuery().filter(.property("ID") == 30)).first)

        // Someone else changes product 30 online: its ETag moves on.
        let current = try await service.entity("Products", key: .single(.int(30)))
        try await service.update(
            "Products", key: .single(.int(30)), with: ODataEntity(properties: ["Stock": .int(500)]),
            ifMatch: current.etag)

        try await store.update("Products", .key(.single(.int(30))), with: ODataEntity(properties: ["Stock": .int(1)]))
        try await store.update("Products", .key(.single(.int(31))), with: ODataEntity(properties: ["Stock": .int(2)]))
        let result = try await store.upload()
        #expect(result.failed == 1 && result.sent == 1)
        let errors = try await store.errors()
        #expect(errors.count == 1)
        let error = try #require(errors.first)
        #expect(error.httpStatus == 412 && error.requestMethod == "PATCH" && error.entityID == original.offlineEntityID)
        #expect(try await service.entity("Products", key: .single(.int(30)))["Stock"]?.intValue == 500)
        #expect(try await service.entity("Products", key: .single(.int(31)))["Stock"]?.intValue == 2)

        // Another change of product 30 merges into the failed request; it is not sent on its own.
        try await store.update(
            "Products", .key(.single(.int(30))), with: ODataEntity(properties: ["Name": .string("mine")]))
        #expect(try await store.requests().count == 1)

        // Giving up: the request goes, the product is as downloaded.
        let again = try await store.upload()
        #expect(again.failed == 1)
        let second = try #require(try await store.errors().first)
        try await store.revert(errorID: second.errorID)
        #expect(try await store.errors().isEmpty)
        #expect(try await store.requests().isEmpty)
        let reverted = try #require(
            try await store.entities("Products", query: ODataQuery().filter(.property("ID") == 30)).first)
        #expect(reverted["Stock"] == original["Stock"] && reverted["Name"] == original["Name"])
        try await store.close()
    }
}
