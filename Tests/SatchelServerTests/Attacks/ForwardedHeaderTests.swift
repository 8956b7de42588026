import Foundation
import SatchelHTTP
import SatchelTestSupport
import Testing

@testable import SatchelServer

extension Attacks {
    /// `X-Forwarded-Host` and `X-Forwarded-Proto` from a client, not a configured proxy, once turned every link the
    /// server wrote into `javascript://evil.example/…`. They count only from a trusted proxy, and even then only a
    /// scheme of http or https and a plain host are used.
    @Suite("Forwarded headers")
    struct ForwardedHeaders {
        static let hostile = [("X-Forwarded-Host", "evil.example"), ("X-Forwarded-Proto", "javascript")]
        static let pages = [
            "/cmis-endpoints.json", "/cmis/atom", "/cmis/browser?cmisselector=repositoryInfo",
            "/mcm/b/json/mydocs-alice?cmisselector=repositoryInfo",
        ]

        static func links(_ harness: ServerHarness, _ headers: [(String, String)]) async throws -> [String] {
            var bodies: [String] = []
            for page in pages {
                let response = try await harness.send(.get, page, headers: headers)
                #expect(response.status == 200, "\(page)")
                bodies.append(String(decoding: response.body, as: UTF8.self))
            }
            return bodies
        }

        @Test func fromAnyClientTheyAreIgnored() async throws {
            let harness = try await ServerHarness.start()
            try await withCleanup { () async throws in
                let own = "http://127.0.0.1:\(harness.running.port)/"
                for body in try await Self.links(harness, Self.hostile) {
                    #expect(!body.contains("evil.example") && !body.contains("javascript"))
                    #expect(body.contains(own) || body.contains(own.replacingOccurrences(of: "/", with: "\\/")))
                }
            } cleanup: {
                await harness.stop()
            }
        }

        @Test func fromATrustedProxyOnlyPlainValuesCount() async throws {
            let harness = try await ServerHarness.start(configure: {
                $0.trustedProxies = TrustedProxies(["127.0.0.1"])
            })
            try await withCleanup { () async throws in
                for body in try await Self.links(harness, Self.hostile) {
                    #expect(!body.contains("javascript"))
                    #expect(body.contains("http://evil.example/") || body.contains(#"http:\/\/evil.example\/"#))
                }
                let proxied = [("X-Forwarded-Host", "docs.example.com"), ("X-Forwarded-Proto", "https")]
                for body in try await Self.links(harness, proxied) {
                    #expect(
                        body.contains("https://docs.example.com/") || body.contains(#"https:\/\/docs.example.com\/"#))
                }
                let markup = [("X-Forwarded-Host", "a.example/\"><script>x</script>"), ("X-Forwarded-Proto", "https")]
                for body in try await Self.links(harness, markup) {
                    #expect(!body.contains("<script>") && !body.contains("a.example"))
                }
                // Brackets or colons out of place make no URL: never a host (a link made of one crashed a
                // force-unwrap).
                for broken in [
                    "[", "a:b", "[::1", "a]", "host:", "host:123456", "[zz::1]", "a.example:80:90", "[::1]x",
                ] {
                    let answer = try await harness.send(
                        .get, "/cmis-endpoints.json", headers: [("X-Forwarded-Host", broken)])
                    #expect(answer.status == 200, "\(broken)")
                    // The links keep the server's own host.
                    let text = String(decoding: answer.body, as: UTF8.self)
                    #expect(text.contains(#""url":"http://127.0.0.1:"#), "\(broken) made links: \(text.prefix(200))")
                }
            } cleanup: {
                await harness.stop()
            }
        }

        @Test("a host is a name or a bracketed IPv6 literal, with an optional port, and always makes a URL")
        func hostShapes() {
            for good in ["example.com", "a-b_c.example:8080", "127.0.0.1", "127.0.0.1:80", "[::1]", "[::1]:8443", "h"] {
                #expect(HostText.isValid(good), "\(good)")
                #expect(URL(string: "https://\(good)/x") != nil, "\(good)")
            }
            for bad in [
                "", "[", "a:b", "[::1", "a]", "host:", "host:123456", "[zz::1]", "a.example:80:90", "[::1]x", "a b",
            ] {
                #expect(!HostText.isValid(bad), "\(bad)")
            }
        }
    }
}
