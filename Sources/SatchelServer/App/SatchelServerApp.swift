public import Foundation
public import Hummingbird
import HummingbirdCore
import HummingbirdTLS
public import Logging
import SatchelGateway
import SatchelObjectStore
import SatchelOfflineServer
import SatchelRepository
import ServiceLifecycle
import Synchronization
import UnixSignals

/// The `satchel serve` application: users, the repository engine, and the CMIS bindings over HTTP.
///
/// ```swift
/// let app = SatchelServerApp(configuration: configuration)
/// let running = try await app.start()      // tests: port 0, then running.port
/// defer { Task { await running.shutdown() } }
/// try await app.run { running in print(running.baseURL) }   // the CLI: until SIGINT/SIGTERM
/// ```
public struct SatchelServerApp: Sendable {
    /// Where to listen, where data lives, who may sign in, which store.
    public var configuration: ServerConfiguration
    /// The routes mounted besides health, discovery and login: by default the Browser binding, AtomPub and the Nuxeo
    /// API.
    public var bindings: [any ServerBindingRoutes]
    /// Makes the local CMIS service over the opened stores (by default the repository engine, bootstrapped). With a
    /// gateway configuration, the server serves it beside the mounts (`GatewayRepositories`).
    public var makeService: ServiceFactory
    /// The server's own log (`satchel.server`).
    public var logger: Logger

    /// An application for `configuration`; nothing is opened until `start()` or `run(onStarted:)`. Without a `logger`,
    /// one labelled `satchel.server` at the configuration's log level.
    public init(
        configuration: ServerConfiguration, bindings: [any ServerBindingRoutes] = SatchelServerApp.defaultBindings,
        makeService: ServiceFactory? = nil, logger: Logger? = nil
    ) {
        self.configuration = configuration
        self.bindings = bindings
        self.makeService = makeService ?? SatchelServerApp.defaultServiceFactory
        var log = logger ?? Logger(label: "satchel.server")
        if logger == nil { log.logLevel = configuration.logLevel }
        self.logger = log
    }

    /// Starts listening and returns once connections are accepted. Stop it with ``RunningServer/shutdown()``.
    public func start() async throws -> RunningServer {
        try await start(gracefulShutdownSignals: [])
    }

    /// Runs until SIGINT or SIGTERM, then shuts down gracefully (requests in flight finish).
    /// `onStarted` runs once the server listens (print the URLs there).
    public func run(onStarted: @Sendable (RunningServer) -> Void = { _ in }) async throws {
        let running = try await start(gracefulShutdownSignals: [.sigint, .sigterm])
        onStarted(running)
        try await running.waitUntilStopped()
    }

