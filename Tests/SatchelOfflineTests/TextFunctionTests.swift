import Foundation
import SatchelOData
import SatchelOffline
import SatchelTestSupport
import Testing

/// `tolower` and `toupper` change every letter, as the service does (SQLite's own `lower`/`upper` change ASCII
/// only), against odatapy (V4).
@Suite("Offline store: text functions beyond ASCII")
struct TextFunctionTests {
    @Test("tolower/toupper of non-ASCII names: the store answers as the service")
    func nonASCII() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let service = offlineTestService(server.serviceURL)
        for (id, name) in [(1, "Ärger Über Straße"), (2, "ÉCOLE élève"), (3, "Ωμέγα")] {
            try await service.update(
                "Categories", key: .single(.int(id)), with: ODataEntity(properties: ["Name": .string(name)]))
        }
        let folder = try offlineTestFolder("text")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder, queries: [.init(name: "c", query: "Categories")])
        try await store.open()
        let filters: [ODataExpression] = [
            .toLower(.property("Name")) == "ärger über straße",
            .toUpper(.property("Name")) == "ÉCOLE ÉLÈVE",
            .contains(.toLower(.property("Name")), "ωμέγα"),
            .startsWith(.toUpper(.property("Name")), "ÄRGER"),
        ]
        for filter in filters {
            let query = ODataQuery().filter(filter)
            let online = try await service.entities("Categories", query: query).collect().map { $0["ID"] }
            let local = try await store.entities("Categories", query: query).map { $0["ID"] }
            #expect(local == online && local.count == 1, "\(filter)")
        }
        try await store.close()
    }
}
