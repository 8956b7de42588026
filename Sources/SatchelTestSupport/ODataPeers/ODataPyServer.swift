public import Foundation
import SatchelHTTP
import SatchelJSON

/// The odatapy (5.3.0) in-memory reference service on 127.0.0.1 on a free port, serving the committed model
/// `Tests/Peers/odata_v4_service.xml` with seeded data through `Tests/Peers/odata_v4_service.py`: OData V4 with
/// server-driven paging, change tracking, media entities, ETags, actions and functions, `$batch` in both formats.
///
/// ```swift
/// let peer = try await ODataPyServer.start()
/// let url = peer.serviceURL   // http://127.0.0.1:41234/odata
/// …
/// peer.stop()
/// ```
public final class ODataPyServer: Sendable {
    private let peer: PeerProcess
    /// The maximum page size the service pages collections with.
    public let maxPageSize: Int

    /// Whether it serves HTTPS.
    public let isTLS: Bool

    private init(peer: PeerProcess, maxPageSize: Int, isTLS: Bool) {
        self.peer = peer
        self.maxPageSize = maxPageSize
        self.isTLS = isTLS
    }

    /// Starts the service and waits (at most `timeout`) until `$metadata` answers.
    ///
    /// - Parameters:
    ///   - maxPageSize: the server's page size for collections (`--page-size`).
    ///   - repeatable: honour `Repeatability-Request-ID` (OASIS Repeatable Requests; `GET /_repeatability` counts
    ///     applied and replayed requests).
    ///   - script: the service script; the committed `Tests/Peers/odata_v4_service.py` by default.
    ///   - tls: a certificate chain and its key (PEM): the service speaks HTTPS (TLS 1.2 and up), and its links
    ///     say `https`.
    ///   - model: a CSDL document served instead of the committed model (a service whose model changed), over
    ///     the same seeded data.
    /// - Throws: ``PeerError`` when the virtual environment is missing (run `scripts/test`), or the script
    ///   exits or does not answer in time (its standard error is in the message).
    public static func start(
        maxPageSize: Int = 20, repeatable: Bool = false, script: URL? = nil,
        tls: (certificate: URL, key: URL)? = nil, model: URL? = nil, timeout: Duration = .seconds(20)
    )
        async throws -> ODataPyServer
    {
        let script = script ?? Peers.scriptsFolder.appendingPathComponent("odata_v4_service.py")
        guard FileManager.default.fileExists(atPath: script.path) else {
            throw PeerError(message: "the odatapy service script is missing: \(script.path)")
        }
        let path = script.path
        let tlsArguments = tls.map { ["--tls-cert", $0.certificate.path, "--tls-key", $0.key.path] } ?? []
        let scheme = tls == nil ? "http" : "https"
        let peer = try await PeerProcess.start(
            name: "odatapy",
            body: "import runpy\nsys.argv[0] = \(pythonString(path))\nrunpy.run_path(sys.argv[0], run_name='__main__')",
            arguments: { port in
                ["--port", String(port), "--page-size", String(maxPageSize)] + (repeatable ? ["--repeatable"] : [])
                    + tlsArguments + (model.map { ["--model", $0.path] } ?? [])
            },
            // A plain probe cannot ask an HTTPS service: its banner, printed once it listens, says it is ready.
            readyPath: tls == nil ? "/odata/$metadata" : nil,
            banner: { "odata_v4_service: \(scheme)://127.0.0.1:\($0)/odata" }, timeout: timeout)
        return ODataPyServer(peer: peer, maxPageSize: maxPageSize, isTLS: tls != nil)
    }

    /// The TCP port on 127.0.0.1.
    public var port: Int { peer.port }

    /// `http://127.0.0.1:<port>` (`https` with TLS; no trailing slash).
    public var baseURL: URL { URL(string: "\(isTLS ? "https" : "http")://127.0.0.1:\(peer.port)")! }

    /// The service root: `<baseURL>/odata`.
    public var serviceURL: URL { baseURL.appendingPathComponent("odata") }

    /// Whether the process still runs.
    public var isRunning: Bool { peer.isRunning }

    /// What the service printed on standard error so far (its last 4 KB).
    public var output: String { peer.output }

    /// With `repeatable`: how many modifying requests the service applied, and how many repeats of one it answered
    /// from what it kept instead (`GET /_repeatability`).
    public func repeatability() async throws -> (applied: Int, replayed: Int) {
        let response = try await HTTPClient(configuration: .init()).send(
            HTTPClient.Request(.get, url: baseURL.appendingPathComponent("_repeatability")))
        let counts = try JSONValue(parsing: response.body)
        guard response.status == 200, let applied = counts["applied"]?.int64Value,
            let replayed = counts["replayed"]?.int64Value
        else {
            throw PeerError(
                message: "odata_v4_service.py answered no repeatability counts (started without repeatable?)")
        }
        return (Int(applied), Int(replayed))
    }

    /// Stops the service (lifeline, SIGTERM, SIGKILL). Safe to call more than once; also done on deinit.
    public func stop() { peer.stop() }

    private static func pythonString(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'") + "'"
    }
}
