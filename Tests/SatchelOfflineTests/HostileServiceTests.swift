import Foundation
import Hummingbird
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelTestSupport
import Synchronization
import Testing

/// A service that answers badly: malformed `$metadata`, a page cut inside an entity. Each gives a clear error; the
/// store stays usable and never claims a download it did not finish; once the service mends, the download resumes.
@Suite("Offline store: a service that answers badly")
struct HostileServiceTests {
    /// The peer's own model, served by a Hummingbird server whose pages can be broken on purpose.
    static let model = try! String(
        contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Peers/odata_v4_service.xml"), encoding: .utf8)

    final class Behaviour: Sendable {
        let metadataBroken = Mutex(false)
        let secondPageCut = Mutex(true)
    }

    static func page(_ ids: ClosedRange<Int>, next: String?) -> String {
        let items = ids.map { #"{"ID":\#($0),"Name":"Product \#($0)","CategoryID":1}"# }.joined(separator: ",")
        return #"{"@odata.context":"$metadata#Products","value":[\#(items)]"#
            + (next.map { #","@odata.nextLink":"\#($0)""# } ?? "") + "}"
    }

    /// A service of three products: `$metadata`, the collection, and `Products(N)` as downloaded (what an upload
    /// reads for want of an ETag).
    static func threeProducts(_ path: String) -> Response {
        let body: String
        if path.hasSuffix("$metadata") {
            body = model
        } else if path.hasSuffix(")") {
            let key = Int(path.split(separator: "(").last?.dropLast() ?? "") ?? 0
            body = #"{"ID":\#(key),"Name":"Product \#(key)","CategoryID":1}"#
        } else {
            body = page(1...3, next: nil)
        }
        return Response(
            status: .ok, headers: [.contentType: "application/json"], body: .init(byteBuffer: ByteBuffer(string: body)))
    }

    static func start(_ behaviour: Behaviour) async throws -> TestHTTPServer {
        try await TestHTTPServer.start { router in
            router.get("/odata/**") { request, _ -> Response in
                let path = request.uri.path
                func answer(_ text: String, type: String = "application/json") -> Response {
                    Response(
                        status: .ok, headers: [.contentType: type],
                        body: .init(byteBuffer: ByteBuffer(string: text)))
                }
                if path.hasSuffix("$metadata") {
                    return answer(
                        behaviour.metadataBroken.withLock { $0 } ? "<edmx:Edmx Version=\"4.0\"><oops" : Self.model,
                        type: "application/xml")
                }
                guard path.hasSuffix("/Products") else { return Response(status: .notFound) }
                if request.uri.query?.contains("page=2") == true {
                    let full = Self.page(11...20, next: nil)
                    // Cut inside the fifth entity of the page.
                    return answer(behaviour.secondPageCut.withLock { $0 } ? String(full.prefix(250)) : full)
                }
                return answer(Self.page(1...10, next: "Products?page=2"))
            }
        }
    }

    @Test func malformedMetadataAndCutPages() async throws {
        let behaviour = Behaviour()
        let server = try await Self.start(behaviour)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-offline-hostile-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let configuration = OfflineStore.Configuration(
            service: ODataService(
                configuration: .init(serviceURL: server.url("/odata"), http: HTTPClient.Configuration(retry: .never))),
            path: folder.appendingPathComponent("h.store").path,
            definingQueries: [.init(name: "products", query: "Products")], key: StoreKey.random())

        // Malformed $metadata: a clear error, nothing stored.
        behaviour.metadataBroken.withLock { $0 = true }
        let first = OfflineStore(configuration: configuration)
        do {
            try await first.open()
            Issue.record("a malformed $metadata was accepted")
        } catch let error as ODataError {
            #expect(error.code == .invalidMetadata, "\(error)")
        }
        try? await first.close()

        // A page cut inside an entity: a clear error; the store keeps the first page and does not claim completeness.
        behaviour.metadataBroken.withLock { $0 = false }
        let second = OfflineStore(configuration: configuration)
        do {
            try await second.open()
            Issue.record("a page cut inside an entity was accepted")
        } catch let error as ODataError {
            #expect([.invalidPayload, .connection].contains(error.code), "\(error)")
        }
        #expect(try await second.isInitialDownloadComplete == false)
        #expect(try await second.count("Products") == 10)
        // Usable meanwhile: local reads and changes.
        try await second.update(
            "Products", .key(.single(.int(3))), with: ODataEntity(properties: ["Name": .string("kept")]))
        try await second.close()

        // The service mends: the next open resumes the download; the local change is still there.
        behaviour.secondPageCut.withLock { $0 = false }
        let third = OfflineStore(configuration: configuration)
        try await third.open()
        #expect(try await third.isInitialDownloadComplete)
        #expect(try await third.count("Products") == 20)
        let kept = try await third.entities("Products", query: ODataQuery().filter(.property("ID") == 3))
        #expect(kept.first?["Name"]?.stringValue == "kept")
        try await third.close()
        await server.stop()
    }
}

/// A service that creates entities with server-generated keys and answers `204 No Content` with a `Location`.
@Suite("Offline store: keys the server gives")
struct ServerKeyTests {
    @Test func createdWithoutBodyTakesTheKeyFromLocation() async throws {
        let requests = Mutex<[String]>([])
        let server = try await TestHTTPServer.start { router in
            router.get("/odata/**") { request, _ -> Response in
                if request.uri.path.hasSuffix("$metadata") {
                    return Response(
                        status: .ok, headers: [.contentType: "application/xml"],
                        body: .init(byteBuffer: ByteBuffer(string: HostileServiceTests.model)))
                }
                // One entity: the one the server created.
                return Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: #"{"ID":77,"Name":"keyless"}"#)))
            }
            router.get("/odata/Products") { _, _ -> Response in
                Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: HostileServiceTests.page(1...2, next: nil))))
            }
            router.post("/odata/Products") { request, _ -> Response in
                requests.withLock { $0.append("POST \(request.uri.path)") }
                return Response(status: .noContent, headers: [.location: "http://127.0.0.1/odata/Products(77)"])
            }
            router.patch("/odata/**") { request, _ -> Response in
                requests.withLock { $0.append("PATCH \(request.uri.path)") }
                return Response(status: .noContent)
            }
        }
        let folder = try offlineTestFolder("keys")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.url("/odata"), folder: folder, queries: [.init(name: "products", query: "Products")],
            key: nil)
        try await store.open()
        // Created without a key: the server chooses it.
        let id = try await store.create("Products", ODataEntity(properties: ["Name": .string("keyless")]))
        #expect(try await store.upload().sent == 1)
        let created = try #require(
            try await store.entities("Products", query: ODataQuery().filter(.property("ID") == 77)).first)
        #expect(created.offlineEntityID == id)
        try await store.update("Products", .id(id), with: ODataEntity(properties: ["Name": .string("renamed")]))
        #expect(try await store.upload().sent == 1)
        #expect(requests.withLock { $0 } == ["POST /odata/Products", "PATCH /odata/Products(77)"])
        try await store.close()
        await server.stop()
    }
}

