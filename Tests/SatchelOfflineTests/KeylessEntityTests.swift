import Foundation
import Hummingbird
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelTestSupport
import Synchronization
import Testing

/// A service whose expanded entities come without their (non-nullable) key property: a link that names the key is
/// enough to store them once, downloads after downloads; with no such link the download fails with the entity's
/// place in the page, and no row with a null key is ever stored.
@Suite("Offline store: expanded entities that come without their key")
struct KeylessEntityTests {
    static let metadata = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx Version="4.0" xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx">
        <edmx:DataServices><Schema Namespace="Shop" xmlns="http://docs.oasis-open.org/odata/ns/edm">
        <EntityType Name="Customer"><Key><PropertyRef Name="ID"/></Key>
        <Property Name="ID" Type="Edm.Int32" Nullable="false"/><Property Name="Name" Type="Edm.String"/>
        <NavigationProperty Name="Orders" Type="Collection(Shop.Order)"/></EntityType>
        <EntityType Name="Order"><Key><PropertyRef Name="OrderID"/></Key>
        <Property Name="OrderID" Type="Edm.Int32" Nullable="false"/><Property Name="Amount" Type="Edm.Int32"/>
        </EntityType>
        <EntityContainer Name="Shop">
        <EntitySet Name="Customers" EntityType="Shop.Customer"><NavigationPropertyBinding Path="Orders" Target="Orders"/>
        </EntitySet><EntitySet Name="Orders" EntityType="Shop.Order"/></EntityContainer>
        </Schema></edmx:DataServices></edmx:Edmx>
        """

    /// Three customers with two orders each; the orders carry an `@odata.id` or nothing but their amount.
    static func page(withLinks: Bool) -> String {
        let customers = (1...3).map { customer in
            let orders = (0..<2).map { line in
                let id = customer * 10 + line
                return withLinks
                    ? #"{"@odata.id":"Orders(\#(id))","Amount":\#(id * 100)}"# : #"{"Amount":\#(id * 100)}"#
            }
            return #"{"ID":\#(customer),"Name":"C\#(customer)","Orders":[\#(orders.joined(separator: ","))]}"#
        }
        return #"{"@odata.context":"$metadata#Customers","value":[\#(customers.joined(separator: ","))]}"#
    }

    static func start(withLinks: Bool) async throws -> TestHTTPServer {
        try await TestHTTPServer.start { router in
            router.get("/odata/**") { request, _ -> Response in
                let json = request.uri.path.hasSuffix("$metadata") ? Self.metadata : Self.page(withLinks: withLinks)
                return Response(
                    status: .ok,
                    headers: [
                        .contentType: request.uri.path.hasSuffix("$metadata") ? "application/xml" : "application/json"
                    ],
                    body: .init(byteBuffer: ByteBuffer(string: json)))
            }
        }
    }

    static func store(_ server: TestHTTPServer, in folder: URL) -> OfflineStore {
        OfflineStore(
            configuration: OfflineStore.Configuration(
                service: ODataService(
                    configuration: .init(
                        serviceURL: server.url("/odata"), http: HTTPClient.Configuration(retry: .never))),
                path: folder.appendingPathComponent("k.store").path,
                definingQueries: [.init(name: "customers", query: "Customers?$expand=Orders")], key: StoreKey.random()))
    }

    @Test("an expanded entity without its key is stored by the key its link names, once, download after download")
    func keyFromLink() async throws {
        let server = try await Self.start(withLinks: true)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-keyless-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try await withCleanup {
            let store = Self.store(server, in: folder)
            try await store.open()
            #expect(try await store.count("Orders") == 6)
            try await store.download()
            try await store.download()
            #expect(try await store.count("Orders") == 6, "each download stores the same six orders again")
            let order = try await store.entities("Orders", query: ODataQuery().filter(.property("OrderID") == 21))
            #expect(order.first?["Amount"] == .int(2100))
            let nullKey = try ODataExpression.parse("OrderID eq null", version: .v4)
            #expect(try await store.count("Orders", query: ODataQuery().filter(nullKey)) == 0)
            try await store.close()
        } cleanup: {
            await server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }

    @Test("an expanded entity with neither its key nor a link fails the download with its place in the page")
    func noKeyNoLink() async throws {
        let server = try await Self.start(withLinks: false)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-keyless-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try await withCleanup {
            let store = Self.store(server, in: folder)
            do {
                try await store.open()
                Issue.record("entities without a key were stored")
            } catch let error as ODataError {
                #expect(error.code == .invalidPayload, "\(error)")
                #expect("\(error)".contains("Customers[0].Orders[0]") && "\(error)".contains("OrderID"), "\(error)")
            }
            #expect(try await store.isInitialDownloadComplete == false)
            #expect(try await store.count("Orders") == 0)
            try? await store.close()
        } cleanup: {
            await server.stop()
            try? FileManager.default.removeItem(at: folder)
        }
    }
}
