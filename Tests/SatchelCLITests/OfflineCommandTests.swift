import Foundation
import SatchelHTTP
import SatchelOData
import SatchelTestSupport
import Testing

extension SatchelCLITests {
    /// `satchel offline` end to end against odatapy: open with a download, query with the service stopped or not,
    /// change, upload, check on the server.
    @Suite struct OfflineCommandTests {
        @Test func openQueryChangeUpload() async throws {
            let server = try await ODataPyServer.start(maxPageSize: 20, timeout: .seconds(60))
            defer { server.stop() }
            let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-cli-offline-\(UUID())")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: folder) }
            let config = folder.appendingPathComponent("shop.ini").path
            try """
            [endpoint]
            url = \(server.serviceURL.absoluteString)
            store = shop.store

            [products]
            query = Products?$filter=CategoryID le 3

            [categories]
            query = Categories
            """.write(toFile: config, atomically: true, encoding: .utf8)
            let environment = ["SATCHEL_STORE_PASSPHRASE": "cli secret"]

            let open = try await SatchelProcess.run(["offline", "open", config], environment: environment)
            #expect(open.status == 0, "\(open.stderr)")
            #expect(open.stdoutText.contains("products: 150 Products"), "\(open.stdoutText)")

            let query = try await SatchelProcess.run(
                [
                    "offline", "query", config, "Products", "--filter", "Price gt 50 and CategoryID eq 2", "--orderby",
                    "Price desc", "--top", "3", "--select", "ID,Price",
                ], environment: environment)
            #expect(query.status == 0, "\(query.stderr)")
            let lines = query.stdoutText.split(separator: "\n")
            #expect(lines.count == 3)
            #expect(lines.allSatisfy { $0.contains("\"ID\"") && !$0.contains("\"Name\"") })

            let update = try await SatchelProcess.run(
                ["offline", "update", config, "Products", "3", "--json", #"{"Stock": 4242}"#], environment: environment)
            #expect(update.status == 0, "\(update.stderr)")
            let requests = try await SatchelProcess.run(["offline", "requests", config], environment: environment)
            #expect(requests.stdoutText.contains("PATCH\tProducts"))
            let upload = try await SatchelProcess.run(["offline", "upload", config], environment: environment)
            #expect(upload.stdoutText.contains("sent: 1, failed: 0"), "\(upload.stdoutText) \(upload.stderr)")
            let service = ODataService(configuration: .init(serviceURL: server.serviceURL))
            #expect(try await service.entity("Products", key: .single(.int(3)))["Stock"]?.intValue == 4242)

            let wrongKey = try await SatchelProcess.run(
                ["offline", "status", config], environment: ["SATCHEL_STORE_PASSPHRASE": "not it"])
            #expect(wrongKey.status == 4, "\(wrongKey.stderr)")

            // The network unplugged: queries answer from the store.
            server.stop()
            let count = try await SatchelProcess.run(
                ["offline", "query", config, "Products", "--count", "--filter", "Stock eq 4242"],
                environment: environment)
            #expect(count.status == 0, "\(count.stderr)")
            #expect(count.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines) == "1")
            let status = try await SatchelProcess.run(["offline", "status", config], environment: environment)
            #expect(status.stdoutText.contains("encrypted: yes") && status.stdoutText.contains("pending requests: 0"))

            let remove = try await SatchelProcess.run(["offline", "remove", config], environment: environment)
            #expect(remove.status == 0)
            #expect(!FileManager.default.fileExists(atPath: folder.appendingPathComponent("shop.store").path))
        }
    }
}
