import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServer
import SatchelTestSupport
import Testing

extension Attacks {
    /// A user uploads an HTML file with a script and sends a colleague the link with `download=inline`: served from
    /// the API's own origin, the script could read the colleague's XSRF token and act as them. Content is served in
    /// a sandbox (a unique origin, no scripts), active types only as attachments, and nothing is ever sniffed.
    @Suite("Stored scripts in content")
    struct StoredScript {
        static let page = Data(
            "<html><script>fetch('/mcm/b/json/mydocs-bob?cmisselector=repositoryInfo')</script></html>".utf8)

        @Test(arguments: SessionParameters.Binding.allCases)
        func htmlIsNeverServedAsAPageOfTheServer(binding: SessionParameters.Binding) async throws {
            let harness = try await ServerHarness.start()
            try await withCleanup { () async throws in
                let alice = try await harness.session("alice", binding: .browser)
                let root = alice.repositoryInfo.rootFolderId
                let html = try #require(
                    try await alice.createDocument(
                        named: "page.html", in: root,
                        content: .data(Self.page, filename: "page.html", mimeType: "text/html")
                    ).id)
                let text = try #require(
                    try await alice.createDocument(
                        named: "notes.txt", in: root,
                        content: .data(Data("plain".utf8), filename: "notes.txt", mimeType: "text/plain")
                    ).id)
                func get(_ id: String) async throws -> HTTPClient.Response {
                    let path =
                        binding == .browser
                        ? "/cmis/browser/shared/root?objectId=\(id)&cmisselector=content&download=inline"
                        : "/cmis/atom/shared/content?id=\(id)"
                    return try await harness.send(.get, path, user: "bob")
                }
                let page = try await get(html)
                #expect(page.status == 200 && page.body == Self.page)
                #expect(page.headers["Content-Disposition"]?.hasPrefix("attachment") == true)
                #expect(page.headers["Content-Security-Policy"]?.hasPrefix("sandbox") == true)
                #expect(page.headers["X-Content-Type-Options"] == "nosniff")
                let plain = try await get(text)
                #expect(
                    plain.headers["Content-Disposition"]?.hasPrefix(binding == .browser ? "inline" : "attachment")
                        == true)
                #expect(plain.headers["Content-Security-Policy"]?.hasPrefix("sandbox") == true)
                #expect(plain.headers["X-Content-Type-Options"] == "nosniff")
            } cleanup: {
                await harness.stop()
            }
        }

        @Test func everyResponseSaysNoSniff() async throws {
            let harness = try await ServerHarness.start()
            try await withCleanup { () async throws in
                for path in ["/health", "/cmis/browser", "/cmis/atom", "/nowhere", "/cmis-endpoints.json"] {
                    #expect(
                        try await harness.send(.get, path).headers["X-Content-Type-Options"] == "nosniff", "\(path)")
                }
                #expect(
                    try await harness.send(.get, "/cmis/browser", user: nil).headers["X-Content-Type-Options"]
                        == "nosniff")
            } cleanup: {
                await harness.stop()
            }
        }
    }
}
