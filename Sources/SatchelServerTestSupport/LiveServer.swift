public import Foundation
import Synchronization
public import SatchelGateway
public import SatchelServer
import Logging

/// A `satchel serve` in this process on 127.0.0.1, at a port picked at run time, for the tests of everything that
/// talks to it (the CMIS client, the CLI): each user `name` has password `pw-name`; the server's data, and whatever
/// the test writes, live in a folder of its own. ``restart()`` stops it and starts it again on the same port and
/// data (with a new secret: the XSRF tokens it hands out change, as after a real restart).
public final class LiveServer: Sendable {
    /// The test's folder (the server's data is in `data/` under it).
    public let directory: URL
    private let configuration: ServerConfiguration
    private let current: Mutex<RunningServer>

    public var baseURL: URL { current.withLock { $0.baseURL } }
    public var port: Int { current.withLock { $0.port } }

    private init(directory: URL, configuration: ServerConfiguration, running: RunningServer) {
        self.directory = directory
        self.configuration = configuration
        current = Mutex(running)
    }

    /// `sqlite`: keep the repository in a SQLite file (what survives ``restart()``); otherwise in memory.
    public static func start(
        users: [String], administrators: Set<String> = [], sqlite: Bool = false, xsrf: XSRFPolicy = .standard,
        gateway: GatewayConfiguration? = nil, tls: TLSFiles? = nil
    ) async throws -> LiveServer {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-live-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let usersFile = directory.appendingPathComponent("users.json")
        var entries: [String: PasswordHash] = [:]
        for user in users { entries[user] = try PasswordHash.make(password: "pw-\(user)", rounds: 1_000) }
        try UsersFile(entries: entries, administrators: administrators).save(to: usersFile)
        let data = directory.appendingPathComponent("data")
        var configuration = ServerConfiguration(
            port: 0, dataDirectory: data, usersFile: usersFile,
            store: sqlite ? .sqlite(path: data.appendingPathComponent("satchel.sqlite").path) : .memory,
            xsrfPolicy: xsrf,
            logLevel: ProcessInfo.processInfo.environment["SATCHEL_TEST_LOG"] != nil ? .debug : .critical,
            gateway: gateway)
        configuration.tls = tls
        let running = try await SatchelServerApp(configuration: configuration).start()
        configuration.port = running.port
        return LiveServer(directory: directory, configuration: configuration, running: running)
    }

    /// Stops the server and starts it again on the same port and data; with `newXSRFSecret`, under a new XSRF secret
    /// (every token given before is refused).
    public func restart(newXSRFSecret: Bool = false) async throws {
        await current.withLock { $0 }.shutdown()
        var configuration = configuration
        configuration.newXSRFSecret = newXSRFSecret
        let running = try await SatchelServerApp(configuration: configuration).start()
        current.withLock { $0 = running }
    }

    public func stop() async {
        await current.withLock { $0 }.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }
}
