import Foundation
import Hummingbird
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelTestSupport
import Testing

/// One process, several stores: two services with a store each, open, downloading and uploading at once; and one
/// store per user under one folder, where no user name reaches another's file.
@Suite("Offline stores: several at once, one per user")
struct SeveralStoresTests {
    @Test("two stores on two services open at once: downloads and uploads run together and stay apart")
    func twoServicesAtOnce() async throws {
        let v4 = try await ODataPyServer.start(maxPageSize: 30, timeout: .seconds(60))
        defer { v4.stop() }
        let v2 = try await TestHTTPServer.start { router in
            router.get("/odata/**") { request, _ -> Response in
                if request.uri.path.hasSuffix("$metadata") {
                    return Response(
                        status: .ok, headers: [.contentType: "application/xml"],
                        body: .init(byteBuffer: ByteBuffer(string: NextLinkShapeTests.metadata)))
                }
                let start = request.uri.queryParameters.get("$skiptoken").flatMap { Int($0) } ?? 0
                return Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: NextLinkShapeTests.page(from: start, shape: .object))))
            }
        }
        let folder = try offlineTestFolder("several")
        try await withCleanup {
            let shop = offlineTestStore(
                serviceURL: v4.serviceURL, folder: folder.appendingPathComponent("shop"),
                queries: [.init(name: "p", query: "Products")])
            let crm = OfflineStore(
                configuration: .init(
                    service: NextLinkShapeTests.service(v2), path: folder.appendingPathComponent("crm.store").path,
                    definingQueries: [.init(name: "c", query: "Customers")], key: StoreKey.random()))
            async let openShop: Void = shop.open()
            async let openCRM: Void = crm.open()
            _ = try await (openShop, openCRM)
            #expect(try await crm.count("Customers") == NextLinkShapeTests.total)
            let products = try await shop.count("Products")
            #expect(products > 0)
            #expect(try await shop.version() == .v4)
            #expect(try await crm.version() == .v2)

            // Changes in one are not in the other; both download again at once.
            try await shop.update(
                "Products", .key(.single(.int(7))), with: ODataEntity(properties: ["Stock": .int(7777)]))
            async let again1: Void = shop.download()
            async let again2: Void = crm.download()
            _ = try await (again1, again2)
            #expect(try await shop.requests().count == 1)
            #expect(try await crm.requests().isEmpty)
            #expect(try await crm.count("Customers") == NextLinkShapeTests.total)
            #expect(try await shop.upload().sent == 1)
            let direct = ODataService(configuration: .init(serviceURL: v4.serviceURL))
            #expect(try await direct.entity("Products", key: .single(.int(7)))["Stock"]?.intValue == 7777)
            try await shop.close()
            try await crm.close()
        } cleanup: {
            await v2.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test("per-user stores under one folder: each user's own file, whatever the name")
    func perUser() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 30, timeout: .seconds(60))
        defer { server.stop() }
        let folder = try offlineTestFolder("users")
        defer { try? FileManager.default.removeItem(at: folder) }
        let users = ["alice", "bob", "../alice", "a/b", "Zoë", "%61lice", "Alice", "ALICE"]
        let paths = try users.map { try OfflineStore.Configuration.path(forUser: $0, store: "shop", in: folder) }
        // Distinct even where the file system ignores case.
        #expect(Set(paths.map { $0.lowercased() }).count == users.count, "every name has its own file: \(paths)")
        let expectedFolder = folder.appendingPathComponent("shop.users").path
        for path in paths {
            #expect(URL(fileURLWithPath: path).deletingLastPathComponent().path == expectedFolder, "\(path)")
        }
        #expect(throws: OfflineStoreError.self) {
            try OfflineStore.Configuration.path(forUser: "", store: "shop", in: folder)
        }

        // Two users' stores: each with its own key and its own changes.
        var stores: [OfflineStore] = []
        for (user, path) in zip(users.prefix(2), paths) {
            let store = OfflineStore(
                configuration: .init(
                    service: offlineTestService(server.serviceURL), path: path,
                    definingQueries: [.init(name: "p", query: "Products?$filter=ID le 10")],
                    key: StoreKey.random()))
            try await store.open()
            try await store.update(
                "Products", .key(.single(.int(1))), with: ODataEntity(properties: ["Name": .string("by \(user)")]))
            stores.append(store)
        }
        for (index, store) in stores.enumerated() {
            let name = try await store.entities("Products", query: ODataQuery().filter(.property("ID") == 1))
                .first?["Name"]
            #expect(name == .string("by \(users[index])"))
            #expect(try await store.requests().count == 1)
            try await store.close()
        }
        let attributes = try FileManager.default.attributesOfItem(atPath: expectedFolder)
        #expect((attributes[.posixPermissions] as? NSNumber)?.intValue == 0o700)
    }
}
