import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelOfflineServer
import SatchelRepository
import SatchelStore
import SatchelTestSupport
import Synchronization
import Testing

/// Prebuilt stores (`POST $satchel.store`) through `satchel serve --offline` in front of odatapy (V4): the first open
/// receives a store built on the server, shared data from a template built once, the user's own read with their
/// credentials, sealed under the client's key in the end; later downloads are deltas of the middle tier.
@Suite("Prebuilt stores from the offline middle tier", .serialized)
struct MiddleTierStoreTests {
    static func ini(prepopulate: String) -> String {
        """
        [endpoint]
        name = shop
        backend_url = BACKEND
        service_user = svc
        service_password_env = SVC_PASSWORD
        prepopulate_offline_db = \(prepopulate)
        prepopulate_offline_db_interval = 60

        [defining_query]
        name = categories
        query = /Categories
        is_shared_data = Y
        refresh_interval = 60

        [defining_query]
        name = products
        query = /Products
        track_deltas = ALWAYS
        """
    }

    /// The client spells its queries its own way (no leading `/`): the store keeps them complete all the same.
    static let queries: [OfflineDefiningQuery] = [
        .init(name: "categories", query: "Categories"), .init(name: "products", query: "Products"),
    ]

    /// Opens a store of `user`'s through the middle tier and returns it open, with the progress its open reported.
    static func open(
        _ tier: MiddleTierHarness, user: String, key: StoreKey, queries: [OfflineDefiningQuery] = queries
    ) async throws -> (store: OfflineStore, steps: [OfflineProgress], path: String) {
        let path = tier.folder.appendingPathComponent("\(user)-\(UUID()).store").path
        let store = OfflineStore(
            configuration: .init(
                service: tier.service("shop", user: user), path: path, definingQueries: queries, key: key,
                usesMiddleTier: true))
        let steps = try await recording(store) { try await store.open() }
        return (store, steps, path)
    }

    /// The progress `store` reports while `body` runs (an open or a download, each ending with `finished`).
    static func recording(
        _ store: OfflineStore, _ body: () async throws -> Void
    ) async throws -> [OfflineProgress] {
        let steps = Mutex<[OfflineProgress]>([])
        let stream = store.progress()
        let listener = Task { for await step in stream { steps.withLock { $0.append(step) } } }
        try await body()
        // The stream delivers the last steps a moment after the exchange ended.
        let deadline = ContinuousClock.now + .seconds(10)
        while !steps.withLock({ $0.contains(.finished) }), ContinuousClock.now < deadline {
            try await Task.sleep(for: .milliseconds(10))
        }
        listener.cancel()
        return steps.withLock { $0 }
    }

