import Foundation
import GRDB
import Hummingbird
import SatchelHTTP
import SatchelJSON
import SatchelOData
@testable import SatchelOffline
import SatchelStore
import SatchelTestSupport
import Synchronization
import Testing

/// The queue's order under pressure: a transaction goes whole or waits whole, one entity's requests go in order, a
/// service failing a read the upload needs defers only what needed it, and nothing runs beside a closing store.
@Suite("Offline store: queue order, transactions, close")
struct QueueOrderTests {
    static func stock(_ service: ODataService, _ id: Int) async throws -> Int64? {
        try await service.entity("Products", key: .single(.int(id)))["Stock"]?.intValue
    }

    static func name(_ service: ODataService, _ id: Int) async throws -> String? {
        try await service.entity("Products", key: .single(.int(id)))["Name"]?.stringValue
    }

    @Test("a transaction whose first request waits waits whole; an entity's later request waits behind it")
    func transactionWaitsWhole() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let service = ODataService(configuration: .init(serviceURL: server.serviceURL))
        let folder = try offlineTestFolder("order")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder, queries: [.init(name: "p", query: "Products")])
        try await store.open()
        // A change in category x, then transaction t (category y) whose first request is on the same entity, then a
        // change in y of an entity t changes.
        try await store.update(
            "Products", .key(.single(.int(45))), with: ODataEntity(properties: ["Stock": .int(4500)]),
            options: .init(uploadCategory: "x"))
        try await store.update(
            "Products", .key(.single(.int(45))), with: ODataEntity(properties: ["Name": .string("t 45")]),
            options: .init(transactionID: "t", uploadCategory: "y"))
        try await store.update(
            "Products", .key(.single(.int(46))), with: ODataEntity(properties: ["Stock": .int(4646)]),
            options: .init(transactionID: "t", uploadCategory: "y"))
        try await store.update(
            "Products", .key(.single(.int(46))), with: ODataEntity(properties: ["Name": .string("after t")]),
            options: .init(uploadCategory: "y"))
        #expect(try await store.requests().count == 4)

        // Only y: t's first request waits behind x's, so t waits whole, and the change behind t on 46 waits too.
        let onlyY = try await store.upload(categories: ["y"])
        #expect(onlyY == OfflineUploadResult(sent: 0, failed: 0, held: 3), "\(onlyY)")
        #expect(try await Self.stock(service, 46) != 4646, "no part of a transaction goes without the rest")
        #expect(try await Self.name(service, 46) != "after t", "an entity's requests go in order")

        // Everything: x, then t whole, then the change behind it.
        let all = try await store.upload()
        #expect(all.sent == 4 && all.held == 0 && all.failed == 0, "\(all)")
        #expect(try await Self.stock(service, 45) == 4500)
        #expect(try await Self.name(service, 45) == "t 45")
        #expect(try await Self.stock(service, 46) == 4646)
        #expect(try await Self.name(service, 46) == "after t")
        try await store.close()
    }

    @Test("a transaction goes after a request outside it that came earlier on one of its entities")
    func transactionAfterEarlierRequest() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, timeout: .seconds(60))
        defer { server.stop() }
        let service = ODataService(configuration: .init(serviceURL: server.serviceURL))
        let folder = try offlineTestFolder("order-earlier")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder, queries: [.init(name: "p", query: "Products")])
        try await store.open()
        // 1: 50 in t; 2: 51 alone; 3: 51 in t (after 2: the server must end with 3's value).
        try await store.update(
            "Products", .key(.single(.int(50))), with: ODataEntity(properties: ["Stock": .int(5050)]),
            options: .init(transactionID: "t"))
        try await store.update("Products", .key(.single(.int(51))), with: ODataEntity(properties: ["Stock": .int(1)]))
        try await store.update(
            "Products", .key(.single(.int(51))), with: ODataEntity(properties: ["Stock": .int(5151)]),
            options: .init(transactionID: "t"))
        #expect(try await store.requests().map(\.transactionID) == ["t", nil, "t"])
        let result = try await store.upload()
        #expect(result.sent == 3, "\(result)")
        #expect(try await Self.stock(service, 51) == 5151, "the later request's value, as the store shows it")
        #expect(try await store.entity("Products", .key(.single(.int(51))))["Stock"]?.intValue == 5151)
        #expect(try await Self.stock(service, 50) == 5050)
        try await store.close()
    }

    @Test("a transaction sent before without its answer goes together again, in one $batch")
    func attemptedTransactionGoesTogether() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 50, repeatable: true, timeout: .seconds(60))
        defer { server.stop() }
        let service = ODataService(configuration: .init(serviceURL: server.serviceURL))
        let folder = try offlineTestFolder("attempted")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.serviceURL, folder: folder, queries: [.init(name: "p", query: "Products")])
        try await store.open()
        for id in [47, 48] {
            try await store.update(
                "Products", .key(.single(.int(id))), with: ODataEntity(properties: ["Stock": .int(Int64(id * 101))]),
                options: .init(transactionID: "u"))
        }
        // As after a `$batch` whose changeset the service failed (a 5xx part): attempted, in no batch.
        try await store.current().store.database.write { db in
            try db.execute(sql: "UPDATE q_requests SET attempted = 1, batch_id = NULL")
        }
        let before = try await server.repeatability().applied
        let result = try await store.upload()
        #expect(result.sent == 2, "\(result)")
        #expect(try await server.repeatability().applied == before + 1, "one $batch, not each request alone")
        #expect(try await Self.stock(service, 47) == 4747)
        #expect(try await Self.stock(service, 48) == 4848)
        try await store.close()
    }

    /// A service of three products without ETags (an update reads its entity first) whose read of `Products(2)`
    /// fails while `failRead` holds, and whose `$batch` (JSON) applies every request; `batched` collects the URLs
    /// of the requests its batches carried.
    final class Script: Sendable {
        let failRead = Mutex(true)
        let batched = Mutex<[String]>([])
        /// The `Repeatability-Request-ID` of each `PATCH`, nil when it had none.
        let patchIDs = Mutex<[String?]>([])
    }

    static func scriptedService(_ script: Script, slowPatch: Duration = .zero) async throws -> TestHTTPServer {
        try await TestHTTPServer.start { router in
            router.get("/odata/**") { request, _ -> Response in
                if request.uri.path.hasSuffix("Products(2)"), script.failRead.withLock({ $0 }) {
                    return Response(
                        status: .serviceUnavailable, headers: [.contentType: "application/json"],
                        body: .init(
                            byteBuffer: ByteBuffer(string: #"{"error":{"code":"BUSY","message":"try later"}}"#)))
                }
                return HostileServiceTests.threeProducts(request.uri.path)
            }
            router.patch("/odata/**") { request, _ -> Response in
                let id = request.headers.first { $0.name.canonicalName == "repeatability-request-id" }?.value
                script.patchIDs.withLock { $0.append(id) }
                try await Task.sleep(for: slowPatch)
                return Response(status: .noContent)
            }
            router.post("/odata/**") { request, context -> Response in
                guard request.uri.path.hasSuffix("$batch") else { return Response(status: .notFound) }
                let body = try await request.body.collect(upTo: 1 << 20)
                let document = try JSONValue(parsing: Data(body.readableBytesView))
                var responses: [JSONValue] = []
                for part in document["requests"]?.arrayValue ?? [] {
                    script.batched.withLock { $0.append(part["url"]?.stringValue ?? "") }
                    responses.append(["id": part["id"] ?? .null, "status": 204, "headers": [:]])
                }
                let answer: JSONValue = ["responses": .array(responses)]
                return Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(bytes: answer.serialized())))
            }
        }
    }

    static func scriptedStore(
        _ server: TestHTTPServer, folder: URL, upload: OfflineUploadMode, repeatable: Bool = true
    ) -> OfflineStore {
        var configuration = ODataService.Configuration(
            serviceURL: server.url("/odata"), http: HTTPClient.Configuration(timeout: .seconds(30), retry: .never))
        configuration.batchFormat = .json
        return OfflineStore(
            configuration: .init(
                service: ODataService(configuration: configuration),
                path: folder.appendingPathComponent("test.store").path,
                definingQueries: [.init(name: "p", query: "Products")], key: StoreKey.random(), upload: upload,
                repeatableRequests: repeatable))
    }

    @Test("repeatable requests are a setting: on by default, off sends no repeatability header")
    func repeatableSetting() async throws {
        let script = Script()
        script.failRead.withLock { $0 = false }
        let server = try await Self.scriptedService(script)
        try await withCleanup {
            for repeatable in [true, false] {
                let folder = try offlineTestFolder("repeatable-\(repeatable)")
                defer { try? FileManager.default.removeItem(at: folder) }
                let store = Self.scriptedStore(server, folder: folder, upload: .oneByOne, repeatable: repeatable)
                try await store.open()
                try await store.update(
                    "Products", .key(.single(.int(1))), with: ODataEntity(properties: ["Name": .string("r")]))
                #expect(try await store.upload().sent == 1)
                try await store.close()
            }
            let ids = script.patchIDs.withLock { $0 }
            #expect(ids.count == 2 && ids[0]?.isEmpty == false && ids[1] == nil, "\(ids)")
        } cleanup: {
            await server.stop()
        }
    }

    @Test("a service failing the read of an ETag defers that request alone; the rest of the $batch goes")
    func failedETagRead() async throws {
        let script = Script()
        let server = try await Self.scriptedService(script)
        let folder = try offlineTestFolder("etag-read")
        try await withCleanup {
            let store = Self.scriptedStore(server, folder: folder, upload: .batch(maximumRequests: 10))
            try await store.open()
            for id in [2, 3] {
                try await store.update(
                    "Products", .key(.single(.int(id))), with: ODataEntity(properties: ["Name": .string("n\(id)")]))
            }
            let steps = Mutex<[OfflineProgress]>([])
            let stream = store.progress()
            let collector = Task { for await step in stream { steps.withLock { $0.append(step) } } }
            let first = try await store.upload()
            #expect(first.sent == 1 && first.deferred == 1 && first.failed == 0, "\(first)")
            #expect(first.lastFailure?.contains("try later") == true, "\(first)")
            #expect(script.batched.withLock { $0 }.map { $0.hasSuffix("Products(3)") } == [true])
            let queued = try await store.requests()
            #expect(queued.count == 1 && queued.first?.resends == 1, "\(queued)")
            // Every request is accounted for in the progress: sent, refused, held or deferred.
            for _ in 0..<100 where !steps.withLock({ $0.last == .finished }) {
                try await Task.sleep(for: .milliseconds(20))
            }
            collector.cancel()
            #expect(steps.withLock { $0 }.contains(.processedRequests(done: 2, of: 2)), "\(steps.withLock { $0 })")

            script.failRead.withLock { $0 = false }
            let second = try await store.upload()
            #expect(second.sent == 1 && second.deferred == 0, "\(second)")
            #expect(try await store.requests().isEmpty)
            try await store.close()
        } cleanup: {
            await server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test("close and cancel wait for a running upload; nothing is observed on a closing store")
    func closeDuringUpload() async throws {
        let script = Script()
        script.failRead.withLock { $0 = false }
        let server = try await Self.scriptedService(script, slowPatch: .milliseconds(800))
        let folder = try offlineTestFolder("close-upload")
        try await withCleanup {
            let store = Self.scriptedStore(server, folder: folder, upload: .oneByOne)
            try await store.open()
            try await store.update(
                "Products", .key(.single(.int(1))), with: ODataEntity(properties: ["Name": .string("slow")]))
            let requestID = try #require(try await store.requests().first).requestID
            let upload = Task { try await store.upload() }
            for _ in 0..<100 where store.syncState.phase != .uploading { try await Task.sleep(for: .milliseconds(10)) }
            #expect(store.syncState.phase == .uploading)
            await #expect(throws: OfflineStoreError.self) { try await store.close() }
            await #expect(throws: OfflineStoreError.self) { try await store.cancel(requestID: requestID) }
            #expect(store.isOpen)
            #expect(try await upload.value.sent == 1)
            try await store.close()
            #expect(!store.isOpen)
            var observed = 0
            await #expect(throws: OfflineStoreError.self) {
                for try await _ in store.observe("Products") { observed += 1 }
            }
            #expect(observed == 0)
        } cleanup: {
            await server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test("cancelling one request of a transaction gives up the whole transaction")
    func cancelTakesTheTransaction() async throws {
        let script = Script()
        let server = try await Self.scriptedService(script)
        let folder = try offlineTestFolder("cancel-transaction")
        try await withCleanup {
            let store = Self.scriptedStore(server, folder: folder, upload: .oneByOne)
            try await store.open()
            try await store.update(
                "Products", .key(.single(.int(1))), with: ODataEntity(properties: ["Name": .string("alone")]))
            for id in [2, 3] {
                try await store.update(
                    "Products", .key(.single(.int(id))), with: ODataEntity(properties: ["Name": .string("t\(id)")]),
                    options: .init(transactionID: "t"))
            }
            let queued = try await store.requests()
            try await store.cancel(requestID: try #require(queued.last).requestID)
            let left = try await store.requests()
            #expect(left.map(\.transactionID) == [nil], "\(left)")
            let two = try await store.entity("Products", .key(.single(.int(2))))
            #expect(two["Name"]?.stringValue == "Product 2", "the transaction's other entity is restored too")
            try await store.close()
        } cleanup: {
            await server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }
}
