import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelTestSupport
import Testing

/// Two `satchel serve --offline` processes on one PostgreSQL store serve one application: a request one applied is
/// answered from the shared ledger by the other, never applied twice; a delta link one gave is answered by the
/// other from the shared row state.
@Suite("Offline middle tier on PostgreSQL: two servers, one state", .serialized)
struct MiddleTierPostgresTests {
    @Test("a retry through the other server is replayed from the ledger; a delta link works on either server")
    func twoServers() async throws {
        let postgres = try await TemporaryPostgres.start()
        let server = try await MiddleTierV4Tests.backend()
        defer { server.stop() }
        let url = try postgres.createDatabase()
        let first = try await MiddleTierHarness.start(
            ini: MiddleTierV4Tests.ini, backendPort: server.port, backendPath: "/odata", postgres: url)
        let second = try await MiddleTierHarness.start(
            ini: MiddleTierV4Tests.ini, backendPort: server.port, backendPath: "/odata", postgres: url)

        // Applied through the first; its retry reaches the second (a balancer's choice), which replays the answer.
        var headers: HTTPClient.Headers = [
            "Repeatability-Request-ID": "pg-1", "Repeatability-First-Sent": "Sat, 28 Nov 2026 12:00:00 GMT",
            "Content-Type": "application/json",
        ]
        let body = Data(#"{"ID":9300,"Name":"through the first","CategoryID":1}"#.utf8)
        let created = try await first.send(.post, "shop", "Products", user: "ada", headers: headers, body: body)
        #expect(created.status == 201, "\(created.status) \(created.text)")
        let retried = try await second.send(.post, "shop", "Products", user: "ada", headers: headers, body: body)
        #expect(retried.status == 201 && retried.headers["Repeatability-Result"] == "accepted", "\(retried.text)")
        #expect(second.backendRequests("POST /odata/Products").isEmpty, "the second server sent it again")
        // Another user's request with the same id is theirs, not Ada's answer.
        headers["Repeatability-Request-ID"] = "pg-1"
        let bobs = try await second.send(
            .post, "shop", "Products", user: "bob", headers: headers,
            body: Data(#"{"ID":9301,"Name":"bob's","CategoryID":1}"#.utf8))
        #expect(bobs.status == 201 && bobs.text.contains("bob's"), "\(bobs.text)")

        // A full read through the first gives a delta link; the second answers it from the same row state.
        let client = first.service("shop", user: "ada")
        var page = try await client.page(ODataPath("Products"))
        while let next = page.nextLink { page = try await client.page(link: next, entitySet: "Products") }
        let deltaLink = try #require(page.deltaLink)
        let onSecond = deltaLink.replacingOccurrences(
            of: first.root("shop").absoluteString, with: second.root("shop").absoluteString)
        let direct = MiddleTierV4Tests.direct(server)
        let seven = try await direct.entity("Products", key: .single(.int(7)))
        try await direct.update(
            "Products", key: .single(.int(7)), with: ODataEntity(properties: ["Name": "changed for the second"]),
            ifMatch: seven.etag)
        let delta = try await second.service("shop", user: "ada").page(link: onSecond, entitySet: "Products")
        #expect(delta.entities.map { $0["Name"]?.stringValue } == ["changed for the second"], "\(delta.entities)")

        await first.stop()
        await second.stop()
        await postgres.stop()
    }
}
