import Foundation
import SatchelHTTP
import SatchelOData
import SatchelTestSupport
import Testing

#if os(Linux)
    /// SatchelOData over HTTPS against the odatapy V4 service serving TLS with a certificate made for the test: the
    /// NIO transport trusting the test authority reads, pages through `https` next links, writes with ETags and
    /// moves media both ways; without that trust the service is refused with the reason.
    @Suite("Live: odatapy V4 over HTTPS", .serialized)
    struct ODataTLSTests {
        static let peer = Task {
            let certificates = try await TestCertificates.make()
            let server = try await ODataPyServer.start(
                maxPageSize: 20, tls: certificates.server, timeout: LivePeers.startTimeout)
            return (server: server, certificates: certificates)
        }

        static func shop(trusting authority: URL?) async throws -> (ODataService, NIOTransport) {
            let (server, _) = try await peer.value
            #expect(server.serviceURL.scheme == "https")
            let transport = try NIOTransport(configuration: .init(tls: .init(trustRoots: authority)))
            return (
                ODataService(
                    configuration: .init(serviceURL: server.serviceURL, http: LivePeers.http), transport: transport),
                transport
            )
        }

        @Test("trusting the test authority: metadata, paging through https next links, writes, media")
        func trusted() async throws {
            let (_, certificates) = try await Self.peer.value
            let (service, transport) = try await Self.shop(trusting: certificates.authority)
            try await withCleanup { () async throws in
                #expect(try await service.metadata().entityType(ofSet: "Products") != nil)
                var pages: [ODataPage] = []
                for try await page in service.pages("Products", query: ODataQuery().select("ID")) { pages.append(page) }
                let total = try await service.count("Products")
                #expect(Int64(pages.flatMap(\.entities).count) == total)
                #expect(pages.count > 1)
                #expect(pages.dropLast().allSatisfy { $0.nextLink?.hasPrefix("https://") == true })

                let id = Int64.random(in: 10_000...99_999)
                let created = try await service.create(
                    "Products",
                    ODataEntity(properties: [
                        "ID": .int(id), "Name": "Sealed Kettle", "Price": .decimal(Decimal(string: "9.99")!),
                        "Stock": 3, "Status": .enumMember("Active"), "CategoryID": 1,
                    ]))
                let path = ODataPath("Products").key(.single(.int64(id)))
                try await service.update(
                    path, with: ODataEntity(properties: ["Name": "Sealed Kettle II"]), ifMatch: created.etag)
                #expect(try await service.entity(path)["Name"] == "Sealed Kettle II")

                let folder = FileManager.default.temporaryDirectory
                    .appendingPathComponent("satchel-odata-tls-\(UUID())")
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
                defer { try? FileManager.default.removeItem(at: folder) }
                let source = folder.appendingPathComponent("upload.bin")
                let bytes = Data((0..<2_000_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
                try bytes.write(to: source)
                let media = try await service.createMedia(
                    "Documents", from: source, contentType: "application/octet-stream")
                let mediaID = try #require(media.entity?["ID"]?.intValue)
                let copy = folder.appendingPathComponent("copy.bin")
                try await service.downloadMedia(ODataPath("Documents").key(.single(.int64(Int64(mediaID)))), to: copy)
                #expect(try Data(contentsOf: copy) == bytes)
            } cleanup: {
                try? await transport.shutdown()
            }
        }

        @Test("without the test authority the service is refused, and the error says why")
        func untrusted() async throws {
            let (service, transport) = try await Self.shop(trusting: nil)
            try await withCleanup { () async throws in
                let error = await LivePeers.odataError { _ = try await service.metadata() }
                #expect(error?.code == .connection)
                #expect(error?.httpError?.code == .tls)
                #expect(
                    error?.message.contains("not signed by a trusted authority") == true,
                    "\(String(describing: error))")
            } cleanup: {
                try? await transport.shutdown()
            }
        }
    }
#endif
