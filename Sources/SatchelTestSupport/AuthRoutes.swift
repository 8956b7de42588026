import Foundation
import HTTPTypes
import Hummingbird
import NIOCore
import Synchronization

extension TestHTTPServer {
    static func addAuthRoutes(_ router: Router<BasicRequestContext>, state: TestServerState) {
        let basic = "Basic " + Data("\(user):\(password)".utf8).base64EncodedString()
        router.get("/basic/protected") { request, _ -> Response in
            guard request.headers[.authorization] == basic else {
                return json(
                    ["message": "credentials required"],
                    status: .unauthorized,
                    headers: [.wwwAuthenticate: "Basic realm=\"satchel\""]
                )
            }
            return json(["user": user])
        }

        router.post("/bearer/token") { _, _ -> Response in
            let token = UUID().uuidString
            state.values.withLock {
                $0.bearerTokens.insert(token)
                $0.bearerIssued += 1
            }
            return json(["token": token])
        }
        router.get("/bearer/protected") { request, _ -> Response in
            let sent = request.headers[.authorization].map { String($0.dropFirst("Bearer ".count)) }
            guard let sent, state.values.withLock({ $0.bearerTokens.contains(sent) }) else {
                return json(
                    ["message": "token expired"], status: .unauthorized,
                    headers: [.wwwAuthenticate: "Bearer error=\"invalid_token\""])
            }
            return json(["ok": true])
        }

        addSSORoutes(router, state: state)
        addCSRFRoutes(router, state: state)
    }

    private static func cookie(_ name: String, in request: Request) -> String? {
        for header in request.headers[values: .cookie] {
            for pair in header.split(separator: ";") {
                let parts = pair.trimmingCharacters(in: .whitespaces).split(separator: "=", maxSplits: 1)
                if parts.count == 2, parts[0] == name { return String(parts[1]) }
            }
        }
        return nil
    }

    private static func addSSORoutes(_ router: Router<BasicRequestContext>, state: TestServerState) {
        router.post("/sso/login") { request, _ -> Response in
            var request = request
            let body = try await request.collectBody(upTo: 1 << 20)
            var fields: [String: String] = [:]
            for pair in String(buffer: body).split(separator: "&") {
                let parts = pair.split(separator: "=", maxSplits: 1).map {
                    String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
                }
                if parts.count == 2 { fields[parts[0]] = parts[1] }
            }
            // Credentials must never travel in the URL.
            guard request.uri.query == nil, fields["j_username"] == user, fields["j_password"] == password else {
                return html(loginPage)
            }
            let ticket = UUID().uuidString
            state.values.withLock {
                $0.ssoSessions.insert(ticket)
                $0.ssoLogins += 1
            }
            var headers: HTTPFields = [.location: "/sso/welcome"]
            headers.append(HTTPField(name: .setCookie, value: "MYSAPSSO2=\(ticket); Path=/; HttpOnly"))
            return Response(status: .found, headers: headers)
        }
        router.get("/sso/welcome") { _, _ in html("<html><head><title>Welcome</title></head><body>Hi</body></html>") }
        router.get("/sso/data") { request, _ -> Response in
            let ticket = cookie("MYSAPSSO2", in: request)
            guard let ticket, state.values.withLock({ $0.ssoSessions.contains(ticket) }) else {
                if request.uri.queryParameters.get("mode") == "401" {
                    return json(["message": "session expired"], status: .unauthorized)
                }
                return html(loginPage)
            }
            return json(["notes": ["first", "second"]])
        }
    }

    private static func addCSRFRoutes(_ router: Router<BasicRequestContext>, state: TestServerState) {
        let tokenHeader = HTTPField.Name("X-CSRF-Token")!
        router.get("/csrf/resource") { request, _ -> Response in
            guard request.headers[tokenHeader]?.lowercased() == "fetch" else { return json(["items": []]) }
            let session = cookie("SAP_SESSIONID", in: request) ?? UUID().uuidString
            let token = UUID().uuidString
            state.values.withLock {
                $0.csrfTokens[session] = token
                $0.csrfFetches += 1
            }
            var headers: HTTPFields = [tokenHeader: token]
            headers.append(HTTPField(name: .setCookie, value: "SAP_SESSIONID=\(session); Path=/"))
            return json(["items": []], headers: headers)
        }
        router.post("/csrf/resource") { request, _ -> Response in
            let session = cookie("SAP_SESSIONID", in: request)
            let expected = session.flatMap { session in state.values.withLock { $0.csrfTokens[session] } }
            guard let expected, request.headers[tokenHeader] == expected else {
                return json(
                    ["message": "CSRF token validation failed"], status: .forbidden,
                    headers: [tokenHeader: "Required"])
            }
            state.values.withLock { $0.postsReceived += 1 }
            return json(["created": true], status: .created)
        }
    }
}
