import Foundation
import Logging
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelOfflineServer
import SatchelServer
import SatchelStore
import SatchelTestSupport

/// `satchel serve --offline` on a loopback port in front of a back-end (behind a ``FaultyTCPProxy`` that records
/// every request the middle tier sends it), with users `ada` and `bob`.
struct MiddleTierHarness {
    let running: RunningServer
    let proxy: FaultyTCPProxy
    let folder: URL
    static let users = ["ada": "ada-secret", "bob": "bob-secret"]

    static func start(
        ini: String, backendPort: Int, backendPath: String, limits: OfflineTierLimits = OfflineTierLimits(),
        postgres: String? = nil
    ) async throws -> MiddleTierHarness {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-tier-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let proxy = try FaultyTCPProxy(upstreamPort: backendPort)
        let text = ini.replacingOccurrences(of: "BACKEND", with: proxy.url.absoluteString + backendPath)
        let application = try OfflineApplicationConfiguration(
            text: text, name: "app.ini", folder: folder, environment: ["SVC_PASSWORD": "svc-secret"])
        var entries: [String: PasswordHash] = [:]
        for (user, password) in users { entries[user] = try PasswordHash.make(password: password, rounds: 1_000) }
        let usersFile = folder.appendingPathComponent("users.json")
        try UsersFile(entries: entries).save(to: usersFile)
        var configuration = ServerConfiguration(
            port: 0, dataDirectory: folder, usersFile: usersFile, store: postgres.map { .postgres(url: $0) })
        configuration.offline = [application]
        configuration.offlineLimits = limits
        configuration.logLevel = .warning
        let running = try await SatchelServerApp(configuration: configuration).start()
        return MiddleTierHarness(running: running, proxy: proxy, folder: folder)
    }

    func stop() async {
        await running.shutdown()
        proxy.stop()
        try? FileManager.default.removeItem(at: folder)
    }

    /// The endpoint's root on the middle tier.
    func root(_ endpoint: String) -> URL { running.baseURL.appendingPathComponent("offline/\(endpoint)/") }

    /// The middle tier as an OData service, signed in as `user`.
    func service(_ endpoint: String, user: String) -> ODataService {
        ODataService(
            configuration: .init(
                serviceURL: root(endpoint), http: HTTPClient.Configuration(timeout: .seconds(60), retry: .never),
                auth: [BasicAuth(user: user, password: Self.users[user]!)]))
    }

    /// An offline store of `user`'s, on the middle tier, open.
    func store(
        _ endpoint: String, user: String, queries: [OfflineDefiningQuery], key: StoreKey = .random(),
        prebuilt: Bool = false
    ) async throws -> OfflineStore {
        let store = OfflineStore(
            configuration: .init(
                service: service(endpoint, user: user),
                path: folder.appendingPathComponent("\(user)-\(UUID()).store").path, definingQueries: queries,
                key: key, usesMiddleTier: prebuilt))
        try await store.open()
        return store
    }

    /// Requests the middle tier sent to the back-end whose request line starts with `prefix` (`GET /odata/Categories`).
    func backendRequests(_ prefix: String) -> [String] {
        proxy.requestHeads.filter { $0.hasPrefix(prefix) }
    }

    /// A raw request to the middle tier as `user`.
    func send(
        _ method: HTTPClient.Method, _ endpoint: String, _ target: String, user: String,
        headers: HTTPClient.Headers = [:], body: Data? = nil
    ) async throws -> HTTPClient.Response {
        let client = HTTPClient(
            configuration: HTTPClient.Configuration(timeout: .seconds(60), retry: .never),
            auth: [BasicAuth(user: user, password: Self.users[user]!)])
        var request = HTTPClient.Request(
            method, url: URL(string: root(endpoint).absoluteString + target)!, headers: headers,
            body: body.map { .data($0, contentType: "application/json") })
        request.validatesStatus = false
        return try await client.send(request)
    }
}
