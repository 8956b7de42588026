import Foundation
import Hummingbird
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelTestSupport
import Synchronization
import Testing

/// The service's `$metadata` changes between two downloads: the store migrates (new sets, new properties, their
/// values downloaded) with its queued requests kept and uploadable, and refuses, naming it, what it cannot migrate.
@Suite("Offline store: the service's $metadata changes")
struct MetadataChangeTests {
    /// The peer's model with a property added to Product and a new entity set.
    static func widenedModel(in folder: URL) throws -> URL {
        var model = HostileServiceTests.model
        let property = #"<Property Name="CategoryID" Type="Edm.Int32"/>"#
        let first = try #require(model.range(of: property))
        model.replaceSubrange(first, with: property + #"<Property Name="Color" Type="Edm.String"/>"#)
        model = model.replacingOccurrences(
            of: #"<EntityContainer Name="Container">"#,
            with: #"<EntityContainer Name="Container"><EntitySet Name="Suppliers" EntityType="Shop.Supplier"/>"#)
        model = model.replacingOccurrences(
            of: #"<EntityType Name="Order">"#,
            with: #"<EntityType Name="Supplier"><Key><PropertyRef Name="ID"/></Key>"#
                + #"<Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="Name" Type="Edm.String"/>"#
                + #"</EntityType><EntityType Name="Order">"#)
        let url = folder.appendingPathComponent("widened.xml")
        try model.write(to: url, atomically: true, encoding: .utf8)
        return url
    }

    @Test("a property and a set added between two downloads, requests pending: migrated, uploaded, new values read")
    func widenedModelWithPendingRequests() async throws {
        let folder = try offlineTestFolder("metadata-change")
        defer { try? FileManager.default.removeItem(at: folder) }
        let key = StoreKey.random()
        let queries = [OfflineDefiningQuery(name: "p", query: "Products?$filter=ID le 60")]

        // The first service: the store is made, and changes wait in its queue.
        let first = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        let store = offlineTestStore(serviceURL: first.serviceURL, folder: folder, queries: queries, key: key)
        try await store.open()
        try await store.update(
            "Products", .key(.single(.int(45))), with: ODataEntity(properties: ["Stock": .int(4545)]))
        try await store.create(
            "Products", ODataEntity(properties: ["ID": .int(7001), "Name": "made offline", "CategoryID": .int(1)]))
        try await store.close()
        first.stop()

        // The service comes back with a wider model (the same data); someone sets the new property online.
        let second = try await ODataPyServer.start(
            maxPageSize: 50, model: try Self.widenedModel(in: folder), timeout: .seconds(60))
        defer { second.stop() }
        let service = ODataService(configuration: .init(serviceURL: second.serviceURL))
        let current = try await service.entity("Products", key: .single(.int(5)))
        try await service.update(
            "Products", key: .single(.int(5)), with: ODataEntity(properties: ["Color": .string("red")]),
            ifMatch: current.etag)

        let again = offlineTestStore(serviceURL: second.serviceURL, folder: folder, queries: queries, key: key)
        try await again.open()
        #expect(try await again.requests().count == 2)
        let change = try await again.updateMetadata()
        #expect(change.addedProperties == ["Products": ["Color"]], "\(change)")
        #expect(change.addedEntitySets == ["Suppliers"], "\(change)")
        #expect(change.rebuiltEntitySets.isEmpty && change.refreshedDefiningQueries == ["p"], "\(change)")
        #expect(try await again.updateMetadata().isEmpty, "the same document again changes nothing")

        // The download brings the new property's values; the queue is intact and goes up.
        try await again.download()
        let five = try await again.entity("Products", .key(.single(.int(5))))
        #expect(five["Color"]?.stringValue == "red", "\(five)")
        #expect(try await again.requests().count == 2)
        let sent = try await again.upload()
        let refused = try await again.errors()
        #expect(sent.sent == 2 && sent.failed == 0, "\(sent) \(refused)")
        #expect(try await service.entity("Products", key: .single(.int(45)))["Stock"]?.intValue == 4545)
        #expect(try await service.entity("Products", key: .single(.int(7001)))["Name"]?.stringValue == "made offline")

        // The new set can be taken offline.
        try await again.addDefiningQuery(.init(name: "s", query: "Suppliers"))
        try await again.download(subset: ["s"])
        #expect(try await again.count("Suppliers") == 0)
        try await again.close()

        // Reopened without the network: the migrated model is the one kept.
        let offline = offlineTestStore(serviceURL: second.serviceURL, folder: folder, queries: queries, key: key)
        try await offline.open(resuming: false, localOnly: true)
        #expect(try await offline.entity("Products", .key(.single(.int(5))))["Color"]?.stringValue == "red")
        try await offline.close()
    }

    @Test("a property whose type changed while a request on its set waits: refused with its name, nothing lost")
    func retypedPropertyRefusedWhileQueued() async throws {
        let retyped = Mutex(false)
        let server = try await TestHTTPServer.start { router in
            router.get("/odata/**") { request, _ -> Response in
                guard request.uri.path.hasSuffix("$metadata"), retyped.withLock({ $0 }) else {
                    return HostileServiceTests.threeProducts(request.uri.path)
                }
                let model = HostileServiceTests.model.replacingOccurrences(
                    of: #"<Property Name="Stock" Type="Edm.Int64"/>"#,
                    with: #"<Property Name="Stock" Type="Edm.String"/>"#)
                return Response(
                    status: .ok, headers: [.contentType: "application/xml"],
                    body: .init(byteBuffer: ByteBuffer(string: model)))
            }
        }
        let folder = try offlineTestFolder("metadata-retyped")
        try await withCleanup {
            let store = offlineTestStore(
                serviceURL: server.url("/odata"), folder: folder, queries: [.init(name: "p", query: "Products")])
            try await store.open()
            try await store.update(
                "Products", .key(.single(.int(2))), with: ODataEntity(properties: ["Name": .string("local")]))
            retyped.withLock { $0 = true }
            do {
                try await store.download()
                Issue.record("a download with a queued request on a set to be made again must be refused")
            } catch let error as OfflineStoreError {
                #expect(error.code == .schemaChange)
                #expect(error.message.contains("Products must be downloaded again"), "\(error)")
                #expect(error.message.contains("Stock"), "\(error)")
                #expect(error.message.contains("upload or cancel it"), "\(error)")
            }
            // Nothing was lost: the request and the local value are there; the old model is still the store's.
            let queued = try await store.requests()
            #expect(queued.count == 1)
            #expect(try await store.entity("Products", .key(.single(.int(2))))["Name"]?.stringValue == "local")

            // Once the request is given up, the set is made again and downloaded again.
            try await store.cancel(requestID: try #require(queued.first).requestID)
            let change = try await store.updateMetadata()
            #expect(change.rebuiltEntitySets == ["Products"] && change.refreshedDefiningQueries == ["p"], "\(change)")
            #expect(try await store.count("Products") == 0)
            try await store.download()
            #expect(try await store.count("Products") == 3)
            #expect(try await store.entity("Products", .key(.single(.int(2))))["Name"]?.stringValue == "Product 2")
            try await store.close()
        } cleanup: {
            await server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test("a set the service dropped while a request on it waits: refused with its name, the request kept")
    func droppedSetRefusedWhileQueued() async throws {
        let dropped = Mutex(false)
        let server = try await TestHTTPServer.start { router in
            router.get("/odata/**") { request, _ -> Response in
                let path = request.uri.path
                var body: String
                if path.hasSuffix("$metadata") {
                    body = HostileServiceTests.model
                    if dropped.withLock({ $0 }) {
                        body = body.replacingOccurrences(
                            of: #"<EntitySet Name="Products" EntityType="Shop.Product">"#
                                + #"\s*<NavigationPropertyBinding Path="Category" Target="Categories"/>\s*</EntitySet>"#,
                            with: "", options: .regularExpression)
                        body = body.replacingOccurrences(
                            of: #"<NavigationPropertyBinding Path="[^"]*" Target="Products"/>"#, with: "",
                            options: .regularExpression)
                    }
                } else {
                    body = #"{"value":[{"ID":1,"Name":"Category 1"}]}"#
                }
                return Response(
                    status: .ok,
                    headers: [.contentType: path.hasSuffix("$metadata") ? "application/xml" : "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: body)))
            }
        }
        let folder = try offlineTestFolder("metadata-dropped")
        try await withCleanup {
            let store = offlineTestStore(
                serviceURL: server.url("/odata"), folder: folder, queries: [.init(name: "c", query: "Categories")])
            try await store.open()
            try await store.create(
                "Products", ODataEntity(properties: ["ID": .int(900), "Name": "queued", "CategoryID": .int(1)]))
            dropped.withLock { $0 = true }
            do {
                try await store.download()
                Issue.record("a download with a queued request on a set the service dropped must be refused")
            } catch let error as OfflineStoreError {
                #expect(error.code == .schemaChange)
                #expect(error.message.contains("no longer has Products"), "\(error)")
            }
            // Nothing lost: the request waits, and the store still reads what it had.
            #expect(try await store.requests().map(\.entitySet) == ["Products"])
            #expect(try await store.count("Products") == 1)
            try await store.close()
        } cleanup: {
            await server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }
}
