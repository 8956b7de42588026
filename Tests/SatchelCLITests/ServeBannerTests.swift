import Foundation
import SatchelRepository
import Testing

/// `satchel serve`'s start-up banner names every API it serves, so a user finds each one from the first screen.
@Suite("satchel serve banner")
struct ServeBannerTests {
    @Test("the banner lists the Mobile Documents, CMIS and Nuxeo APIs and discovery, each with its URL")
    func listsEveryAPI() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-banner-\(UUID())")
        defer { try? FileManager.default.removeItem(at: data) }
        let result = try await SatchelProcess.run(
            ["serve", "--memory", "--host", "127.0.0.1", "--port", "0", "--data", data.path], interruptAfter: 3)
        let banner = result.stderr
        #expect(banner.contains("Satchel server listening on http://127.0.0.1:"), "\(banner)")
        for path in [
            "/mcm/b/json", "/mcm/b/atom", "/cmis/browser", "/cmis/atom", "/nuxeo/api/v1", "/cmis-endpoints.json",
        ] {
            #expect(banner.contains(path), "\(path) missing from: \(banner)")
        }
    }

    @Test("--offline: each endpoint in the banner, a key Satchel does not implement warned with its line")
    func offlineEndpoints() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-banner-\(UUID())")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: data) }
        let ini = data.appendingPathComponent("app.ini")
        try """
        [endpoint]
        name = shop
        backend_url = http://127.0.0.1:9/odata
        offline_db_collation = UNICODE

        [defining_query]
        name = products
        query = /Products
        """.write(to: ini, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: ini.path)
        let result = try await SatchelProcess.run(
            ["serve", "--memory", "--port", "0", "--data", data.path, "--offline", ini.path], interruptAfter: 3)
        let banner = result.stderr
        #expect(banner.contains("/offline/shop/ → http://127.0.0.1:9/odata (products)"), "\(banner)")
        #expect(banner.contains("app.ini line 4: offline_db_collation is not used"), "\(banner)")

        // A malformed file: one error line naming the file and line, exit 2, no server.
        try "[endpoint]\nname = shop\nnot a key\n".write(to: ini, atomically: true, encoding: .utf8)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: ini.path)
        let refused = try await SatchelProcess.run(
            ["serve", "--memory", "--port", "0", "--data", data.path, "--offline", ini.path], interruptAfter: 3)
        #expect(refused.status == 2, "\(refused.stderr)")
        #expect(refused.stderr.contains("line 3") && !refused.stderr.contains("listening"), "\(refused.stderr)")
    }
}

@Suite("satchel serve offline-status")
struct ServeOfflineStatusTests {
    @Test("each defining query with its version, rows, refresh and clients; a folder without a store is refused")
    func status() async throws {
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-offline-status-\(UUID())")
        try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: data) }
        let store = try SQLiteMetadataStore(path: data.appendingPathComponent("satchel.sqlite").path)
        try await store.migrate()
        let shared = OfflineQueryID(endpoint: "shop", query: "categories", scope: OfflineQueryID.shared)
        let body = Data(#"{"ID":1}"#.utf8)
        let row = OfflineRow(key: "1", hash: Data([1]), body: body)
        _ = try await store.applyFullRead(shared, rows: [row], at: Date(), backendDeltaLink: nil)
        _ = try await store.applyFullRead(
            shared, rows: [row, OfflineRow(key: "2", hash: Data([2]), body: body)], at: Date(),
            backendDeltaLink: nil)
        try await store.recordSyncPoint(shared, client: "ada", version: 1, at: Date())
        try await store.recordSyncPoint(shared, client: "bob", version: 2, at: Date())

        let result = try await SatchelProcess.run(["serve", "offline-status", "--data", data.path])
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.stdoutText.split(separator: "\n").map(String.init)
        #expect(lines.count == 3, "\(result.stdoutText)")
        #expect(lines.first?.hasPrefix("shop  categories  shared  version 2  2 rows  16 bytes  refreshed ") == true)
        #expect(lines.first?.hasSuffix("ago, full read, compared here)") == true, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("    ada  version 1 (1 behind)  at ") }, "\(lines)")
        #expect(lines.contains { $0.hasPrefix("    bob  version 2 (current)  at ") }, "\(lines)")

        let missing = try await SatchelProcess.run(["serve", "offline-status", "--data", data.path + "-nothing"])
        #expect(missing.status != 0 && missing.stderr.contains("no server store at"), "\(missing.stderr)")
    }
}
