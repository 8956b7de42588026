import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelOfflineServer
import SatchelTestSupport
import Testing

/// Uploads whose answer from the back-end is lost on the way to the middle tier (the back-end applied them): a
/// retry is never applied twice, although odatapy here ignores repeatability headers.
@Suite("Offline middle tier: uploads in doubt", .serialized)
struct MiddleTierInDoubtTests {
    static let ini = """
        [endpoint]
        name = shop
        backend_url = BACKEND
        max_delta_resends = 2

        [defining_query]
        name = products
        query = /Products
        """

    static let firstSent = "Sat, 28 Nov 2026 10:00:00 GMT"

    static func headers(_ id: String) -> HTTPClient.Headers {
        ["Repeatability-Request-ID": id, "Repeatability-First-Sent": firstSent, "Content-Type": "application/json"]
    }

    @Test("a creation whose answer was lost: found by its key on the retry, or refused as of unknown outcome")
    func lostAnswers() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let tier = try await MiddleTierHarness.start(ini: Self.ini, backendPort: server.port, backendPath: "/odata")
        let posts = { tier.backendRequests("POST /odata/Products").count }

        // The body names the key: the retry reads Products(9200) and answers with it.
        let keyed = Data(#"{"ID":9200,"Name":"lost answer","CategoryID":1}"#.utf8)
        tier.proxy.dropResponse(toNext: "POST")
        let lost = try await tier.send(.post, "shop", "Products", user: "ada", headers: Self.headers("k1"), body: keyed)
        #expect(lost.status == 502, "\(lost.status) \(lost.text)")
        let retried = try await tier.send(
            .post, "shop", "Products", user: "ada", headers: Self.headers("k1"), body: keyed)
        #expect(retried.status == 201 && retried.headers["Repeatability-Result"] == "accepted", "\(retried.text)")
        #expect(retried.text.contains("lost answer"))
        #expect(posts() == 1, "the retry was not sent to the back-end again")
        let direct = ODataService(configuration: .init(serviceURL: server.serviceURL))
        #expect(try await direct.entity("Products", key: .single(.int(9200)))["Name"]?.stringValue == "lost answer")

        // A change that applied twice leaves one state: sent again.
        tier.proxy.dropResponse(toNext: "PATCH")
        let patch = Data(#"{"Name":"patched"}"#.utf8)
        var patchHeaders = Self.headers("p1")
        patchHeaders.add("If-Match", "*")
        let lostPatch = try await tier.send(
            .patch, "shop", "Products(9200)", user: "ada", headers: patchHeaders, body: patch)
        #expect(lostPatch.status == 502)
        let patched = try await tier.send(
            .patch, "shop", "Products(9200)", user: "ada", headers: patchHeaders, body: patch)
        #expect((200..<300).contains(patched.status), "\(patched.status) \(patched.text)")

        // Without its key nothing can tell whether it was created: refused, never sent twice.
        let unkeyed = Data(#"{"Name":"no key","CategoryID":1}"#.utf8)
        tier.proxy.dropResponse(toNext: "POST")
        _ = try await tier.send(.post, "shop", "Products", user: "ada", headers: Self.headers("u1"), body: unkeyed)
        let before = posts()
        let refused = try await tier.send(
            .post, "shop", "Products", user: "ada", headers: Self.headers("u1"), body: unkeyed)
        #expect(refused.status == 409 && refused.text.contains("satchel.outcomeUnknown"), "\(refused.text)")
        #expect(posts() == before)
        // Asked again, the same refusal, from the ledger.
        let again = try await tier.send(
            .post, "shop", "Products", user: "ada", headers: Self.headers("u1"), body: unkeyed)
        #expect(again.status == 409 && again.headers["Repeatability-Result"] == "accepted")
        await tier.stop()
    }

    @Test("an offline store whose upload answer was lost uploads again: one entity on the back-end")
    func storeRetries() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let tier = try await MiddleTierHarness.start(ini: Self.ini, backendPort: server.port, backendPath: "/odata")
        let store = try await tier.store("shop", user: "bob", queries: [.init(name: "products", query: "Products")])
        _ = try await store.create(
            "Products", ODataEntity(properties: ["ID": .int(9300), "Name": "once", "CategoryID": .int(1)]))
        tier.proxy.dropResponse(toNext: "POST")
        // The middle tier answers 502 (the back-end's answer never came): the request stays queued, deferred.
        let first = try await store.upload()
        #expect(first.deferred == 1 && first.sent == 0 && first.lastFailure?.hasPrefix("502") == true, "\(first)")
        #expect(try await store.requests().count == 1)
        let second = try await store.upload()
        #expect(second.sent == 1 && second.failed == 0, "\(second)")
        #expect(try await store.requests().isEmpty)
        #expect(try await store.errors().isEmpty)
        let direct = ODataService(configuration: .init(serviceURL: server.serviceURL))
        let found = try await direct.entities(
            ODataPath("Products"), query: ODataQuery().filter(.property("Name") == .literal(.string("once")))
        ).collect()
        #expect(found.count == 1)
        try await store.close()
        await tier.stop()
    }

    /// A `$batch` holding one changeset of `members` (each a method, target, optional repeatability id and body).
    static func changeset(_ members: [(String, String, String?, String)]) -> (HTTPClient.Headers, Data) {
        var lines: [String] = ["--b", "Content-Type: multipart/mixed; boundary=c", ""]
        for (index, (method, target, id, body)) in members.enumerated() {
            lines += [
                "--c", "Content-Type: application/http", "Content-Transfer-Encoding: binary",
                "Content-ID: \(index + 1)", "", "\(method) \(target) HTTP/1.1", "Content-Type: application/json",
            ]
            if let id { lines += ["Repeatability-Request-ID: \(id)", "Repeatability-First-Sent: \(firstSent)"] }
            lines += ["", body]
        }
        lines += ["--c--", "--b--", ""]
        return (
            ["Content-Type": "multipart/mixed; boundary=b"], Data(lines.joined(separator: "\r\n").utf8)
        )
    }

    @Test("a transaction is sent to the back-end once as one changeset; sent again it is answered from the ledger")
    func transactions() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let tier = try await MiddleTierHarness.start(ini: Self.ini, backendPort: server.port, backendPath: "/odata")
        let batches = { tier.backendRequests("POST /odata/$batch").count }
        let (headers, body) = Self.changeset([
            ("POST", "Products", "t1", #"{"ID":9501,"Name":"first","CategoryID":1}"#),
            ("POST", "Products", "t2", #"{"ID":9502,"Name":"second","CategoryID":1}"#),
        ])
        let first = try await tier.send(.post, "shop", "$batch", user: "ada", headers: headers, body: body)
        #expect(first.status == 200 && first.text.contains("201 Created"), "\(first.status) \(first.text)")
        #expect(batches() == 1)
        let again = try await tier.send(.post, "shop", "$batch", user: "ada", headers: headers, body: body)
        #expect(again.text.components(separatedBy: "Repeatability-Result: accepted").count == 3, "\(again.text)")
        #expect(batches() == 1, "answered from the ledger")
        let direct = ODataService(configuration: .init(serviceURL: server.serviceURL))
        #expect(try await direct.entity("Products", key: .single(.int(9502)))["Name"]?.stringValue == "second")

        // A member without an id does not shift the others: each id keeps its own request's answer.
        let (mixedHeaders, mixed) = Self.changeset([
            ("POST", "Products", nil, #"{"ID":9601,"Name":"no id","CategoryID":1}"#),
            ("POST", "Products", "t3", #"{"ID":9602,"Name":"with id","CategoryID":1}"#),
        ])
        let applied = try await tier.send(.post, "shop", "$batch", user: "ada", headers: mixedHeaders, body: mixed)
        #expect(applied.status == 200 && applied.text.contains("with id"), "\(applied.text)")
        var single = Self.headers("t3")
        single.add("X-Test", "replay")
        let replay = try await tier.send(
            .post, "shop", "Products", user: "ada", headers: single,
            body: Data(#"{"ID":9602,"Name":"with id","CategoryID":1}"#.utf8))
        #expect(replay.headers["Repeatability-Result"] == "accepted", "\(replay.status) \(replay.text)")
        #expect(replay.text.contains("9602") && !replay.text.contains("9601"), "\(replay.text)")
        await tier.stop()
    }
}
