import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelOfflineServer
import SatchelTestSupport
import Testing

/// `OfflineStore` through `satchel serve --offline` in front of odatapy (V4): the store opens, changes go to the
/// back-end through the ledger, the back-end's changes come back as deltas, shared data is read once for every
/// user, and a user reaches only the shared data and their own.
@Suite("Offline middle tier in front of odatapy (V4)", .serialized)
struct MiddleTierV4Tests {
    static let ini = """
        [endpoint]
        name = shop
        backend_url = BACKEND
        service_user = svc
        service_password_env = SVC_PASSWORD

        [defining_query]
        name = categories
        query = /Categories
        is_shared_data = Y
        refresh_interval = 60
        track_deltas = ALWAYS

        [defining_query]
        name = products
        query = /Products
        track_deltas = ALWAYS

        [defining_query]
        name = orders
        query = /Orders
        """

    static func backend() async throws -> ODataPyServer {
        try await ODataPyServer.start(maxPageSize: 7, timeout: .seconds(60))
    }

    static func direct(_ server: ODataPyServer) -> ODataService {
        ODataService(
            configuration: .init(
                serviceURL: server.serviceURL, http: HTTPClient.Configuration(timeout: .seconds(60), retry: .never)))
    }

    static let queries: [OfflineDefiningQuery] = [
        .init(name: "categories", query: "Categories"), .init(name: "products", query: "Products"),
    ]

