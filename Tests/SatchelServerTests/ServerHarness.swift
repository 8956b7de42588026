import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelRepository
import SatchelServer
import SatchelJSON
import Logging

/// A `satchel serve` on 127.0.0.1 with a port picked at run time, two users (alice, bob) and an administrator
/// (admin), each with password `pw-<name>`, metadata in memory (or SQLite) and a temporary data folder.
final class ServerHarness: Sendable {
    let running: RunningServer
    let dataDirectory: URL
    /// Answers come back as they are: no retries (a 429 or 503 is what a test looks at).
    let client = HTTPClient(configuration: ServerHarness.noRetries)
    static var noRetries: HTTPClient.Configuration { HTTPClient.Configuration(retry: .never) }  // a cookie jar each

    static let users = ["alice", "bob", "admin"]

    static func start(
        xsrf: XSRFPolicy = .standard, limits: RequestLimits = RequestLimits(),
        service: (@Sendable (BlobStore) -> any CMISService)? = nil, sqlite: Bool = false,
        rounds: Int = 1_000, configure: (inout ServerConfiguration) -> Void = { _ in }
    ) async throws -> ServerHarness {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "satchel-server-test-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var entries: [String: PasswordHash] = [:]
        for user in users { entries[user] = try PasswordHash.make(password: "pw-\(user)", rounds: rounds) }
        let usersFile = directory.appendingPathComponent("users.json")
        try UsersFile(entries: entries, administrators: ["admin"]).save(to: usersFile)
        var configuration = ServerConfiguration(
            host: "127.0.0.1", port: 0, dataDirectory: directory, usersFile: usersFile,
            store: sqlite ? .sqlite(path: directory.appendingPathComponent("satchel.sqlite").path) : .memory,
            xsrfPolicy: xsrf, limits: limits, logLevel: .critical)
        configure(&configuration)
        let factory: ServiceFactory?
        if let service {
            factory = { _, blobs, _ in service(blobs) }
        } else {
            factory = nil
        }
        let app = SatchelServerApp(configuration: configuration, makeService: factory)
        let running = try await app.start()
        return ServerHarness(running: running, dataDirectory: directory)
    }

    private init(running: RunningServer, dataDirectory: URL) {
        self.running = running
        self.dataDirectory = dataDirectory
    }

    func stop() async {
        await running.shutdown()
        try? FileManager.default.removeItem(at: dataDirectory)
    }

    /// `pathAndQuery` on this server: `https` when it serves TLS.
    func url(_ pathAndQuery: String) -> URL {
        URL(string: running.baseURL.absoluteString + pathAndQuery)!
    }

    static func basic(_ user: String, password: String? = nil) -> String {
        "Basic " + Data("\(user):\(password ?? "pw-\(user)")".utf8).base64EncodedString()
    }

    /// Sends a request and returns whatever status comes back.
    func send(
        _ method: HTTPClient.Method = .get, _ pathAndQuery: String, user: String? = "alice",
        headers: [(String, String)] = [], body: HTTPClient.Body? = nil
    ) async throws -> HTTPClient.Response {
        var request = HTTPClient.Request(
            method, url: url(pathAndQuery), headers: HTTPClient.Headers(headers), body: body)
        if let user { request.headers["Authorization"] = Self.basic(user) }
        request.validatesStatus = false
        // Login answers set a cookie: keep it out of the shared client's jar, so other tests stay on Basic.
        return try await (pathAndQuery.hasPrefix("/login") ? HTTPClient(configuration: Self.noRetries) : client)
            .send(request)
    }

    /// A form POST (urlencoded).
    func post(
        _ pathAndQuery: String, user: String? = "alice", fields: [(String, String)], headers: [(String, String)] = []
    ) async throws -> HTTPClient.Response {
        try await send(.post, pathAndQuery, user: user, headers: headers, body: .form(fields))
    }

    /// The XSRF token of `user`'s MyDocuments repository (from its repository info).
    func token(for user: String) async throws -> String? {
        let response = try await send(.get, "/mcm/b/json/mydocs-\(user)?cmisselector=repositoryInfo", user: user)
        guard response.status == 200 else {
            throw CMISError.browser(status: response.status, body: response.body)
        }
        return try BrowserParser.repositoryInfo(response.body).extensionValue(named: "token")
    }
}

/// The CMIS exception name of a JSON error body.
func exception(_ response: HTTPClient.Response) -> String? {
    (try? response.json())?["exception"]?.stringValue
}
