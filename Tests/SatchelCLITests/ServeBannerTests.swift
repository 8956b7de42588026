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
}
