import Crypto
import Foundation
import SatchelHTTP
import SatchelOData
import SatchelRepository
import Synchronization

/// One endpoint's connections to its back-end: the service account's (shared data), each user's (their own data
/// and their uploads), the back-end's version and metadata, and the refreshes in flight.
final class OfflineEndpoint: Sendable {
    let configuration: OfflineApplicationConfiguration.Endpoint
    let transport: any HTTPTransport
    let timeout: Duration
    private let shared: OfflineBackend?
    private let users = Mutex<[String: (passwordHash: Data, backend: OfflineBackend)]>([:])
    private let facts = Mutex<(version: ODataVersion?, metadata: ODataMetadata?, honoursRepeatability: Bool)>(
        (nil, nil, false))
    /// When the ledger's expired entries were last removed.
    let lastLedgerSweep = Mutex<Date?>(nil)
    /// Refreshes in flight, one per defining query and scope: concurrent readers share one back-end read.
    let refreshes = Mutex<[OfflineQueryID: Task<Void, any Error>]>([:])

    init(configuration: OfflineApplicationConfiguration.Endpoint, transport: any HTTPTransport, timeout: Duration) {
        self.configuration = configuration
        self.transport = transport
        self.timeout = timeout
        shared = configuration.serviceAccount.map {
            OfflineBackend(configuration, user: $0.user, password: $0.password, transport: transport, timeout: timeout)
        }
    }

    /// The service account's connection (shared data), if the endpoint has one.
    var serviceAccount: OfflineBackend? { shared }

    /// `user`'s own connection, made with the password they signed in with. A user signed in without a password
    /// (a session cookie or a token) uses the connection their last password made, if any.
    func backend(user: String, password: String?) throws(OfflineTierFailure) -> OfflineBackend {
        let hash = password.map { Data(SHA256.hash(data: Data(($0 + "\u{0}" + user).utf8))) }
        let endpoint = configuration
        let transport = transport
        let timeout = timeout
        let found: OfflineBackend? = users.withLock { users in
            if let known = users[user], hash == nil || known.passwordHash == hash { return known.backend }
            guard let password, let hash else { return nil }
            let backend = OfflineBackend(
                endpoint, user: user, password: password, transport: transport, timeout: timeout)
            users[user] = (hash, backend)
            return backend
        }
        guard let found else {
            throw OfflineTierFailure(
                401, code: "satchel.credentialsNeeded",
                "endpoint \(configuration.name) passes each user's own credentials to its back-end: sign in with a"
                    + " user name and password (Basic)")
        }
        return found
    }

    /// The connection that reads `query`: the service account's for shared data, else the user's own.
    func backend(
        for query: OfflineApplicationConfiguration.DefiningQuery, user: String, password: String?
    ) throws(OfflineTierFailure) -> OfflineBackend {
        guard query.isShared else { return try backend(user: user, password: password) }
        guard let shared else {
            throw OfflineTierFailure(
                500, code: "satchel.noServiceAccount",
                "\(query.name) of endpoint \(configuration.name) is shared data, which needs a service account")
        }
        return shared
    }

    /// The back-end's version, read once.
    func version(using backend: OfflineBackend) async throws -> ODataVersion {
        if let known = facts.withLock({ $0.version }) { return known }
        let version = try await backend.service.version()
        facts.withLock { $0.version = version }
        return version
    }

    /// The back-end's metadata, read once.
    func metadata(using backend: OfflineBackend) async throws -> ODataMetadata {
        if let known = facts.withLock({ $0.metadata }) { return known }
        let metadata = try await backend.service.metadata()
        facts.withLock { $0.metadata = metadata }
        return metadata
    }

    /// Whether the back-end answered a request with `Repeatability-Result`: then it recognises a request sent again.
    var honoursRepeatability: Bool {
        get { facts.withLock { $0.honoursRepeatability } }
        set { facts.withLock { $0.honoursRepeatability = newValue } }
    }
}

/// The back-end as one user (or the service account) reaches it: an HTTP client that never sends a request twice
/// on its own (uploads are the ledger's business), and an OData service for reads.
struct OfflineBackend: Sendable {
    let client: HTTPClient
    let service: ODataService
    let serviceURL: URL

    init(
        _ endpoint: OfflineApplicationConfiguration.Endpoint, user: String, password: String,
        transport: any HTTPTransport, timeout: Duration
    ) {
        var auth: [any HTTPAuthProvider] = [BasicAuth(user: user, password: password)]
        if endpoint.csrf { auth.append(CSRFTokenAuth()) }
        var http = HTTPClient.Configuration()
        http.timeout = timeout
        var once = http
        once.retry = .never
        client = HTTPClient(configuration: once, transport: transport, auth: auth)
        var configuration = ODataService.Configuration(serviceURL: endpoint.backendURL)
        configuration.sapClient = endpoint.sapClient
        configuration.http = http
        configuration.auth = auth
        service = ODataService(configuration: configuration, transport: transport)
        serviceURL = endpoint.backendURL
    }

    /// The back-end URL of `target` (a path and query under the service root), with `sap-client` when configured.
    func url(_ target: String, sapClient: String?) -> URL {
        var text = serviceURL.absoluteString
        if !text.hasSuffix("/") { text += "/" }
        text += target
        if let sapClient, !target.contains("sap-client=") {
            text += (target.contains("?") ? "&" : "?") + "sap-client=" + sapClient
        }
        return URL(string: text) ?? serviceURL
    }
}

/// A request the middle tier refuses, with the status and OData error code it answers.
struct OfflineTierFailure: Error, Sendable {
    var status: Int
    var code: String
    var message: String
    var inner: OfflineLedgerAnswerText?

    init(_ status: Int, code: String, _ message: String, inner: OfflineLedgerAnswerText? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.inner = inner
    }
}
