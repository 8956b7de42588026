public import Foundation

/// pyslet (0.7.20170805), an OData V2 server that answers in Atom XML by default, on 127.0.0.1 on a free port,
/// serving `Tests/Peers/pyslet_v2_service.py`'s in-memory shop (Products and Categories, linked): Atom feeds and
/// entries, Atom and JSON writes, `$inlinecount`, `$expand`, server-driven paging. It has no `$batch`.
///
/// ```swift
/// let peer = try await PysletServer.start(atomOnly: true)
/// let url = peer.serviceURL   // http://127.0.0.1:41234/shop
/// peer.stop()
/// ```
public final class PysletServer: Sendable {
    private let peer: PeerProcess

    private init(peer: PeerProcess) { self.peer = peer }

    /// Starts the service and waits (at most `timeout`) until `$metadata` answers.
    ///
    /// - Parameters:
    ///   - products: how many products are seeded.
    ///   - pageSize: the server's page size (`--page-size`; 0 pages nothing).
    ///   - atomOnly: the service offers no JSON: an `Accept` naming JSON is answered in Atom and JSON bodies are
    ///     refused with 415 (a Gateway service configured for XML only).
    /// - Throws: ``PeerError`` when the virtual environment or pyslet is missing (run `scripts/test`), or the script
    ///   exits or does not answer in time.
    public static func start(
        products: Int = 30, pageSize: Int = 0, atomOnly: Bool = false, timeout: Duration = .seconds(30)
    ) async throws -> PysletServer {
        let script = Peers.scriptsFolder.appendingPathComponent("pyslet_v2_service.py")
        guard FileManager.default.fileExists(atPath: script.path) else {
            throw PeerError(message: "the pyslet service script is missing: \(script.path)")
        }
        let path = script.path.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
        let peer = try await PeerProcess.start(
            name: "pyslet",
            body: "import runpy\nsys.argv[0] = '\(path)'\nrunpy.run_path(sys.argv[0], run_name='__main__')",
            arguments: { port in
                ["--port", String(port), "--products", String(products), "--page-size", String(pageSize)]
                    + (atomOnly ? ["--atom-only"] : [])
            },
            readyPath: "/shop/$metadata",
            banner: { "pyslet_v2_service: http://127.0.0.1:\($0)/shop" }, timeout: timeout)
        return PysletServer(peer: peer)
    }

    /// The TCP port on 127.0.0.1.
    public var port: Int { peer.port }

    /// The service root: `http://127.0.0.1:<port>/shop`.
    public var serviceURL: URL { URL(string: "http://127.0.0.1:\(peer.port)/shop")! }

    /// What the service printed on standard error so far (its last 4 KB).
    public var output: String { peer.output }

    /// Stops the service. Safe to call more than once; also done on deinit.
    public func stop() { peer.stop() }
}