/// A server that fails for a while (503): the change stays queued, counted as one resend; it is no refusal to archive.
@Suite("Offline store: a server that fails for a while")
struct TransientFailureTests {
    @Test func unavailableThenBack() async throws {
        let unavailable = Mutex(true)
        let patches = Mutex(0)
        let server = try await TestHTTPServer.start { router in
            router.get("/odata/**") { request, _ -> Response in HostileServiceTests.threeProducts(request.uri.path) }
            router.patch("/odata/**") { _, _ -> Response in
                if unavailable.withLock({ $0 }) { return Response(status: .serviceUnavailable) }
                patches.withLock { $0 += 1 }
                return Response(status: .noContent)
            }
        }
        let folder = try offlineTestFolder("transient")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: server.url("/odata"), folder: folder, queries: [.init(name: "p", query: "Products")])
        try await store.open()
        try await store.update(
            "Products", .key(.single(.int(2))), with: ODataEntity(properties: ["Name": .string("x")]))
        let failed = try await store.upload()
        #expect(failed.sent == 0 && failed.deferred == 1 && failed.failed == 0, "\(failed)")
        #expect(failed.lastFailure?.hasPrefix("503") == true, "\(failed)")
        #expect(try await store.errors().isEmpty)
        let queued = try await store.requests()
        #expect(queued.count == 1 && queued.first?.resends == 1 && queued.first?.lastFailure?.hasPrefix("503") == true)
        unavailable.withLock { $0 = false }
        #expect(try await store.upload().sent == 1)
        #expect(patches.withLock { $0 } == 1)
        try await store.close()
        await server.stop()
    }
}

