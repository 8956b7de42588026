import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelTestSupport
import Testing

/// The offline store against a V2 service that speaks only Atom (pyslet started with `atomOnly`, which has no
/// `$batch` either): the initial download follows Atom pages, local changes are uploaded as Atom entries one by
/// one, and a change made on the service arrives with the next download.
@Suite("Offline store against an Atom-only V2 service (pyslet)")
struct AtomOfflineTests {
    @Test("open, change offline, upload, change online, download: an Atom round trip")
    func roundTrip() async throws {
        let server = try await PysletServer.start(products: 40, pageSize: 9, atomOnly: true)
        defer { server.stop() }
        let folder = try offlineTestFolder("atom")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder,
            queries: [.init(name: "products", query: "Products"), .init(name: "categories", query: "Categories")])
        try await store.open()
        #expect(try await store.count("Products") == 40, "five Atom pages, none cut short")
        #expect(try await store.count("Categories") == 2)
        let twelve = try await store.entity(ODataPath("Products").key(.single(.int(12))))
        #expect(twelve["Stock"] == .int(10_000_000_012) && twelve["Note"] == .null)

        _ = try await store.create(
            ODataPath("Products"),
            ODataEntity(properties: [
                "ID": .int(900), "Name": "offline & <Atom>", "Price": .double(2.5), "Stock": .int(1),
                "Released": .null, "Note": "made offline",
            ]))
        try await store.update(
            ODataPath("Products").key(.single(.int(3))), with: ODataEntity(properties: ["Name": "renamed offline"]))
        try await store.delete(ODataPath("Products").key(.single(.int(4))), ifMatch: nil)
        let result = try await store.upload()
        #expect(result.failed == 0 && result.sent == 3, "\(result)")

        let online = atomOnlineService(server)
        #expect(
            try await online.entity(ODataPath("Products").key(.single(.int(900))))["Name"]
                == .string("offline & <Atom>"))
        #expect(
            try await online.entity(ODataPath("Products").key(.single(.int(3))))["Name"] == .string("renamed offline"))
        await #expect(throws: ODataError.self) { try await online.entity(ODataPath("Products").key(.single(.int(4)))) }

        try await online.update(
            ODataPath("Products").key(.single(.int(5))), with: ODataEntity(properties: ["Name": "changed online"]))
        try await store.download()
        #expect(
            try await store.entity(ODataPath("Products").key(.single(.int(5))))["Name"] == .string("changed online"))
        #expect(try await store.count("Products") == 40)
        try await store.close()
    }
}

/// The service at pyslet's root, payloads in whatever format it answers.
func atomOnlineService(_ server: PysletServer) -> ODataService {
    ODataService(
        configuration: .init(
            serviceURL: server.serviceURL, http: HTTPClient.Configuration(timeout: .seconds(30), retry: .never)))
}