    func start(gracefulShutdownSignals: [UnixSignal]) async throws -> RunningServer {
        let prepared = try await prepare()
        let router = buildRouter(environment: prepared.environment, authenticator: prepared.authenticator)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        let limits = configuration.connectionLimits
        let counter = ConnectionCounter()
        let proxies = configuration.trustedProxies
        let maximumBodyBytes = configuration.limits.maxContentBytes + Int64(configuration.limits.maxMetadataBytes)
        var server: HTTPServerBuilder = .http1(
            configuration: .init(
                additionalChannelHandlers: [
                    ConnectionGuard(
                        limits: limits, counter: counter, proxies: proxies, maximumBodyBytes: maximumBodyBytes)
                ],
                idleTimeout: ConnectionGuard.timeAmount(limits.idleTimeout)))
        if let tls = configuration.tls {
            server = try .tls(server, tlsConfiguration: try tls.serverConfiguration())
        }
        let app = Application(
            responder: HeadRequestResponder(inner: router.buildResponder()),
            server: server,
            configuration: .init(
                address: .hostname(configuration.host, port: configuration.port), serverName: "Satchel"),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger)
        var services: [any Service] = [app]
        if let tier = prepared.environment.offlineTier { services.append(OfflineTemplateService(tier: tier)) }
        let group = ServiceGroup(
            configuration: .init(
                services: services, gracefulShutdownSignals: gracefulShutdownSignals, logger: logger))
        let store = prepared.store
        let authenticator = prepared.authenticator
        let lock = prepared.dataFolderLock
        let task = Task {
            defer {
                if let lock { close(lock) }
                authenticator.shutdown()
                LogSink.standardError.flush()
            }
            do {
                try await group.run()
            } catch {
                await StoreFactory.close(store)
                throw error
            }
            await StoreFactory.close(store)
        }
        let watcher = Task {
            _ = await task.result
            continuation.finish()
        }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            watcher.cancel()
            let result = await task.result
            if case .failure(let error) = result {
                throw ServerError(
                    "cannot listen on \(configuration.host):\(configuration.port): \(String(describing: error))")
            }
            throw ServerError("the server stopped before it listened on \(configuration.host):\(configuration.port)")
        }
        return RunningServer(
            host: configuration.host, port: port, isTLS: configuration.tls != nil,
            demoCredentials: prepared.demoCredentials, group: group, task: task)
    }

    struct Prepared {
        var store: any MetadataStore
        var environment: BindingEnvironment
        var authenticator: Authenticator
        var demoCredentials: (user: String, password: String)?
        var dataFolderLock: Int32?
    }

    func prepare() async throws -> Prepared {
        do {
            // Owner only: metadata, content and the users file are nobody else's business.
            try PrivateFiles.createFolder(configuration.dataDirectory)
        } catch {
            throw ServerError("cannot create the data folder \(configuration.dataDirectory.path): \(error)")
        }
        var lock: Int32?
        if configuration.storeHasOneWriter { lock = try Self.lockDataFolder(configuration.dataDirectory) }
        var prepared = false
        defer { if !prepared, let lock { close(lock) } }
        let (users, demo) = try loadUsers()
        let blobs = try await Self.openBlobs(configuration)
        let store = try await StoreFactory.open(configuration.store)
        let repositories: any CMISServiceResolver
        // Access tokens, and Nuxeo's locks and trash: in the metadata store, shared by every process using it.
        let tokens = AccessTokens(store: store)
        let marks = DocumentMarks(store: store)
        do {
            try await store.migrate()
            // What an earlier version kept in files beside the data moves into the store once.
            do {
                try await AccessTokens.importFile(
                    configuration.dataDirectory.appendingPathComponent("tokens.json"), into: store)
            } catch let error as AuthError {
                throw ServerError(error.message)
            }
            try await DocumentMarks.importFile(
                configuration.dataDirectory.appendingPathComponent("nuxeo-documents.json"), into: store)
            // Blobs no object refers to are what a crash during an upload leaves behind. Another server process
            // sharing a PostgreSQL store may be uploading right now: spare what is within the grace.
            let grace = configuration.blobRemovalGrace
            let collection = try await blobs.collectGarbage(
                keeping: { try await store.referencedContentHashes() },
                olderThan: grace > .zero ? Date().addingTimeInterval(-Double(grace.components.seconds)) : nil)
            if let refusal = collection.refusal { logger.warning("blob collection at start: \(refusal)") }
            for failure in collection.failures.prefix(10) {
                logger.warning("blob collection at start: a removal failed: \(failure)")
            }
            let local = try await makeService(store, blobs, configuration)
            if let gateway = configuration.gateway {
                repositories = GatewayRepositories(local: local, configuration: gateway, blobs: blobs, logger: logger)
            } else {
                repositories = SingleServiceResolver(local)
            }
        } catch {
            await StoreFactory.close(store)
            throw error
        }
        var environment = BindingEnvironment(
            repositories: repositories, blobs: blobs, limits: configuration.limits,
            xsrfPolicy: configuration.xsrfPolicy,
            omitNewTypeCapabilities: configuration.omitNewTypeCapabilities, documentMarks: marks)
        environment.readiness = Readiness.server(store: store, blobs: blobs)
        if let timed = store as? any TimedStore { environment.metrics.observe(store: timed.timings) }
        environment.metrics.observe(blobs: blobs.timings)
        if !configuration.offline.isEmpty {
            do {
                environment.offlineTier = try makeOfflineTier(store)
            } catch {
                await StoreFactory.close(store)
                throw error
            }
        }
        // The XSRF secret every process sharing the store shares: the first one's, or a new one when asked.
        var secret = Authenticator.proposedSecret()
        do {
            if configuration.newXSRFSecret {
                try await store.replaceSecret(name: Authenticator.xsrfSecretName, value: secret)
            } else {
                secret = try await store.sharedSecret(name: Authenticator.xsrfSecretName, proposed: secret)
            }
        } catch {
            await StoreFactory.close(store)
            throw ServerError("cannot read the XSRF secret from the store: \(error)")
        }
        let authenticator = Authenticator(
            users: users, basicCacheTTL: configuration.credentialCacheTTL, throttling: configuration.loginThrottling,
            tokens: tokens, sessions: store, secret: secret)
        prepared = true
        return Prepared(
            store: store, environment: environment, authenticator: authenticator, demoCredentials: demo,
            dataFolderLock: lock)
    }

    /// The offline middle tier over `store`, which keeps its row state and upload ledger.
    func makeOfflineTier(_ store: any MetadataStore) throws -> OfflineTier {
        guard let tierStore = store as? any OfflineTier.Store else {
            throw ServerError("--offline keeps its state in the server's store, and this store does not keep it")
        }
        do {
            // The server's level (its own logger's, when one was given).
            var offlineLogger = Logger(label: "satchel.offline")
            offlineLogger.logLevel = logger.logLevel
            var limits = configuration.offlineLimits
            // A prebuilt store travels with its key: over plain HTTP only when nobody else can listen.
            limits.allowsPlainTransfer =
                limits.allowsPlainTransfer || GatewayConfiguration.isLoopback(configuration.host)
            return try OfflineTier(
                applications: configuration.offline, store: tierStore, limits: limits,
                directory: configuration.dataDirectory.appendingPathComponent("offline-stores", isDirectory: true),
                logger: offlineLogger)
        } catch {
            throw ServerError("\(error)")
        }
    }

    /// The blob store the configuration names: the data folder's, or a bucket (checked to answer before the server
    /// starts, so a wrong endpoint, bucket or key stops it at once with the store's own answer).
    static func openBlobs(_ configuration: ServerConfiguration) async throws -> BlobStore {
        switch configuration.blobs {
        case .dataFolder:
            do {
                return try BlobStore(directory: configuration.blobDirectory)
            } catch {
                throw ServerError("cannot open the blob store: \(error)")
            }
        case .s3(let settings):
            // The start-up collection removes every blob the store does not refer to: metadata kept in memory
            // refers to nothing a shared bucket holds.
            if case .memory = configuration.store {
                throw ServerError(
                    "metadata in memory cannot be combined with blobs in a bucket: its start-up collection would "
                        + "remove what the bucket holds for others")
            }
            let backend = S3BlobBackend(settings)
            do {
                try await backend.checkBucket()
                return try BlobStore(
                    backend: backend,
                    scratchDirectory: configuration.blobDirectory.appendingPathComponent("tmp", isDirectory: true))
            } catch {
                throw ServerError("cannot open the blob store \(backend.location) at \(settings.endpoint): \(error)")
            }
        }
    }

    /// Locks `<data>/satchel.lock` until the returned descriptor is closed (when the server stops, or the process
    /// ends): one server per SQLite data folder, which is what lets it cache answers by its own changes
    /// (``ServerConfiguration/storeHasOneWriter``).
    static func lockDataFolder(_ folder: URL) throws -> Int32 {
        let path = folder.appendingPathComponent("satchel.lock").path
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw ServerError("cannot open \(path): \(String(cString: strerror(errno)))") }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            close(descriptor)
            throw ServerError("another satchel serve is using the data folder \(folder.path)")
        }
        return descriptor
    }

    /// The configured users file, or the data folder's, created with a `demo` user when there is none.
    func loadUsers() throws -> (UsersFile, (user: String, password: String)?) {
        let url = configuration.effectiveUsersFile
        if configuration.usersFile != nil || FileManager.default.fileExists(atPath: url.path) {
            let users = try UsersFile.load(from: url)
            guard !users.entries.isEmpty else { throw ServerError("the users file \(url.path) has no users") }
            return (users, nil)
        }
        var generator = SystemRandomNumberGenerator()
        let alphabet = Array("abcdefghijkmnopqrstuvwxyzABCDEFGHJKLMNPQRSTUVWXYZ23456789")
        let password = String((0..<20).map { _ in alphabet[Int.random(in: 0..<alphabet.count, using: &generator)] })
        // The only user is the one who can administer the shared repository.
        let users = UsersFile(entries: ["demo": try PasswordHash.make(password: password)], administrators: ["demo"])
        try users.save(to: url)
        return (users, ("demo", password))
    }

    /// The router with every route: health, discovery, login, and each binding.
    public func buildRouter(
        environment: BindingEnvironment, authenticator: Authenticator
    ) -> Router<ServerRequestContext> {
        let router = Router(context: ServerRequestContext.self)
        var accessLog = Logger(label: "satchel.access")
        accessLog.logLevel = logger.logLevel
        router.add(
            middleware: AuthMiddleware(
                authenticator: authenticator, proxies: configuration.trustedProxies,
                xsrfHeader: environment.xsrfHeader, isSecure: configuration.tls != nil, accessLog: accessLog,
                metrics: environment.metrics))
        ServiceRoutes.register(
            on: router, environment: environment, authenticator: authenticator, proxies: configuration.trustedProxies)
        for binding in bindings { binding.register(on: router, environment: environment) }
        if let tier = environment.offlineTier {
            OfflineTierRoutes.register(on: router, tier: tier, environment: environment)
        }
        return router
    }
}

