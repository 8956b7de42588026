import Foundation
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