    @Test("open, local changes uploaded to the back-end, the back-end's change downloaded, a conflict archived")
    func roundTrip() async throws {
        let server = try await Self.backend()
        defer { server.stop() }
        let tier = try await MiddleTierHarness.start(ini: Self.ini, backendPort: server.port, backendPath: "/odata")
        let direct = Self.direct(server)
        let store = try await tier.store("shop", user: "ada", queries: Self.queries)
        let productCount = try await direct.entities("Products").collect().count
        #expect(try await store.count("Products") == productCount)
        #expect(try await store.count("Categories") == (try await direct.entities("Categories").collect().count))

        // Local changes, uploaded through the ledger and found on the back-end.
        _ = try await store.create(
            "Products", ODataEntity(properties: ["ID": .int(9001), "Name": "made offline", "CategoryID": .int(1)]))
        try await store.update(
            "Products", .key(.single(.int(3))), with: ODataEntity(properties: ["Name": "renamed offline"]))
        let uploaded = try await store.upload()
        #expect(uploaded.failed == 0 && uploaded.sent == 2, "\(uploaded)")
        #expect(try await direct.entity("Products", key: .single(.int(9001)))["Name"]?.stringValue == "made offline")
        #expect(try await direct.entity("Products", key: .single(.int(3)))["Name"]?.stringValue == "renamed offline")

        // A change on the back-end arrives with the next download, as a delta of the middle tier.
        let five = try await direct.entity("Products", key: .single(.int(5)))
        try await direct.update(
            "Products", key: .single(.int(5)), with: ODataEntity(properties: ["Name": "changed on the back-end"]),
            ifMatch: five.etag)
        try await store.download()
        let names = try await store.entities(
            "Products", query: ODataQuery().filter(.property("ID") == .literal(.int(5))))
        #expect(names.first?["Name"]?.stringValue == "changed on the back-end")
        #expect(try await store.count("Products") == productCount + 1)

        // A local change to an entity changed meanwhile on the back-end: refused there, kept in the ErrorArchive.
        let seven = try await direct.entity("Products", key: .single(.int(7)))
        try await store.update("Products", .key(.single(.int(7))), with: ODataEntity(properties: ["Name": "mine"]))
        try await direct.update(
            "Products", key: .single(.int(7)), with: ODataEntity(properties: ["Name": "theirs"]), ifMatch: seven.etag)
        let conflicted = try await store.upload()
        #expect(conflicted.failed == 1)
        let errors = try await store.errors()
        #expect(
            errors.count == 1 && errors.first.map { (400..<500).contains(($0.httpStatus ?? 0)) } == true, "\(errors)")
        #expect(try await direct.entity("Products", key: .single(.int(7)))["Name"]?.stringValue == "theirs")
        try await store.close()
        await tier.stop()
    }

    @Test("a shared query is read from the back-end once for several users; a user's own query with their own")
    func sharedOnce() async throws {
        let server = try await Self.backend()
        defer { server.stop() }
        let tier = try await MiddleTierHarness.start(ini: Self.ini, backendPort: server.port, backendPath: "/odata")
        var stores: [OfflineStore] = []
        for user in ["ada", "bob", "ada", "bob"] {
            stores.append(try await tier.store("shop", user: user, queries: Self.queries))
        }
        for store in stores { try await store.download() }
        // First pages only: a read of several pages follows the back-end's next links.
        let categoryReads = tier.backendRequests("GET /odata/Categories").filter { !$0.contains("skiptoken") }
        #expect(categoryReads.count == 1, "\(categoryReads)")
        #expect(categoryReads.allSatisfy { $0.contains("Basic \(Data("svc:svc-secret".utf8).base64EncodedString())") })
        // Per-user data: read with each user's credentials, at each open and download (refresh_interval 0).
        let productReads = tier.backendRequests("GET /odata/Products").filter { !$0.contains("skiptoken") }
        #expect(productReads.count == 8, "\(productReads.count)")
        for user in ["ada", "bob"] {
            let credential = Data("\(user):\(MiddleTierHarness.users[user]!)".utf8).base64EncodedString()
            #expect(productReads.filter { $0.contains(credential) }.count == 4, "\(user)")
        }
        for store in stores { try await store.close() }
        await tier.stop()
    }

    @Test("deltas of the middle tier carry only the changed rows; the back-end's own delta links are used")
    func deltas() async throws {
        let server = try await Self.backend()
        defer { server.stop() }
        let tier = try await MiddleTierHarness.start(ini: Self.ini, backendPort: server.port, backendPath: "/odata")
        let direct = Self.direct(server)
        let client = tier.service("shop", user: "ada")
        for (set, id) in [("Products", 2), ("Orders", 1)] {
            var page = try await client.page(ODataPath(set))
            var total = page.entities.count
            while let next = page.nextLink {
                page = try await client.page(link: next, entitySet: set)
                total += page.entities.count
            }
            #expect(total == (try await direct.entities(ODataPath(set)).collect().count), "\(set)")
            let deltaLink = try #require(page.deltaLink, "no delta link on the last page of \(set)")
            #expect(deltaLink.hasPrefix(tier.root("shop").absoluteString), "\(deltaLink)")

            let current = try await direct.entity(set, key: .single(.int(id)))
            let property = set == "Products" ? "Name" : "CustomerName"
            try await direct.update(
                set, key: .single(.int(id)), with: ODataEntity(properties: [property: .string("changed \(set)")]),
                ifMatch: current.etag)
            let delta = try await client.page(link: deltaLink, entitySet: set)
            #expect(delta.entities.count == 1, "\(set): \(delta.entities.count) entities in the delta")
            #expect(delta.entities.first?[property]?.stringValue == "changed \(set)")
            #expect(delta.deltaLink != nil && delta.nextLink == nil)
            // Nothing changed since: an empty delta.
            let empty = try await client.page(link: try #require(delta.deltaLink), entitySet: set)
            #expect(empty.entities.isEmpty, "\(set)")
        }
        // Orders track deltas AUTO: the second refresh followed odatapy's own delta link.
        let orderReads = tier.backendRequests("GET /odata/Orders")
        #expect(orderReads.contains { $0.contains("deltatoken") || $0.contains("delta") }, "\(orderReads)")
        // An unknown token is refused with 410, so the client reads in full again.
        let gone = try await tier.send(.get, "shop", "Products?$deltatoken=S.999", user: "ada")
        #expect(gone.status == 410, "\(gone.status) \(gone.text)")
        await tier.stop()
    }

    @Test("a user reaches only the shared data and their own: another user's query, token and ledger stay apart")
    func isolation() async throws {
        let server = try await Self.backend()
        defer { server.stop() }
        let tier = try await MiddleTierHarness.start(ini: Self.ini, backendPort: server.port, backendPath: "/odata")
        // Without credentials, nothing.
        let anonymous = try await HTTPClient().send(
            {
                var request = HTTPClient.Request(.get, url: tier.root("shop").appendingPathComponent("Categories"))
                request.validatesStatus = false
                return request
            }())
        #expect(anonymous.status == 401)
        // A path that climbs out of the service never reaches the back-end.
        let climbing = try await tier.send(.get, "shop", "%2E%2E/%2e%2e/secret", user: "ada")
        #expect(climbing.status == 400, "\(climbing.status) \(climbing.text)")
        #expect(tier.backendRequests("GET /secret").isEmpty && tier.backendRequests("GET /odata/..").isEmpty)
        // Ada's upload, answered and recorded under her name.
        let id = "ada-request-1"
        let body = Data(#"{"ID":9100,"Name":"ada's","CategoryID":1}"#.utf8)
        let headers: HTTPClient.Headers = [
            "Repeatability-Request-ID": id, "Repeatability-First-Sent": "Sat, 28 Nov 2026 10:00:00 GMT",
            "Content-Type": "application/json",
        ]
        let first = try await tier.send(.post, "shop", "Products", user: "ada", headers: headers, body: body)
        #expect(first.status == 201, "\(first.status) \(first.text)")
        let again = try await tier.send(.post, "shop", "Products", user: "ada", headers: headers, body: body)
        #expect(again.status == 201 && again.headers["Repeatability-Result"] == "accepted")
        #expect(tier.backendRequests("POST /odata/Products").count == 1, "replayed from the ledger, not sent again")
        // Bob, with Ada's id and another body: his own request, never Ada's answer.
        let bobs = try await tier.send(
            .post, "shop", "Products", user: "bob", headers: headers,
            body: Data(#"{"ID":9101,"Name":"bob's","CategoryID":1}"#.utf8))
        #expect(bobs.status == 201 && bobs.headers["Repeatability-Result"] == nil)
        #expect(!bobs.text.contains("ada's"))
        #expect(tier.backendRequests("POST /odata/Products").count == 2)
        // The same id with another body from Ada: refused, not replayed.
        let changed = try await tier.send(
            .post, "shop", "Products", user: "ada", headers: headers,
            body: Data(#"{"ID":9102,"Name":"other","CategoryID":1}"#.utf8))
        #expect(changed.status == 422, "\(changed.status) \(changed.text)")
        await tier.stop()
    }
}
