import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

/// What the standard test server remembers between requests, readable by tests.
public final class TestServerState: Sendable {
    struct Values {
        var attempts: [String: Int] = [:]
        var bearerTokens: Set<String> = []
        var bearerIssued = 0
        var ssoSessions: Set<String> = []
        var ssoLogins = 0
        var csrfTokens: [String: String] = [:]  // session cookie → token
        var csrfFetches = 0
        var postsReceived = 0
    }

    let values = Mutex(Values())

    public init() {}

    public var ssoLogins: Int { values.withLock { $0.ssoLogins } }
    public var csrfFetches: Int { values.withLock { $0.csrfFetches } }
    public var bearerIssued: Int { values.withLock { $0.bearerIssued } }
    public var postsReceived: Int { values.withLock { $0.postsReceived } }
    public func attempts(_ key: String) -> Int { values.withLock { $0.attempts[key] ?? 0 } }

    /// Ends every SSO session, bearer token and CSRF token, as a server restart or expiry would.
    public func expireSessions() {
        values.withLock {
            $0.ssoSessions.removeAll()
            $0.bearerTokens.removeAll()
            $0.csrfTokens.removeAll()
        }
    }
}

extension TestHTTPServer {
    /// The user and password the standard routes accept.
    public static let user = "alice"
    public static let password = "s3cret-Pa55"

    /// Starts a server with the standard routes used by SatchelHTTP's and the CLI's tests.
    ///
    /// | route | behaviour |
    /// |---|---|
    /// | `/inspect` (any method) | JSON: method, path, query, headers, body length |
    /// | `/echo` (any method) | the request body back, same content type |
    /// | `/bytes/{n}` | `n` bytes of pattern `i % 251`; honours `Range` |
    /// | `/sink` (PUT, POST) | reads the body; JSON `{"received": n}` |
    /// | `/status/{code}` | that status; `?retryAfter=` sets `Retry-After`; JSON error body |
    /// | `/flaky?key=&fail=&status=` | the first `fail` requests per key answer `status` (503) |
    /// | `/slow?ms=` | answers after `ms` milliseconds |
    /// | `/drip?chunks=&ms=` | sends 1 KiB chunks `ms` apart |
    /// | `/cut?length=&send=` | announces `length` bytes, sends `send`, drops the connection |
    /// | `/big-header?size=` | one response header of `size` bytes |
    /// | `/redirect?to=&status=`, `/redirect-loop` | redirects |
    /// | `/set-cookie` then `/inspect` | cookie round trip (set by a redirect) |
    /// | `/basic/protected` | Basic `alice`; 401 + `WWW-Authenticate: Basic` |
    /// | `/bearer/token` (POST), `/bearer/protected` | issues tokens; requires a current one |
    /// | `/sso/login` (POST form), `/sso/data` | form login setting `MYSAPSSO2`; an expired session gets the login page (or 401 with `?mode=401`) |
    /// | `/csrf/resource` | GET with `X-CSRF-Token: Fetch` gives a token; POST needs it or gets 403 + `Required` |
    /// | `/login-page`, `/html` | an HTML login page, and an ordinary HTML page |
    /// | `/odata-error` | 400 with an OData V2 error body |
    public static func startStandard(state: TestServerState = TestServerState()) async throws -> TestHTTPServer {
        try await start { router in
            addGeneralRoutes(router, state: state)
            addTransferRoutes(router)
            addAuthRoutes(router, state: state)
        }
    }

