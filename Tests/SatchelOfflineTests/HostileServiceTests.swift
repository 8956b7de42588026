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

/// A server that fails for a while (503): the upload stops and keeps the change; it is no refusal to archive.
@Suite("Offline store: a server that fails for a while")
struct TransientFailureTests {
    @Test func unavailableThenBack() async throws {
        let unavailable = Mutex(true)
        let patches = Mutex(0)
        let server = try await TestHTTPServer.start { router in
            router.get("/odata/**") { request, _ -> Response in
                let path = request.uri.path
                let body =
                    path.hasSuffix("$metadata")
                    ? HostileServiceTests.model
                        // Products(2): the entity as downloaded (the upload reads it for want of an ETag).
                    : path.hasSuffix(")")
                        ? #"{"ID":2,"Name":"Product 2","CategoryID":1}"#
                        : HostileServiceTests.page(1...3, next: nil)
                return Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: body)))
            }
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
        await #expect(throws: ODataError.self) { try await store.upload() }
        #expect(try await store.errors().isEmpty)
        #expect(try await store.requests().count == 1)
        unavailable.withLock { $0 = false }
        #expect(try await store.upload().sent == 1)
        #expect(patches.withLock { $0 } == 1)
        try await store.close()
        await server.stop()
    }
}
