import Foundation
import SatchelNuxeo
import SatchelOData
import SatchelServerTestSupport
import SatchelTestSupport
import Testing

/// The README's blocks run against real servers: `satchel serve` in this process for CMIS and Nuxeo, the odatapy
/// V4 service (a real OData implementation, started by the suite) for OData, the offline store and HTTP.
@Suite("README examples against real servers", .serialized)
struct ReadmeExamplesTests {
    @Test("CMIS and Nuxeo against satchel serve")
    func cmisAndNuxeo() async throws {
        let server = try await LiveServer.start(users: ["demo"])
        do {
            let cmis = try await ReadmeExamples.cmis(serverURL: server.baseURL, password: "pw-demo")
            #expect(cmis.names == ["q3.txt"])
            #expect(cmis.text == Data("Q3: up 4 %".utf8))
            let titles = try await ReadmeExamples.nuxeo(serverURL: server.baseURL, password: "pw-demo")
            #expect(titles == ["Monday"], "the note keeps its own title and is found as a Note")
        } catch {
            await server.stop()
            throw error
        }
        await server.stop()
    }

    @Test("OData, the offline store and HTTP against an OData V4 service")
    func odataOfflineAndHTTP() async throws {
        let service = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { service.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-readme-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }

        let online = try await ReadmeExamples.odata(
            serviceURL: service.serviceURL, password: "pw-demo", maximumPrice: 20)
        #expect(!online.cheap.isEmpty, "the service has products under 20")
        #expect(online.cheap == online.cheap.sorted(), "ordered by name")
        #expect(online.created?["Name"]?.stringValue == "Green tea")

        let client = ODataService(configuration: .init(serviceURL: service.serviceURL))
        let cheap = try await ReadmeExamples.offline(
            service: client, storePath: folder.appendingPathComponent("shop.store").path, passphrase: "correct horse")
        var cheapOnline = 0
        for try await _ in client.entities("Products", query: ODataQuery().filter(.property("Price") < 20)) {
            cheapOnline += 1
        }
        // Read offline before Black tea was created there; the service now has it too.
        #expect(cheap + 1 == cheapOnline, "the offline store reads what the service has (Green tea included)")
        #expect(cheapOnline > online.cheap.count, "more than the online example's first 20, Green tea among them")
        var uploaded: [String] = []
        for try await product in client.entities("Products", query: ODataQuery().filter(.property("ID") == 9002)) {
            uploaded.append(product["Name"]?.stringValue ?? "")
        }
        #expect(uploaded == ["Black tea"], "the change made offline reached the service")

        let media = folder.appendingPathComponent("notes.txt")
        let root = URL(string: service.serviceURL.absoluteString + "/")!
        let bytes = try await ReadmeExamples.http(serviceRoot: root, password: "pw-demo", localFile: media)
        #expect(bytes > 0)
        #expect(try String(contentsOf: media, encoding: .utf8) == String(repeating: "two\n", count: 100))
    }
}