/// A server that is listening.
public final class RunningServer: Sendable {
    /// The address the server listens on, as configured.
    public let host: String
    /// The port the server listens on (the one the system picked when the configuration said 0).
    public let port: Int
    /// The demo user created because there was no users file (its password is shown only now).
    public let demoCredentials: (user: String, password: String)?
    private let group: ServiceGroup
    private let task: Task<Void, any Error>

    init(
        host: String, port: Int, isTLS: Bool, demoCredentials: (user: String, password: String)?,
        group: ServiceGroup, task: Task<Void, any Error>
    ) {
        self.host = host
        self.port = port
        self.isTLS = isTLS
        self.demoCredentials = demoCredentials
        self.group = group
        self.task = task
    }

    /// Whether the server speaks HTTPS.
    public let isTLS: Bool

    /// `http://host:port`, or `https://` over TLS (IPv6 hosts in brackets; a wildcard address as 127.0.0.1).
    public var baseURL: URL {
        let shown = host == "0.0.0.0" || host == "::" ? "127.0.0.1" : host.contains(":") ? "[\(host)]" : host
        return URL(string: "\(isTLS ? "https" : "http")://\(shown):\(port)")!
    }

    /// Stops accepting connections, lets requests in flight finish, and returns when the server has stopped.
    public func shutdown() async {
        await group.triggerGracefulShutdown()
        _ = await task.result
    }

    /// Waits until the server stops (a signal or ``shutdown()``).
    public func waitUntilStopped() async throws {
        try await task.value
    }
}
