import Foundation
import Hummingbird
import SatchelHTTP
import SatchelJSON
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelTestSupport
import Synchronization
import Testing

/// A V2 service that pages 800 customers by 100 and writes `__next` in one of the shapes services use: a string, an
/// object with a `uri` (as a deferred link is written), or something no reader can follow. Every read path reads all
/// 800 rows or fails with the page's URL; none stops after the first page as if the data had ended.
@Suite("OData V2 next links in every shape: all pages, or an error", .serialized)
struct NextLinkShapeTests {
    static let metadata = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="1.0" xmlns:edmx="http://schemas.microsoft.com/ado/2007/06/edmx" \
        xmlns:m="http://schemas.microsoft.com/ado/2007/08/dataservices/metadata">
        <edmx:DataServices m:DataServiceVersion="2.0">
        <Schema Namespace="Shop" xmlns="http://schemas.microsoft.com/ado/2008/09/edm">
        <EntityType Name="Customer"><Key><PropertyRef Name="ID"/></Key>
        <Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="Name" Type="Edm.String"/>
        <Property Name="Balance" Type="Edm.Double"/><Property Name="Visits" Type="Edm.Int64"/></EntityType>
        <EntityContainer Name="Shop" m:IsDefaultEntityContainer="true">
        <EntitySet Name="Customers" EntityType="Shop.Customer"/></EntityContainer>
        </Schema></edmx:DataServices></edmx:Edmx>
        """

    /// How the service writes `d.__next`.
    enum Shape: String, CaseIterable, Sendable {
        case string, object, unreadable
    }

    static let total = 800
    static let pageSize = 100

    static func page(from start: Int, shape: Shape) -> String {
        let end = min(start + pageSize, total)
        let rows = (start..<end).map {
            #"{"__metadata":{"uri":"Customers(\#($0 + 1))","type":"Shop.Customer"},"ID":\#($0 + 1),"Name":"C \#($0 + 1)"}"#
        }
        var text = #"{"d":{"results":["# + rows.joined(separator: ",") + "]"
        if end < total {
            let link = "Customers?$skiptoken=\(end)"
            switch shape {
            case .string: text += #","__next":"\#(link)""#
            case .object: text += #","__next":{"uri":"\#(link)"}"#
            case .unreadable: text += #","__next":{"href":"\#(link)"}"#
            }
        }
        return text + "}}"
    }

    static func start(_ shape: Shape) async throws -> TestHTTPServer {
        try await TestHTTPServer.start { router in
            router.get("/odata/**") { request, _ -> Response in
                if request.uri.path.hasSuffix("$metadata") {
                    return Response(
                        status: .ok, headers: [.contentType: "application/xml"],
                        body: .init(byteBuffer: ByteBuffer(string: Self.metadata)))
                }
                guard request.uri.path.hasSuffix("/Customers") else { return Response(status: .notFound) }
                let start = request.uri.queryParameters.get("$skiptoken").flatMap { Int($0) } ?? 0
                return Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: Self.page(from: start, shape: shape))))
            }
        }
    }

    static func service(_ server: TestHTTPServer) -> ODataService {
        ODataService(
            configuration: .init(
                serviceURL: server.url("/odata"), version: .v2, http: HTTPClient.Configuration(retry: .never)))
    }

    struct Customer: Decodable, Sendable {
        let ID: Int
    }

    @Test("an object or string __next is followed by every online read path", arguments: [Shape.string, .object])
    func online(shape: Shape) async throws {
        let server = try await Self.start(shape)
        try await withCleanup {
            let service = Self.service(server)
            var streamed = 0
            for try await _ in service.entities(ODataPath("Customers")) { streamed += 1 }
            #expect(streamed == Self.total)
            var paged = 0
            for try await page in service.pages(ODataPath("Customers")) { paged += page.entities.count }
            #expect(paged == Self.total)
            var decoded = 0
            for try await _ in service.entities(ODataPath("Customers"), as: Customer.self) { decoded += 1 }
            #expect(decoded == Self.total)
        } cleanup: {
            await server.stop()
        }
    }

    @Test("a __next that cannot be read is an error with the page's URL on every online read path")
    func onlineUnreadable() async throws {
        let server = try await Self.start(.unreadable)
        try await withCleanup {
            let service = Self.service(server)
            let reads: [(String, () async throws -> Int)] = [
                (
                    "entities",
                    {
                        var n = 0; for try await _ in service.entities(ODataPath("Customers")) { n += 1 }; return n
                    }
                ),
                (
                    "pages",
                    {
                        var n = 0; for try await p in service.pages(ODataPath("Customers")) { n += p.entities.count };
                        return n
                    }
                ),
                (
                    "decoded",
                    {
                        var n = 0
                        for try await _ in service.entities(ODataPath("Customers"), as: Customer.self) { n += 1 }
                        return n
                    }
                ),
            ]
            for (name, read) in reads {
                do {
                    let count = try await read()
                    Issue.record("\(name): an unreadable next link ended the data after \(count) rows")
                } catch let error as ODataError {
                    #expect(error.code == .invalidPayload, "\(name): \(error)")
                    #expect(
                        "\(error)".contains("__next") && "\(error)".contains("/odata/Customers"), "\(name): \(error)")
                }
            }
        } cleanup: {
            await server.stop()
        }
    }

    @Test("the offline store downloads every page of an object __next, and refuses an unreadable one")
    func offline() async throws {
        for shape in Shape.allCases {
            let server = try await Self.start(shape)
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-next-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try await withCleanup {
                let store = OfflineStore(
                    configuration: OfflineStore.Configuration(
                        service: Self.service(server), path: folder.appendingPathComponent("c.store").path,
                        definingQueries: [.init(name: "customers", query: "Customers")], key: StoreKey.random()))
                if shape == .unreadable {
                    do {
                        try await store.open()
                        Issue.record("an unreadable next link was taken as the end of the data")
                    } catch let error as ODataError {
                        #expect(error.code == .invalidPayload && "\(error)".contains("__next"), "\(error)")
                    }
                    #expect(try await store.isInitialDownloadComplete == false)
                } else {
                    try await store.open()
                    #expect(try await store.isInitialDownloadComplete)
                    #expect(try await store.count("Customers") == Self.total, "\(shape)")
                }
                try? await store.close()
            } cleanup: {
                await server.stop()
                try? FileManager.default.removeItem(at: folder)
            }
        }
    }
}

/// Answers that are not what was asked for: the error names the URL, the status, the `Content-Type` and how the body
/// starts, online and while an offline store opens.
@Suite("OData answers that are not OData: errors with their context")
struct UnreadableAnswerTests {
    @Test func htmlAndBrokenJSON() async throws {
        let server = try await TestHTTPServer.start { router in
            router.get("/odata/**") { request, _ -> Response in
                if request.uri.path.hasSuffix("$metadata") {
                    return Response(
                        status: .ok, headers: [.contentType: "text/html"],
                        body: .init(byteBuffer: ByteBuffer(string: "<html><body><p>Please log in</body></html>")))
                }
                return Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: #"{"d":{"results":[{"ID":1,"Name":"x"},{"ID":2,"#)))
            }
        }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-unreadable-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try await withCleanup {
            let service = NextLinkShapeTests.service(server)
            let store = OfflineStore(
                configuration: OfflineStore.Configuration(
                    service: ODataService(configuration: .init(serviceURL: server.url("/odata"))),
                    path: folder.appendingPathComponent("u.store").path,
                    definingQueries: [.init(name: "customers", query: "Customers")], key: StoreKey.random()))
            do {
                try await store.open()
                Issue.record("an HTML page was read as $metadata")
            } catch let error as ODataError {
                let text = "\(error)"
                #expect(error.code == .invalidMetadata, "\(text)")
                #expect(text.contains("/odata/$metadata") && text.contains("text/html"), "\(text)")
                #expect(text.contains("Please log in"), "\(text)")
            }
            try? await store.close()
            // A page cut short, read whole: the byte where it broke and an excerpt, with the URL.
            service.use(try ODataMetadata.parse(data: Data(NextLinkShapeTests.metadata.utf8)))
            do {
                _ = try await service.page(ODataPath("Customers"))
                Issue.record("a cut page was read")
            } catch let error as ODataError {
                let text = "\(error)"
                #expect(error.code == .invalidPayload && error.status == 200, "\(text)")
                #expect(text.contains("GET") && text.contains("/odata/Customers"), "\(text)")
                #expect(text.contains("byte"), "\(text)")
            }
        } cleanup: {
            await server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }
}

/// A V2 service that, like the V2 JSON format's table (and servers that follow it), takes Edm.Double and Edm.Int64
/// only as strings and refuses a JSON number for them. Online creates and the offline store's uploads both pass.
@Suite("OData V2 values written as the V2 JSON format says")
struct V2ValueFormatTests {
    /// The bodies the service was sent.
    final class Received: Sendable {
        let bodies = Mutex<[String]>([])
    }

    static func start(received: Received) async throws -> TestHTTPServer {
        try await TestHTTPServer.start { router in
            router.get("/odata/**") { request, _ -> Response in
                if request.uri.path.hasSuffix("$metadata") {
                    return Response(
                        status: .ok, headers: [.contentType: "application/xml"],
                        body: .init(byteBuffer: ByteBuffer(string: NextLinkShapeTests.metadata)))
                }
                return Response(
                    status: .ok, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: #"{"d":{"results":[]}}"#)))
            }
            router.post("/odata/**") { request, _ -> Response in
                var request = request
                let body = String(buffer: try await request.collectBody(upTo: 1 << 20))
                received.bodies.withLock { $0.append(body) }
                let json = try JSONValue(parsing: Data(body.utf8))
                guard json["Balance"]?.stringValue != nil, json["Visits"]?.stringValue != nil else {
                    return Response(
                        status: .badRequest, headers: [.contentType: "application/json"],
                        body: .init(
                            byteBuffer: ByteBuffer(
                                string:
                                    #"{"error":{"code":"TypeError","message":{"value":"Edm.Double and Edm.Int64 are strings in V2 JSON"}}}"#
                            )))
                }
                return Response(
                    status: .created, headers: [.contentType: "application/json"],
                    body: .init(byteBuffer: ByteBuffer(string: #"{"d":\#(body)}"#)))
            }
        }
    }

    @Test func onlineAndOffline() async throws {
        let received = Received()
        let server = try await Self.start(received: received)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-v2-values-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try await withCleanup {
            var customer = ODataEntity(properties: ["ID": .int(1), "Name": "Ada"])
            customer["Balance"] = .double(2.5)
            customer["Visits"] = .int(3)
            // Online: the service's metadata types the body.
            let service = NextLinkShapeTests.service(server)
            _ = try await service.metadata()
            let created = try await service.create(ODataPath("Customers"), customer)
            #expect(created.entity?["Balance"] == .double(2.5) && created.entity?["Visits"] == .int(3))

            // Offline: created locally, uploaded with the same types.
            let store = OfflineStore(
                configuration: OfflineStore.Configuration(
                    service: NextLinkShapeTests.service(server), path: folder.appendingPathComponent("v.store").path,
                    definingQueries: [.init(name: "customers", query: "Customers")], key: StoreKey.random()))
            try await store.open()
            customer["ID"] = .int(2)
            try await store.create("Customers", customer)
            let result = try await store.upload()
            #expect(result.sent == 1 && result.failed == 0, "\(result)")
            #expect(try await store.errors().isEmpty)
            try await store.close()
            let bodies = received.bodies.withLock { $0 }
            #expect(bodies.count == 2)
            for body in bodies {
                #expect(body.contains(#""Balance":"2.5""#) && body.contains(#""Visits":"3""#), "\(body)")
            }
        } cleanup: {
            await server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }
}
