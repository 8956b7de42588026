public import Foundation
public import Logging
public import SatchelGateway
public import SatchelObjectStore
public import SatchelOfflineServer

/// Everything `satchel serve` needs to start: where to listen, where data lives, who may log in, which store.
///
/// ```swift
/// var configuration = ServerConfiguration(dataDirectory: URL(fileURLWithPath: "satchel-data"))
/// configuration.port = 0            // pick a free port (tests)
/// configuration.store = .memory
/// let running = try await SatchelServerApp(configuration: configuration).start()
/// print(running.port)
/// ```
public struct ServerConfiguration: Sendable {
    /// Where the metadata lives.
    public enum Store: Sendable, Hashable {
        /// An SQLite database file.
        case sqlite(path: String)
        /// In memory: everything is gone when the server stops (tests, demos).
        case memory
        /// A PostgreSQL database (`postgres://user:password@host/db`).
        case postgres(url: String)
    }

    /// Where content blobs live.
    public enum Blobs: Sendable {
        /// Files under the data folder (``blobDirectory``): one server process's own.
        case dataFolder
        /// Objects in an S3-compatible bucket (`--blobs s3://…`), which several server processes share; scratch
        /// files stay in the data folder.
        case s3(S3BlobBackend.Configuration)
    }

    /// The address to listen on.
    public var host: String
    /// The port to listen on; 0 lets the system pick one (see ``RunningServer/port``).
    public var port: Int
    /// The data folder: blobs, the default users file and the default SQLite database.
    public var dataDirectory: URL
    /// The users file; nil uses `<data>/users.json`, creating it with a `demo` user when it does not exist.
    public var usersFile: URL?
    /// Where the metadata lives: by default SQLite in `<data>/satchel.sqlite`.
    public var store: Store
    /// Where content blobs live: under the data folder unless set.
    public var blobs: Blobs = .dataFolder
    /// When a change needs the XSRF token (`.standard` by default).
    public var xsrfPolicy: XSRFPolicy
    /// Limits on what one request may carry.
    public var limits: RequestLimits
    /// Leave the two CMIS 1.1 new-type capability elements out of AtomPub repository info (cmislib 0.7.0).
    public var omitNewTypeCapabilities: Bool
    /// How long a verified Basic credential is trusted before the password is hashed again.
    public var credentialCacheTTL: Duration
    /// How failed logins are slowed down, per user name and per client address.
    public var loginThrottling: LoginThrottling
    /// Draw a new XSRF secret at start (`satchel serve --new-xsrf-secret`): every XSRF token given before, by any
    /// server sharing the store, is refused from then on (after a token leaked). Off: the stored secret is kept.
    public var newXSRFSecret = false
    /// Proxies whose `X-Forwarded-*` headers are believed (none by default).
    public var trustedProxies: TrustedProxies
    /// Idle, header and body timeouts, and connections per address.
    public var connectionLimits: ConnectionLimits
    /// The level of the server's own log (the access log is `.info`).
    public var logLevel: Logger.Level
    /// Back-end CMIS repositories served beside the local ones (`satchel serve --gateway FILE`).
    public var gateway: GatewayConfiguration?
    /// HTTPS instead of plain HTTP (`--tls-cert`, `--tls-key`).
    public var tls: TLSFiles?
    /// Offline applications served by the middle tier under `/offline/` (`satchel serve --offline FILE.ini`).
    public var offline: [OfflineApplicationConfiguration] = []
    /// The middle tier's page size, timeouts and upload limit.
    public var offlineLimits = OfflineTierLimits()

    /// A configuration listening on 127.0.0.1:8080 by default. A nil `store` is SQLite in
    /// `<dataDirectory>/satchel.sqlite`; the gateway, TLS and offline applications are off until set.
    public init(
        host: String = "127.0.0.1", port: Int = 8080, dataDirectory: URL, usersFile: URL? = nil,
        store: Store? = nil, xsrfPolicy: XSRFPolicy = .standard, limits: RequestLimits = .init(),
        omitNewTypeCapabilities: Bool = true, credentialCacheTTL: Duration = .seconds(60),
        loginThrottling: LoginThrottling = LoginThrottling(), trustedProxies: TrustedProxies = TrustedProxies(),
        connectionLimits: ConnectionLimits = ConnectionLimits(), logLevel: Logger.Level = .info,
        gateway: GatewayConfiguration? = nil
    ) {
        self.host = host
        self.port = port
        self.dataDirectory = dataDirectory
        self.usersFile = usersFile
        self.store = store ?? .sqlite(path: dataDirectory.appendingPathComponent("satchel.sqlite").path)
        self.xsrfPolicy = xsrfPolicy
        self.limits = limits
        self.omitNewTypeCapabilities = omitNewTypeCapabilities
        self.credentialCacheTTL = credentialCacheTTL
        self.loginThrottling = loginThrottling
        self.trustedProxies = trustedProxies
        self.connectionLimits = connectionLimits
        self.logLevel = logLevel
        self.gateway = gateway
    }

    /// The grace ``blobRemovalGrace`` gives, when set (`satchel serve --blob-grace SECONDS`): longer than the
    /// longest upload any server process sharing the blobs may be receiving.
    public var blobGrace: Duration?

    /// How long an unreferenced blob is spared (`RepositoryConfiguration/blobRemovalGrace`): ``blobGrace`` when
    /// set; otherwise none when this
    /// process alone uses the data folder; ten minutes on PostgreSQL or with blobs in a bucket, which several server
    /// processes may share.
    public var blobRemovalGrace: Duration {
        if let blobGrace { return blobGrace }
        if case .postgres = store { return .seconds(600) }
        if case .s3 = blobs { return .seconds(600) }
        return .zero
    }

    /// Whether this server process is the only one writing its store: SQLite (the data folder is locked) and
    /// memory; not PostgreSQL, which several processes may share.
    public var storeHasOneWriter: Bool {
        if case .postgres = store { return false }
        return true
    }

    /// The users file in use.
    public var effectiveUsersFile: URL { usersFile ?? dataDirectory.appendingPathComponent("users.json") }
    /// The blob store folder (of ``Blobs/dataFolder``; with blobs in a bucket, its `tmp` folder holds the scratch
    /// files). Metadata in memory is gone when the server stops, and so is what its blobs are for:
    /// they go in a folder of their own, never beside (and never collected with) a durable store's.
    public var blobDirectory: URL {
        if case .memory = store { return dataDirectory.appendingPathComponent("memory-blobs", isDirectory: true) }
        return dataDirectory.appendingPathComponent("blobs", isDirectory: true)
    }
}

/// A server that could not start: what it was doing and why.
public struct ServerError: Error, Sendable, CustomStringConvertible {
    /// What the server was doing and why it failed, for a person.
    public var message: String
    /// An error saying `message`.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}

/// The PEM files of `satchel serve` over TLS.
public struct TLSFiles: Sendable, Hashable {
    /// The server's certificate chain, its own certificate first.
    public var certificateChain: URL
    /// The certificate's private key: readable by its owner only.
    public var privateKey: URL
    /// When set, every client must present a certificate signed by one of these authorities.
    public var clientCertificateAuthorities: URL?

    /// The PEM files; without `clientCertificateAuthorities`, clients need no certificate.
    public init(certificateChain: URL, privateKey: URL, clientCertificateAuthorities: URL? = nil) {
        self.certificateChain = certificateChain
        self.privateKey = privateKey
        self.clientCertificateAuthorities = clientCertificateAuthorities
    }
}