    static func json(_ object: Any, status: HTTPResponse.Status = .ok, headers: HTTPFields = [:]) -> Response {
        let data = (try? JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])) ?? Data()
        var headers = headers
        headers[.contentType] = "application/json"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(bytes: data)))
    }

    static func html(_ text: String, status: HTTPResponse.Status = .ok) -> Response {
        Response(
            status: status,
            headers: [.contentType: "text/html; charset=utf-8"],
            body: .init(byteBuffer: ByteBuffer(string: text))
        )
    }

    static let loginPage = """
        <!DOCTYPE html><html><head><title>Portal Logon</title></head><body>
        <form method="post" action="/sso/login">
        <input name="j_username" type="text"><input name="j_password" type="password">
        <input type="submit" value="Log on"></form></body></html>
        """

    private static func addGeneralRoutes(_ router: Router<BasicRequestContext>, state: TestServerState) {
        router.on("/inspect", method: .get, use: inspect)
        for method in [HTTPRequest.Method.post, .put, .patch, .delete, .head] {
            router.on("/inspect", method: method, use: inspect)
            router.on("/echo", method: method) { request, _ -> Response in
                var request = request
                let body = try await request.collectBody(upTo: 64 << 20)
                var headers: HTTPFields = [:]
                headers[.contentType] = request.headers[.contentType] ?? "application/octet-stream"
                return Response(status: .ok, headers: headers, body: .init(byteBuffer: body))
            }
        }
        router.get("/status/{code}") { request, context -> Response in
            let code = try context.parameters.require("code", as: Int.self)
            var headers: HTTPFields = [:]
            if let retryAfter = request.uri.queryParameters.get("retryAfter") {
                headers[.retryAfter] = String(retryAfter)
            }
            return json(
                ["error": ["code": "E\(code)", "message": "status \(code) as requested"]],
                status: .init(code: code), headers: headers)
        }
        router.get("/flaky") { request, _ -> Response in
            let key = request.uri.queryParameters.get("key") ?? "default"
            let failures = request.uri.queryParameters.get("fail", as: Int.self) ?? 1
            let status = request.uri.queryParameters.get("status", as: Int.self) ?? 503
            let attempt = state.values.withLock { values -> Int in
                values.attempts[key, default: 0] += 1
                return values.attempts[key]!
            }
            if attempt <= failures {
                var headers: HTTPFields = [:]
                if let retryAfter = request.uri.queryParameters.get("retryAfter") {
                    headers[.retryAfter] = String(retryAfter)
                }
                return json(["attempt": attempt], status: .init(code: status), headers: headers)
            }
            return json(["attempt": attempt])
        }
        router.post("/flaky") { request, _ -> Response in
            let key = request.uri.queryParameters.get("key") ?? "default"
            let attempt = state.values.withLock { values -> Int in
                values.attempts[key, default: 0] += 1
                return values.attempts[key]!
            }
            return json(["attempt": attempt], status: .serviceUnavailable)
        }
        router.get("/slow") { request, _ -> Response in
            let milliseconds = request.uri.queryParameters.get("ms", as: Int.self) ?? 1000
            try await Task.sleep(for: .milliseconds(milliseconds))
            return json(["slept": milliseconds])
        }
        router.get("/redirect") { request, _ -> Response in
            let target = request.uri.queryParameters.get("to") ?? "/inspect"
            let status = request.uri.queryParameters.get("status", as: Int.self) ?? 302
            return Response(status: .init(code: status), headers: [.location: String(target)])
        }
        router.post("/redirect") { request, _ -> Response in
            let target = request.uri.queryParameters.get("to") ?? "/inspect"
            let status = request.uri.queryParameters.get("status", as: Int.self) ?? 302
            return Response(status: .init(code: status), headers: [.location: String(target)])
        }
        router.get("/redirect-loop") { _, _ -> Response in
            Response(status: .found, headers: [.location: "/redirect-loop"])
        }
        router.get("/set-cookie") { _, _ -> Response in
            var headers: HTTPFields = [.location: "/inspect"]
            headers.append(HTTPField(name: .setCookie, value: "flavour=oatmeal; Path=/"))
            headers.append(HTTPField(name: .setCookie, value: "session=abc123; Path=/; HttpOnly"))
            return Response(status: .found, headers: headers)
        }
        router.get("/login-page") { _, _ in html(loginPage) }
        router.get("/html") { _, _ in html("<html><head><title>Hello</title></head><body>Plain page</body></html>") }
        router.get("/odata-error") { _, _ -> Response in
            json(
                [
                    "error": [
                        "code": "SY/530",
                        "message": ["lang": "en", "value": "Material 4711 does not exist"],
                        "innererror": ["errordetails": [["message": "Check the material number"]]],
                    ]
                ],
                status: .badRequest
            )
        }
    }

    @Sendable private static func inspect(_ request: Request, _ context: BasicRequestContext) async throws -> Response {
        var request = request
        let body = try await request.collectBody(upTo: 64 << 20)
        var headers: [String: String] = [:]
        for field in request.headers {
            let name = field.name.canonicalName
            headers[name] = headers[name].map { "\($0), \(field.value)" } ?? field.value
        }
        return json([
            "method": request.method.rawValue,
            "path": request.uri.path,
            "query": request.uri.query ?? "",
            "headers": headers,
            "bodyLength": body.readableBytes,
            "body": String(buffer: body),
        ])
    }
}
