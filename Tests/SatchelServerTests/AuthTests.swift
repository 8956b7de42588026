import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServer
import Testing
import SatchelJSON

@Suite("Authentication")
struct AuthTests {
    static let server = Task { try await ServerHarness.start() }
    var harness: ServerHarness { get async throws { try await Self.server.value } }

    @Test(
        "a binding URL without credentials gets a Basic challenge and a CMIS error body",
        arguments: [
            "/mcm/b/json", "/cmis/browser", "/cmis/browser/shared?cmisselector=repositoryInfo", "/mcm/b/atom",
        ])
    func challenge(path: String) async throws {
        let response = try await harness.send(.get, path, user: nil)
        #expect(response.status == 401)
        #expect(response.headers["WWW-Authenticate"] == #"Basic realm="Satchel""#)
        #expect(exception(response) == "permissionDenied")
    }

    @Test("a wrong password or an unknown user gets 401", arguments: [("alice", "wrong"), ("mallory", "pw-mallory")])
    func wrongPassword(user: String, password: String) async throws {
        let response = try await harness.send(
            .get, "/mcm/b/json", user: nil, headers: [("Authorization", ServerHarness.basic(user, password: password))])
        #expect(response.status == 401)
        #expect(response.headers["WWW-Authenticate"] != nil)
    }

    @Test("Basic credentials list the caller's repositories with absolute URLs")
    func basicLists() async throws {
        let response = try await harness.send(.get, "/mcm/b/json", user: "alice")
        #expect(response.status == 200)
        let infos = try BrowserParser.repositoryInfos(response.body)
        #expect(Set(infos.map(\.id)) == ["mydocs-alice", "shared"])
        let mine = try #require(infos.first { $0.id == "mydocs-alice" })
        #expect(mine.repositoryURL?.absoluteString.hasSuffix("/mcm/b/json/mydocs-alice") == true)
        #expect(mine.rootFolderURL?.absoluteString.hasSuffix("/mcm/b/json/mydocs-alice/root") == true)
        #expect(mine.extensionValue(named: "token")?.isEmpty == false)
    }

    @Test("the Basic token is stable across requests and differs between users")
    func stableToken() async throws {
        let first = try await harness.token(for: "alice")
        let second = try await harness.token(for: "alice")
        let bob = try await harness.token(for: "bob")
        #expect(first != nil)
        #expect(first == second)
        #expect(first != bob)
    }

    @Test("health and discovery need no credentials")
    func openRoutes() async throws {
        let health = try await harness.send(.get, "/health", user: nil)
        #expect(health.status == 200)
        #expect(try health.json()["status"]?.stringValue == "ok")
        let discovery = try await harness.send(.get, "/cmis-endpoints.json", user: nil)
        #expect(discovery.status == 200)
        let endpoints = try BrowserParser.endpoints(discovery.body)
        #expect(endpoints.filter { $0.binding == "browser" }.map(\.url.path) == ["/mcm/b/json", "/cmis/browser"])
        #expect(endpoints.allSatisfy { $0.authentication == ["basic"] })
    }

    @Test("form login sets an HttpOnly SameSite=Strict cookie that authenticates; logout ends it")
    func formLogin() async throws {
        let harness = try await self.harness
        let login = try await harness.post("/login", user: nil, fields: [("user", "bob"), ("password", "pw-bob")])
        #expect(login.status == 200)
        let setCookie = try #require(login.headers["Set-Cookie"])
        #expect(setCookie.contains("HttpOnly"))
        #expect(setCookie.contains("SameSite=Strict"))
        let cookie = String(setCookie.split(separator: ";")[0])
        let token = try login.json()["token"]?.stringValue
        #expect(token != nil)

        let listed = try await harness.send(.get, "/mcm/b/json", user: nil, headers: [("Cookie", cookie)])
        #expect(listed.status == 200)
        let info = try BrowserParser.repositoryInfos(listed.body).first { $0.id == "mydocs-bob" }
        #expect(info?.extensionValue(named: "token") == token)

        let logout = try await harness.send(.post, "/logout", user: nil, headers: [("Cookie", cookie)])
        #expect(logout.status == 200)
        let after = try await harness.send(.get, "/mcm/b/json", user: nil, headers: [("Cookie", cookie)])
        #expect(after.status == 401)
    }

    @Test("form login with a wrong password is refused without a cookie")
    func formLoginRefused() async throws {
        let login = try await harness.post("/login", user: nil, fields: [("user", "bob"), ("password", "nope")])
        #expect(login.status == 401)
        #expect(login.headers["Set-Cookie"] == nil)
    }
}