/// A service that stores a creation and then answers 500, ignoring `Repeatability-Request-ID` (every attempt makes
/// one more copy): the failing request is sent again at most `maximumResends` times, then goes to the ErrorArchive
/// with the last answer; the requests that do not depend on it go on meanwhile, the ones that do wait; an app can
/// inspect, retry and cancel it.
@Suite("Offline store: a request the service keeps failing does not block the queue")
struct StuckRequestTests {
    @Test func boundedResendsAndIndependentRequests() async throws {
        let posts = Mutex(0)
        let patches = Mutex<[String]>([])
        let server = try await TestHTTPServer.start { router in
            router.get("/odata/**") { request, _ -> Response in HostileServiceTests.threeProducts(request.uri.path) }
            router.post("/odata/**") { _, _ -> Response in
                // Stored, then a failure: the client cannot tell.
                posts.withLock { $0 += 1 }
                return Response(
                    status: .internalServerError, headers: [.contentType: "application/json"],
                    body: .init(
                        byteBuffer: ByteBuffer(string: #"{"error":{"code":"DB","message":"deadlock detected"}}"#)))
            }
            router.patch("/odata/**") { request, _ -> Response in
                patches.withLock { $0.append(request.uri.path) }
                return Response(status: .noContent)
            }
        }
        let folder = try offlineTestFolder("stuck")
        try await withCleanup {
            let store = OfflineStore(
                configuration: .init(
                    service: offlineTestService(server.url("/odata")),
                    path: folder.appendingPathComponent("test.store").path,
                    definingQueries: [.init(name: "p", query: "Products")], key: StoreKey.random(),
                    upload: .oneByOne, maximumResends: 2))
            try await store.open()
            // A creation the service will fail, and a change to another entity.
            let created = try await store.create(
                "Products", ODataEntity(properties: ["ID": .int(100), "Name": "new", "CategoryID": .int(1)]))
            try await store.update(
                "Products", .key(.single(.int(2))), with: ODataEntity(properties: ["Name": .string("x")]))

            // First upload: the creation fails and is deferred; the other change goes.
            let first = try await store.upload()
            #expect(first.sent == 1 && first.deferred == 1 && first.failed == 0, "\(first)")
            #expect(first.lastFailure?.contains("deadlock detected") == true, "\(first)")
            #expect(patches.withLock { $0 } == ["/odata/Products(2)"])
            var queued = try await store.requests()
            #expect(queued.map(\.method) == ["POST"] && queued.first?.resends == 1, "\(queued)")

            // A change to the entity being created depends on its creation: it waits while the creation fails.
            try await store.update("Products", .id(created), with: ODataEntity(properties: ["Name": "newer"]))
            let second = try await store.upload()
            #expect(second.deferred == 1 && second.held == 1 && second.sent == 0, "\(second)")

            // A third failure is one more than two resends: the creation goes to the ErrorArchive with the last
            // answer, and the change behind it is held there.
            let third = try await store.upload()
            #expect(third.failed == 1 && third.deferred == 0 && third.held == 1, "\(third)")
            #expect(posts.withLock { $0 } == 3, "sent once and resent twice, never more")
            let errors = try await store.errors()
            #expect(errors.count == 1)
            #expect(errors.first?.httpStatus == 500, "\(errors)")
            #expect(errors.first?.message.contains("3 times") == true, "\(errors)")
            #expect(errors.first?.message.contains("deadlock detected") == true, "\(errors)")

            // The queue goes on: a new change to another entity is sent.
            try await store.update(
                "Products", .key(.single(.int(3))), with: ODataEntity(properties: ["Name": .string("y")]))
            let fourth = try await store.upload()
            let archive = try await store.errors()
            #expect(fourth.sent == 1 && posts.withLock { $0 } == 3, "\(fourth) \(archive)")
            #expect(patches.withLock { $0 } == ["/odata/Products(2)", "/odata/Products(3)"])

            // Retry: the archived request is queued again, its count back at zero, sent at the next upload under
            // the same repeatability id (the service may have applied it).
            let original = try await store.requests().first?.repeatabilityRequestID
            try await store.retry(errorID: try #require(errors.first).errorID)
            #expect(try await store.errors().isEmpty)
            queued = try await store.requests()
            #expect(queued.map(\.method) == ["POST", "PATCH"], "\(queued)")
            #expect(queued.first?.resends == 0 && queued.first?.failed == false)
            #expect(queued.first?.repeatabilityRequestID == original)
            let fifth = try await store.upload()
            #expect(fifth.deferred == 1 && fifth.held == 1 && posts.withLock { $0 } == 4, "\(fifth)")

            // Cancel: the creation and the change on it are given up; the entity created offline is gone.
            try await store.cancel(requestID: try #require(queued.first).requestID)
            #expect(try await store.requests().isEmpty)
            #expect(try await store.count("Products") == 3)
            await #expect(throws: OfflineStoreError.self) { try await store.cancel(requestID: 9999) }
            try await store.close()
        } cleanup: {
            await server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }
}
