public import Foundation
public import Logging
public import SatchelHTTP
public import SatchelOffline
import SatchelOData
public import SatchelRepository

/// The offline middle tier (docs/offline-server.md): for each `[endpoint]` of its application configuration files,
/// an OData service root that stands in front of the back-end. Reads of defining queries are answered from the row
/// state in the server's store (refreshed from the back-end per `refresh_interval`, shared data with the service
/// account, a user's own with theirs), with delta links the middle tier answers itself; changes go to the back-end
/// through the upload ledger, so a retried upload is never applied twice; anything else is passed to the back-end
/// with the user's credentials.
///
/// ```swift
/// let tier = try OfflineTier(applications: [try OfflineApplicationConfiguration(contentsOf: "app.ini")], store: store)
/// let answer = await tier.handle(
///     endpoint: "products",
///     OfflineTierRequest(
///         method: "GET", path: "Products", user: "ada", password: "…", root: "https://host/offline/products/"))
/// ```
///
/// The HTTP server (`satchel serve --offline FILE.ini`) authenticates the caller and passes requests under
/// `/offline/{endpoint}/` here.
public final class OfflineTier: Sendable {
    /// The store that keeps row state and the upload ledger.
    public typealias Store = OfflineTierStore & OfflineUploadLedger

    /// The application configurations served, in the order given; their endpoint names are unique across them.
    public let applications: [OfflineApplicationConfiguration]
    let endpoints: [String: OfflineEndpoint]
    let store: any Store
    /// The page size, timeouts and size limits the tier applies.
    public let limits: OfflineTierLimits
    let logger: Logger
    /// The time the middle tier goes by (tests move it to pass a refresh interval).
    let clock: @Sendable () -> Date
    /// Prebuilt stores: their folder, the templates of shared data, the builds running.
    let builds: OfflineBuilds

    /// A middle tier for `applications`. Prebuilt stores are built in a folder of this process's own under
    /// `directory` (without one, under the temporary directory's `satchel-offline`); folders there whose process is
    /// gone are removed (their files cannot be opened without the keys that went with it).
    public init(
        applications: [OfflineApplicationConfiguration], store: any Store,
        transport: any HTTPTransport = HTTPClient.defaultTransport(), limits: OfflineTierLimits = OfflineTierLimits(),
        directory: URL? = nil, logger: Logger = Logger(label: "satchel.offline"),
        clock: @escaping @Sendable () -> Date = { Date() }
    ) throws(OfflineConfigurationError) {
        var endpoints: [String: OfflineEndpoint] = [:]
        var files: [String: String] = [:]
        for application in applications {
            for endpoint in application.endpoints {
                if let other = files[endpoint.name] {
                    throw OfflineConfigurationError(
                        file: application.file, line: endpoint.line,
                        "endpoint \(endpoint.name) is also defined in \(other)")
                }
                files[endpoint.name] = application.file
                endpoints[endpoint.name] = OfflineEndpoint(
                    configuration: endpoint, transport: transport, timeout: limits.backendTimeout)
            }
        }
        self.applications = applications
        self.endpoints = endpoints
        self.store = store
        self.limits = limits
        self.logger = logger
        self.clock = clock
        builds = OfflineBuilds(
            parent: directory
                ?? FileManager.default.temporaryDirectory.appendingPathComponent("satchel-offline", isDirectory: true),
            maxConcurrent: limits.maxConcurrentBuilds)
    }

    /// The endpoints served, in file order.
    public var endpointNames: [String] { applications.flatMap { $0.endpoints.map(\.name) } }

