import Foundation
import SatchelHTTP
import SatchelTestSupport
import Testing

@Suite("Auth providers against a loopback server")
struct AuthTests {
    let user = TestHTTPServer.user
    let password = TestHTTPServer.password

    @Test("Basic: sent up front, or after a 401 challenge and then up front for that origin")
    func basic() async throws {
        try await withServer { server, _ async throws in
            let transport = CountingTransport()
            let eager = makeClient(auth: [BasicAuth(user: user, password: password)], transport: transport)
            #expect(try await eager.send(HTTPClient.Request(url: server.url("/basic/protected"))).status == 200)
            #expect(transport.count == 1)

            let lazyTransport = CountingTransport()
            let lazy = makeClient(
                auth: [BasicAuth(user: user, password: password, mode: .onChallenge)],
                transport: lazyTransport
            )
            #expect(try await lazy.send(HTTPClient.Request(url: server.url("/basic/protected"))).status == 200)
            #expect(lazyTransport.count == 2)  // 401 challenge, then with credentials
            _ = try await lazy.send(HTTPClient.Request(url: server.url("/basic/protected")))
            #expect(lazyTransport.count == 3)  // now sent at once

            let wrong = makeClient(auth: [BasicAuth(user: user, password: "nope", mode: .onChallenge)])
            let error = await #expect(throws: HTTPTransferError.self) {
                try await wrong.send(HTTPClient.Request(url: server.url("/basic/protected")))
            }
            #expect(error?.code == .unauthorized)
            #expect(error?.serverMessage == "credentials required")
            #expect(!(error?.description.contains("nope") ?? true))
        }
    }

    @Test("Bearer: fetched on first use, refreshed once after expiry")
    func bearer() async throws {
        try await withServer { server, state async throws in
            let issuer = makeClient()
            let auth = BearerTokenAuth {
                let response = try await issuer.send(HTTPClient.Request(.post, url: server.url("/bearer/token")))
                return try response.decode([String: String].self)["token"]!
            }
            let client = makeClient(auth: [auth])
            let url = server.url("/bearer/protected")
            #expect(try await client.send(HTTPClient.Request(url: url)).status == 200)
            #expect(state.bearerIssued == 1)
            state.expireSessions()
            #expect(try await client.send(HTTPClient.Request(url: url)).status == 200)
            #expect(state.bearerIssued == 2)

            let broken = makeClient(auth: [BearerTokenAuth(token: "stale") { "still-stale" }])
            let error = await #expect(throws: HTTPTransferError.self) {
                try await broken.send(HTTPClient.Request(url: url))
            }
            #expect(error?.code == .unauthorized)
        }
    }

    @Test("Form-login SSO: credentials in a POST body, cookie kept, re-login on expiry", arguments: ["page", "401"])
    func formLogin(expiry: String) async throws {
        try await withServer { server, state async throws in
            let sso = FormLoginAuth(
                loginURL: server.url("/sso/login"),
                username: user,
                password: password,
                configuration: .init(sessionCookies: ["MYSAPSSO2"])
            )
            let client = makeClient(auth: [sso])
            var request = HTTPClient.Request(url: server.url(expiry == "401" ? "/sso/data?mode=401" : "/sso/data"))
            request.headers["Accept"] = "application/json"
            #expect(try await client.send(request).text.contains("first"))
            #expect(state.ssoLogins == 1)
            #expect(client.configuration.cookieJar.all.map(\.name) == ["MYSAPSSO2"])
            #expect(
                !client.configuration.cookieJar.all[0].description.contains(client.configuration.cookieJar.all[0].value)
            )

            _ = try await client.send(request)
            #expect(state.ssoLogins == 1)  // the cookie carries the session

            state.expireSessions()
            #expect(try await client.send(request).text.contains("second"))
            #expect(state.ssoLogins == 2)
            #expect(sso.loginCount == 2)
        }
    }

    @Test("Form-login SSO: wrong credentials end in an unauthorized error, not a loop")
    func formLoginWrongPassword() async throws {
        try await withServer { server, state async throws in
            let sso = FormLoginAuth(loginURL: server.url("/sso/login"), username: user, password: "wrong")
            let client = makeClient(auth: [sso])
            var request = HTTPClient.Request(url: server.url("/sso/data"))
            request.headers["Accept"] = "application/json"
            let error = await #expect(throws: HTTPTransferError.self) { try await client.send(request) }
            #expect(error?.code == .unauthorized)
            #expect(error?.message.contains("login failed") == true)
            #expect(state.ssoLogins == 0)
        }
    }

    @Test("CSRF: fetched with a GET, sent on POST, fetched again after 403 Required, reads carry none")
    func csrf() async throws {
        try await withServer { server, state async throws in
            let csrf = CSRFTokenAuth()
            let transport = CountingTransport()
            let client = makeClient(auth: [csrf], transport: transport)
            let url = server.url("/csrf/resource")
            _ = try await client.send(HTTPClient.Request(url: url))
            #expect(state.csrfFetches == 0)
            #expect(try await client.send(HTTPClient.Request(.post, url: url, body: .text("a"))).status == 201)
            #expect(state.csrfFetches == 1)
            #expect(try await client.send(HTTPClient.Request(.post, url: url, body: .text("b"))).status == 201)
            #expect(state.csrfFetches == 1)

            state.expireSessions()
            let before = transport.count
            #expect(try await client.send(HTTPClient.Request(.post, url: url, body: .text("c"))).status == 201)
            #expect(state.csrfFetches == 2)
            #expect(transport.count - before == 3)  // refused POST, fetch, POST again
            #expect(state.postsReceived == 3)
            #expect(
                transport.requests.filter { $0.method == .get }.allSatisfy {
                    !$0.headers.contains("X-CSRF-Token") || $0.headers["X-CSRF-Token"] == "Fetch"
                })
        }
    }

    @Test("A token supplied by another layer is sent in its header and renewed on 403")
    func headerToken() async throws {
        try await withServer { server, state async throws in
            let url = server.url("/csrf/resource")
            let fetcher = makeClient()
            @Sendable func fetchToken() async throws -> String? {
                var request = HTTPClient.Request(url: url)
                request.headers["X-CSRF-Token"] = "Fetch"
                return try await fetcher.send(request).headers["X-CSRF-Token"]
            }
            // The token belongs to the fetcher's session cookie: share the jar the way one CMIS session would.
            let token = HeaderTokenAuth(token: "not-valid-yet") { _ in try await fetchToken() }
            let client = HTTPClient(
                configuration: .init(cookieJar: fetcher.configuration.cookieJar),
                auth: [token]
            )
            #expect(try await client.send(HTTPClient.Request(.post, url: url, body: .text("x"))).status == 201)
            #expect(token.token != "not-valid-yet")
            #expect(state.csrfFetches == 1)
        }
    }
}

/// Counts and records what reaches the network.
final class CountingTransport: HTTPTransport {
    private let inner: any HTTPTransport = AutomaticTransport()
    private let log = Mutex<[TransportRequest]>([])

    var count: Int { log.withLock { $0.count } }
    var requests: [TransportRequest] { log.withLock { $0 } }

    func perform(_ request: TransportRequest) async throws -> TransportResponse {
        log.withLock { $0.append(request) }
        return try await inner.perform(request)
    }
}

import Synchronization
