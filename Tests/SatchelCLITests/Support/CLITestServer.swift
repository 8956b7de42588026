import Foundation
import SatchelServer

/// A `satchel serve` on 127.0.0.1 with a port picked at run time, for the CLI tests: each user `name` has password
/// `pw-name`; the server's data, and whatever the test writes, live in a folder of its own.
struct CLITestServer {
    let running: RunningServer
    /// The test's folder (the server's data is in `data/` under it).
    let directory: URL

    var baseURL: URL { running.baseURL }

    static func start(
        users: [String], administrators: Set<String> = [], sqlite: Bool = false
    ) async throws
        -> CLITestServer
    {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-cli-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let usersFile = directory.appendingPathComponent("users.json")
        var entries: [String: PasswordHash] = [:]
        for user in users { entries[user] = try PasswordHash.make(password: "pw-\(user)", rounds: 1_000) }
        try UsersFile(entries: entries, administrators: administrators).save(to: usersFile)
        let data = directory.appendingPathComponent("data")
        let app = SatchelServerApp(
            configuration: ServerConfiguration(
                port: 0, dataDirectory: data, usersFile: usersFile,
                store: sqlite ? .sqlite(path: data.appendingPathComponent("satchel.sqlite").path) : .memory,
                logLevel: .critical))
        return CLITestServer(running: try await app.start(), directory: directory)
    }

    func stop() async {
        await running.shutdown()
        try? FileManager.default.removeItem(at: directory)
    }
}
