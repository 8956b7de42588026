public import Foundation

/// `mock-sap` (0.22.0, from the peers' virtual environment) on 127.0.0.1 on a free port: SAP Gateway style OData
/// V2 services under `/sap/opu/odata/sap/<SERVICE>/` and V4 services under `/sap/opu/odata4/sap/...`, with CSRF,
/// ETags, deep insert, delta tokens and fault injection.
///
/// ```swift
/// let sap = try await MockSAPServer.start(.init(csrf: false))
/// let url = sap.serviceURL("API_BUSINESS_PARTNER_SRV")   // http://127.0.0.1:41234/sap/opu/odata/sap/API_B…
/// …
/// sap.stop()
/// ```
public final class MockSAPServer: Sendable {
    /// How to run the mock.
    public struct Options: Sendable {
        /// Require an `X-CSRF-Token` on modifying requests (`--no-csrf` when false).
        public var csrf: Bool
        /// Require HTTP basic authentication with this user and password (`--auth U:P`).
        public var basicAuth: (user: String, password: String)?
        /// Pin the system time (`--clock YYYY-MM-DDTHH:MM`).
        public var clock: String?
        /// Delay added to every request, in milliseconds (`--latency-ms`).
        public var latencyMilliseconds: Int?
        /// Fraction of requests answered with a 500, 0.0–1.0 (`--error-rate`).
        public var errorRate: Double?
        /// The SAP client (`--client`, default 100).
        public var client: String?
        /// Seed of the generated demo data (`--seed`, default 42).
        public var seed: Int?
        /// Refuse modifications of concurrency-controlled entities without `If-Match` (428).
        public var requireIfMatch: Bool
        /// More command-line arguments, passed as they are.
        public var extraArguments: [String]

        /// Creates options; the defaults are mock-sap's own (CSRF on, no auth, real time, no faults).
        public init(
            csrf: Bool = true, basicAuth: (user: String, password: String)? = nil, clock: String? = nil,
            latencyMilliseconds: Int? = nil, errorRate: Double? = nil, client: String? = nil, seed: Int? = nil,
            requireIfMatch: Bool = false, extraArguments: [String] = []
        ) {
            self.csrf = csrf
            self.basicAuth = basicAuth
            self.clock = clock
            self.latencyMilliseconds = latencyMilliseconds
            self.errorRate = errorRate
            self.client = client
            self.seed = seed
            self.requireIfMatch = requireIfMatch
            self.extraArguments = extraArguments
        }

        var arguments: [String] {
            var arguments = ["-q"]
            if !csrf { arguments.append("--no-csrf") }
            if let basicAuth { arguments += ["--auth", "\(basicAuth.user):\(basicAuth.password)"] }
            if let clock { arguments += ["--clock", clock] }
            if let latencyMilliseconds { arguments += ["--latency-ms", String(latencyMilliseconds)] }
            if let errorRate { arguments += ["--error-rate", String(errorRate)] }
            if let client { arguments += ["--client", client] }
            if let seed { arguments += ["--seed", String(seed)] }
            if requireIfMatch { arguments.append("--require-if-match") }
            return arguments + extraArguments
        }
    }

    private let peer: PeerProcess
    /// The options the mock runs with.
    public let options: Options

    private init(peer: PeerProcess, options: Options) {
        self.peer = peer
        self.options = options
    }

    /// Starts mock-sap and waits (at most `timeout`) until it answers HTTP.
    ///
    /// - Throws: ``PeerError`` when the virtual environment is missing (run `scripts/test`), or the mock
    ///   exits or does not answer in time (its standard error is in the message).
    public static func start(
        _ options: Options = Options(), timeout: Duration = .seconds(20)
    ) async throws
        -> MockSAPServer
    {
        let arguments = options.arguments
        let peer = try await PeerProcess.start(
            name: "mock-sap",
            body: "from mocksap.__main__ import main\nsys.exit(main(sys.argv[1:]))",
            arguments: { port in ["--host", "127.0.0.1", "--port", String(port)] + arguments },
            readyPath: "/_mock/health", banner: { "listening on http://127.0.0.1:\($0) " }, timeout: timeout)
        return MockSAPServer(peer: peer, options: options)
    }

    /// The TCP port on 127.0.0.1.
    public var port: Int { peer.port }

    /// `http://127.0.0.1:<port>` (no trailing slash).
    public var baseURL: URL { URL(string: "http://127.0.0.1:\(peer.port)")! }

    /// A V2 service's root: `<baseURL>/sap/opu/odata/<namespace>/<name>` (`sap/API_BUSINESS_PARTNER_SRV`,
    /// `IWBEP/GWSAMPLE_BASIC`).
    public func serviceURL(_ name: String, namespace: String = "sap") -> URL {
        URL(string: "\(baseURL.absoluteString)/sap/opu/odata/\(namespace)/\(name)")!
    }

    /// A V4 service's root: `<baseURL>/sap/opu/odata4/sap/<name>/<group>/sap/<name>/<version>`
    /// (`api_salesorder` → `…/odata4/sap/api_salesorder/srvd_a2x/sap/api_salesorder/0001`).
    public func v4ServiceURL(_ name: String, group: String = "srvd_a2x", version: String = "0001") -> URL {
        URL(string: "\(baseURL.absoluteString)/sap/opu/odata4/sap/\(name)/\(group)/sap/\(name)/\(version)")!
    }

    /// Whether the process still runs.
    public var isRunning: Bool { peer.isRunning }

    /// What the mock printed on standard error so far (its last 4 KB).
    public var output: String { peer.output }

    /// Stops the mock (lifeline, SIGTERM, SIGKILL). Safe to call more than once; also done on deinit.
    public func stop() { peer.stop() }
}