    /// Answers `request` to `endpoint`. Never throws: every failure is an OData error in the back-end's version.
    public func handle(endpoint name: String, _ request: OfflineTierRequest) async -> OfflineTierResponse {
        guard let endpoint = endpoints[name] else {
            return .error(
                404, code: "satchel.noSuchEndpoint",
                "no offline endpoint \(name); served: \(endpointNames.joined(separator: ", "))", version: .v4)
        }
        var version = ODataVersion.v4
        // Everything under the endpoint stays under its back-end service: no `..` segment, encoded or not.
        let segments = request.path.split(separator: "/").map { $0.removingPercentEncoding ?? String($0) }
        if segments.contains(where: { $0 == ".." || $0 == "." || $0.contains("/") || $0.contains("\\") }) {
            return .error(
                400, code: "satchel.invalidPath", "\(request.path) leaves the endpoint's service", version: version)
        }
        do {
            let backend =
                try endpoint.serviceAccount ?? endpoint.backend(user: request.user, password: request.password)
            version = try await endpoint.version(using: backend)
            if request.path == OfflineStore.prebuiltResource {
                return try await prebuiltStore(request, endpoint: endpoint, version: version)
            }
            switch request.method {
            case "GET", "HEAD":
                return try await read(request, endpoint: endpoint, version: version)
            case "POST", "PUT", "PATCH", "MERGE", "DELETE":
                if request.path == "$batch" {
                    return try await batch(request, endpoint: endpoint, version: version)
                }
                return try await upload(request, endpoint: endpoint, version: version)
            default:
                return .error(
                    405, code: "satchel.methodNotAllowed", "\(request.method) is not an OData request", version: version
                )
            }
        } catch let failure as OfflineTierFailure {
            return .error(failure.status, code: failure.code, failure.message, version: version, inner: failure.inner)
        } catch let error as OfflineStoreError {
            logger.error(
                "offline endpoint \(name): its store refused",
                metadata: ["user": "\(request.user)", "path": "\(request.path)", "error": "\(error)"])
            return .error(
                error.code == .busy ? 503 : 500, code: "satchel.offlineStore",
                "the store of \(name) refused: \(error.message)", version: version)
        } catch let error as ODataError {
            logger.warning(
                "offline endpoint \(name): the back-end failed",
                metadata: ["user": "\(request.user)", "path": "\(request.path)", "error": "\(error)"])
            let status = error.status.map { (400..<600).contains($0) ? $0 : 502 } ?? 502
            return .error(
                status, code: "satchel.backend", "the back-end of \(name) failed: \(error.message)", version: version)
        } catch {
            logger.error(
                "offline endpoint \(name) failed",
                metadata: ["user": "\(request.user)", "path": "\(request.path)", "error": "\(error)"])
            return .error(500, code: "satchel.internal", "offline endpoint \(name) failed: \(error)", version: version)
        }
    }
}

/// What the middle tier accepts and how long it waits.
public struct OfflineTierLimits: Sendable {
    /// Entities per page of a defining query's read (a client may ask for fewer with `Prefer: odata.maxpagesize`).
    public var pageSize: Int
    /// The longest a back-end request may take.
    public var backendTimeout: Duration
    /// The largest request body forwarded (an upload, a `$batch`).
    public var maxUploadBytes: Int
    /// The largest back-end answer passed through.
    public var maxPassThroughBytes: Int
    /// Prebuilt stores built at once, across users (each user has one at a time).
    public var maxConcurrentBuilds: Int
    /// How long a prebuilt store's request waits for its turn (one build per user, ``maxConcurrentBuilds`` in all)
    /// before it is answered 503.
    public var buildWait: Duration
    /// The largest prebuilt store answered (413 beyond: the client downloads instead).
    public var maxStoreBytes: Int
    /// Whether a prebuilt store (which travels with its key) may be answered over plain HTTP: only for a server
    /// that listens on loopback alone. Otherwise only over HTTPS (directly, or behind a trusted proxy that says so).
    public var allowsPlainTransfer: Bool

    /// Limits whose defaults are: pages of 1,000 entities, back-end requests of 60 seconds, uploads of 64 MiB,
    /// back-end answers passed through of 256 MiB, as many concurrent builds as half the processors (at least one), a
    /// wait of 120 seconds for a build, stores of 4 GiB, and no prebuilt store over plain HTTP.
    public init(
        pageSize: Int = 1000, backendTimeout: Duration = .seconds(60), maxUploadBytes: Int = 64 << 20,
        maxPassThroughBytes: Int = 256 << 20,
        maxConcurrentBuilds: Int = max(1, ProcessInfo.processInfo.activeProcessorCount / 2),
        buildWait: Duration = .seconds(120), maxStoreBytes: Int = 4 << 30, allowsPlainTransfer: Bool = false
    ) {
        self.pageSize = pageSize
        self.backendTimeout = backendTimeout
        self.maxUploadBytes = maxUploadBytes
        self.maxPassThroughBytes = maxPassThroughBytes
        self.maxConcurrentBuilds = maxConcurrentBuilds
        self.buildWait = buildWait
        self.maxStoreBytes = maxStoreBytes
        self.allowsPlainTransfer = allowsPlainTransfer
    }
}