    @Test("the first open receives a built store: shared data built once, own data with the user's credentials")
    func prebuilt() async throws {
        let server = try await MiddleTierV4Tests.backend()
        defer { server.stop() }
        let tier = try await MiddleTierHarness.start(
            ini: Self.ini(prepopulate: "Y"), backendPort: server.port, backendPath: "/odata")
        let direct = MiddleTierV4Tests.direct(server)
        let products = try await direct.entities("Products").collect().count
        let categories = try await direct.entities("Categories").collect().count

        var keys: [String: StoreKey] = [:]
        var paths: [String] = []
        for user in ["ada", "bob", "ada"] {
            let key = StoreKey.random()
            let (store, steps, path) = try await Self.open(tier, user: user, key: key)
            keys[path] = key
            paths.append(path)
            #expect(steps.contains(.receivingStore) && steps.contains(.resealing), "\(steps)")
            // Nothing was downloaded entity by entity: the store arrived whole.
            #expect(!steps.contains { if case .definingQuery = $0 { true } else { false } }, "\(steps)")
            #expect(steps.contains { if case .bytes(let received, _) = $0 { received > 8192 } else { false } })
            #expect(try await store.count("Products") == products)
            #expect(try await store.count("Categories") == categories)
            #expect(try await store.isInitialDownloadComplete)
            try await store.close()
        }
        // Shared data: one back-end read for the template, whoever opened; each user's own with their credentials.
        let categoryReads = tier.backendRequests("GET /odata/Categories").filter { !$0.contains("skiptoken") }
        #expect(categoryReads.count == 1, "\(categoryReads)")
        #expect(categoryReads.allSatisfy { $0.contains("Basic \(Data("svc:svc-secret".utf8).base64EncodedString())") })
        let productReads = tier.backendRequests("GET /odata/Products").filter { !$0.contains("skiptoken") }
        for user in ["ada", "bob"] {
            let credential = Data("\(user):\(MiddleTierHarness.users[user]!)".utf8).base64EncodedString()
            #expect(productReads.contains { $0.contains(credential) }, "\(user) never read Products")
        }

        // Each store is sealed under its client's key alone: no transfer key, no other client's key opens it.
        for path in paths {
            let key = try #require(keys[path])
            #expect(try StoreFile(path: path).check(key: key).isSound)
            for (other, otherKey) in keys where other != path {
                #expect((try? StoreFile(path: path).check(key: otherKey)) == nil)
            }
            #expect(!FileManager.default.fileExists(atPath: path + ".transfer"))
        }
        // Nothing of the builds stays on the server (each answer is removed once sent).
        let stores = tier.folder.appendingPathComponent("offline-stores")
        func leftovers() -> [String] {
            let processes = (try? FileManager.default.contentsOfDirectory(atPath: stores.path)) ?? []
            return processes.flatMap { process in
                (try? FileManager.default.contentsOfDirectory(
                    atPath: stores.appendingPathComponent("\(process)/builds").path)) ?? []
            }
        }
        let deadline = ContinuousClock.now + .seconds(5)
        while !leftovers().isEmpty, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(20)) }
        #expect(leftovers().isEmpty, "\(leftovers())")

        // The store's delta links lead to the middle tier: a change on the back-end arrives as a one-row delta.
        let key = try #require(keys[paths[0]])
        let store = OfflineStore(
            configuration: .init(
                service: tier.service("shop", user: "ada"), path: paths[0], definingQueries: Self.queries, key: key,
                usesMiddleTier: true))
        try await store.open()
        let four = try await direct.entity("Products", key: .single(.int(4)))
        try await direct.update(
            "Products", key: .single(.int(4)), with: ODataEntity(properties: ["Name": "changed after the build"]),
            ifMatch: four.etag)
        let steps = try await Self.recording(store) { try await store.download() }
        let received = steps.compactMap { step -> Int? in
            if case .received(let query, let count) = step, query == "products" { return count }
            return nil
        }
        #expect(received.last == 1, "\(received)")
        let renamed = try await store.entities(
            "Products", query: ODataQuery().filter(.property("ID") == .literal(.int(4))))
        #expect(renamed.first?["Name"]?.stringValue == "changed after the build")
        try await store.close()
        await tier.stop()
    }

    @Test("SHARED-ONLY: the store holds the shared data, the client downloads its own; N: the schema only")
    func prepopulationModes() async throws {
        let server = try await MiddleTierV4Tests.backend()
        defer { server.stop() }
        let direct = MiddleTierV4Tests.direct(server)
        let products = try await direct.entities("Products").collect().count
        for (mode, downloaded) in [("SHARED-ONLY", ["products"]), ("N", ["categories", "products"])] {
            let tier = try await MiddleTierHarness.start(
                ini: Self.ini(prepopulate: mode), backendPort: server.port, backendPath: "/odata")
            let (store, steps, _) = try await Self.open(tier, user: "ada", key: .random())
            #expect(steps.contains(.receivingStore), "\(mode)")
            let names = steps.compactMap { step -> String? in
                if case .definingQuery(let name, _, _) = step { return name }
                return nil
            }
            #expect(names == downloaded, "\(mode): downloaded \(names)")
            #expect(try await store.count("Products") == products)
            try await store.close()
            await tier.stop()
        }
    }

    @Test("refusals: a store too large, a GET, a malformed request, no credentials, plain HTTP away from loopback")
    func refusals() async throws {
        let server = try await MiddleTierV4Tests.backend()
        defer { server.stop() }
        var limits = OfflineTierLimits()
        limits.maxStoreBytes = 4096
        let tier = try await MiddleTierHarness.start(
            ini: Self.ini(prepopulate: "Y"), backendPort: server.port, backendPath: "/odata", limits: limits)
        let tooLarge = try await tier.send(.post, "shop", "$satchel.store", user: "ada", body: Data("{}".utf8))
        #expect(tooLarge.status == 413, "\(tooLarge.status) \(tooLarge.text)")
        #expect(tooLarge.headers["Satchel-Transfer-Key"] == nil)
        // The client then downloads its data as from any service.
        let (store, steps, path) = try await Self.open(tier, user: "ada", key: .random())
        #expect(steps.contains(.receivingStore) && !steps.contains(.resealing), "\(steps)")
        #expect(steps.contains(.definingQuery(name: "products", index: 2, count: 2)), "\(steps)")
        let backendProducts = try await MiddleTierV4Tests.direct(server).entities("Products").collect().count
        #expect(try await store.count("Products") == backendProducts)
        #expect(!FileManager.default.fileExists(atPath: path + ".transfer"))
        try await store.close()

        let get = try await tier.send(.get, "shop", "$satchel.store", user: "ada")
        #expect(get.status == 405, "\(get.status)")
        let malformed = try await tier.send(.post, "shop", "$satchel.store", user: "ada", body: Data("[1".utf8))
        #expect(malformed.status == 400, "\(malformed.status) \(malformed.text)")
        var anonymous = HTTPClient.Request(
            .post, url: URL(string: tier.root("shop").absoluteString + "$satchel.store")!,
            body: .data(Data("{}".utf8), contentType: "application/json"))
        anonymous.validatesStatus = false
        let refused = try await HTTPClient(configuration: .init(timeout: .seconds(30), retry: .never)).send(anonymous)
        #expect(refused.status == 401, "\(refused.status)")
        let unnamed = try await tier.send(
            .post, "shop", "$satchel.store", user: "ada", body: Data(#"{"definingQueries": [{}]}"#.utf8))
        #expect(unnamed.status == 400, "\(unnamed.status) \(unnamed.text)")
        await tier.stop()

        // A middle tier that is not on loopback answers stores over HTTPS only: the key travels with the store.
        let configuration = try OfflineApplicationConfiguration(
            text: Self.ini(prepopulate: "Y").replacingOccurrences(
                of: "BACKEND", with: server.serviceURL.absoluteString),
            name: "app.ini", folder: tier.folder, environment: ["SVC_PASSWORD": "svc-secret"])
        let direct = try OfflineTier(applications: [configuration], store: MemoryMetadataStore())
        let plain = await direct.handle(
            endpoint: "shop",
            OfflineTierRequest(
                method: "POST", path: "$satchel.store", user: "ada", password: "ada-secret",
                root: "http://tier.example.com/offline/shop/"))
        #expect(plain.status == 403, "\(plain.status) \(String(decoding: plain.body, as: UTF8.self))")
        #expect(plain.headers["Satchel-Transfer-Key"] == nil && plain.file == nil)
        // On loopback, but behind a proxy the server trusts: the client's hop may be plain HTTP. Refused too.
        var loopbackLimits = OfflineTierLimits()
        loopbackLimits.allowsPlainTransfer = true
        let onLoopback = try OfflineTier(
            applications: [configuration], store: MemoryMetadataStore(), limits: loopbackLimits)
        var proxied = OfflineTierRequest(
            method: "POST", path: "$satchel.store", user: "ada", password: "ada-secret",
            root: "http://127.0.0.1:8080/offline/shop/")
        proxied.viaProxy = true
        #expect(await onLoopback.handle(endpoint: "shop", proxied).status == 403)
        // A Host header no URL can be made of is refused, never a crash.
        let hostile = await direct.handle(
            endpoint: "shop",
            OfflineTierRequest(
                method: "POST", path: "$satchel.store", user: "ada", password: "ada-secret",
                root: "https://[/offline/shop/"))
        #expect(hostile.status == 400, "\(hostile.status) \(String(decoding: hostile.body, as: UTF8.self))")
    }
}
