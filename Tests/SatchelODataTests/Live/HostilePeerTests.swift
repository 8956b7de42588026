import Foundation
import SatchelHTTP
import SatchelOData
import SatchelTestSupport
import Testing

/// Servers that misbehave, over real sockets: HTML with 200 where OData belongs, a connection cut mid-page,
/// malformed JSON, wrong value shapes, unknown `$metadata` constructs. Each is a clear ``ODataError`` with context
/// (or, for unknown constructs, a diagnostic), never a crash.
@Suite("Live: hostile servers")
struct HostilePeerTests {
    static let metadataV4 = """
        <?xml version="1.0" encoding="utf-8"?>
        <edmx:Edmx xmlns:edmx="http://docs.oasis-open.org/odata/ns/edmx" Version="4.0">
          <edmx:DataServices>
            <Schema xmlns="http://docs.oasis-open.org/odata/ns/edm" Namespace="Hostile">
              <EntityType Name="Product">
                <Key><PropertyRef Name="ID"/></Key>
                <Property Name="ID" Type="Edm.Int32" Nullable="false"/>
                <Property Name="Name" Type="Edm.String"/>
                <Property Name="Mystery" Type="Edm.Quux"/>
                <Frobnicate Level="11"/>
              </EntityType>
              <EntityType Name="Keyless">
                <Property Name="Anything" Type="Edm.String"/>
              </EntityType>
              <Teleporter Name="Beam"/>
              <EntityContainer Name="Container">
                <EntitySet Name="Products" EntityType="Hostile.Product"/>
              </EntityContainer>
            </Schema>
          </edmx:DataServices>
        </edmx:Edmx>
        """

    static let html = "<!DOCTYPE html><html><head><title>Sign in</title></head><body>Please log in</body></html>"

    /// Answers by path; `cut` paths promise more bytes than they send and close.
    static func start() throws -> ScriptedTCPServer {
        try ScriptedTCPServer { connection in
            guard let request = connection.readRequest() else { return }
            let path = request.target.split(separator: "?", maxSplits: 1).first.map(String.init) ?? request.target
            func answer(_ body: String, type: String = "application/json", status: String = "200 OK") {
                connection.write(
                    "HTTP/1.1 \(status)\r\nContent-Type: \(type)\r\nContent-Length: \(body.utf8.count)\r\n"
                        + "Connection: close\r\n\r\n\(body)")
            }
            switch path {
            case "/html/$metadata", "/html/Products":
                answer(html, type: "text/html; charset=utf-8")
            case "/ok/$metadata", "/cut/$metadata", "/malformed/$metadata", "/shape/$metadata":
                answer(metadataV4, type: "application/xml")
            case "/ok/Products":
                answer(#"{"value":[{"ID":1,"Name":"one","Mystery":"?"}]}"#)
            case "/cut/Products":
                if request.target.contains("page=2") {
                    let head = "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 4000\r\n\r\n"
                    connection.write(head + #"{"value":[{"ID":3,"Name":"th"#)
                } else {
                    let next =
                        "http://127.0.0.1:\(request.headers["host"]?.split(separator: ":").last ?? "0")"
                        + "/cut/Products?page=2"
                    answer(#"{"value":[{"ID":1,"Name":"one"},{"ID":2,"Name":"two"}],"@odata.nextLink":"\#(next)"}"#)
                }
            case "/malformed/Products":
                answer(#"{"value":[{"ID":1,"Name":"one"},{"ID":2,"Name":"two",]}"#)
            case "/shape/Products":
                answer(#"{"value":[{"ID":1,"Name":"one"},{"ID":"two","Name":"two"}]}"#)
            case "/notedmx/$metadata":
                answer(#"<?xml version="1.0"?><service><workspace/></service>"#, type: "application/xml")
            default:
                answer(#"{"error":{"code":"404","message":"no route"}}"#, status: "404 Not Found")
            }
        }
    }

    static func service(_ server: ScriptedTCPServer, _ prefix: String, version: ODataVersion? = nil) -> ODataService {
        ODataService(
            configuration: .init(
                serviceURL: URL(string: "http://127.0.0.1:\(server.port)/\(prefix)")!, version: version,
                http: HTTPClient.Configuration(timeout: .seconds(20), retry: .never)))
    }

    @Test func htmlInsteadOfMetadataOrPayload() async throws {
        let server = try Self.start()
        defer { server.stop() }
        let metadataError = await LivePeers.odataError { _ = try await Self.service(server, "html").metadata() }
        #expect(metadataError?.code == .invalidMetadata)
        #expect(metadataError.map { String(describing: $0) }?.isEmpty == false)
        let pageError = await LivePeers.odataError {
            _ = try await Self.service(server, "html", version: .v4).entities("Products").collect()
        }
        #expect(pageError?.code == .invalidPayload)
        #expect(pageError?.url?.path == "/html/Products")
        #expect(pageError?.operation == "read Products")
    }

    @Test func connectionCutMidPage() async throws {
        let server = try Self.start()
        defer { server.stop() }
        let service = Self.service(server, "cut")
        var received: [Int64] = []
        do {
            for try await product in service.entities("Products") {
                received.append(product["ID"]?.intValue ?? -1)
            }
            Issue.record("reading a cut page succeeded")
        } catch let error as ODataError {
            #expect(error.code == .connection || error.code == .invalidPayload, "\(error)")
            #expect(error.url?.query?.contains("page=2") == true, "\(error)")
        }
        #expect(received == [1, 2])
    }

    @Test func malformedJSONAndWrongShapes() async throws {
        let server = try Self.start()
        defer { server.stop() }
        let malformed = await LivePeers.odataError {
            _ = try await Self.service(server, "malformed").entities("Products").collect()
        }
        #expect(malformed?.code == .invalidPayload)
        #expect(malformed?.url?.path == "/malformed/Products")
        let shape = await LivePeers.odataError {
            _ = try await Self.service(server, "shape").entities("Products").collect()
        }
        #expect(shape?.code == .invalidPayload)
        #expect(
            shape?.location?.contains("value[1].ID") == true || shape?.message.contains("value[1].ID") == true,
            "\(String(describing: shape))")
    }

    @Test func unknownMetadataConstructsAreDiagnostics() async throws {
        let server = try Self.start()
        defer { server.stop() }
        let service = Self.service(server, "ok")
        let metadata = try await service.metadata()
        #expect(metadata.version == .v4)
        let notes = metadata.diagnostics.map(\.description).joined(separator: "\n")
        #expect(notes.contains("Frobnicate"), "\(notes)")
        #expect(notes.contains("Teleporter"), "\(notes)")
        #expect(notes.contains("Edm.Quux"), "\(notes)")
        #expect(notes.contains("Keyless"), "\(notes)")
        #expect(metadata.diagnostics.allSatisfy { !$0.location.isEmpty })
        // The known parts still work.
        let products = try await service.entities("Products").collect()
        #expect(products.first?["Name"] == "one")
        let notEDMX = await LivePeers.odataError { _ = try await Self.service(server, "notedmx").metadata() }
        #expect(notEDMX?.code == .invalidMetadata)
        #expect(notEDMX?.message.contains("service") == true || notEDMX?.message.lowercased().contains("edmx") == true)
    }
}
