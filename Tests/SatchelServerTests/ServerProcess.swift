import Foundation
import SatchelHTTP
import SatchelServer
import SatchelTestSupport
import Testing
import SatchelJSON

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `satchel serve` as a child process on a free port (on ``ChildProcess``).
struct ServerProcess {
    let running: ChildProcess.Running
    let url: URL
    var pid: pid_t { running.pid }

    /// A temporary folder for one test's server: a users file with alice (password `pw-alice`) and a data folder.
    struct Sandbox {
        let directory: URL
        var usersFile: URL { directory.appendingPathComponent("users.json") }
        var data: URL { directory.appendingPathComponent("data") }

        init(_ label: String) throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-\(label)-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            try UsersFile(entries: ["alice": try PasswordHash.make(password: "pw-alice", rounds: 1_000)])
                .save(to: usersFile)
        }

        /// Starts the built `satchel serve` on the sandbox's data folder and users.
        func start() async throws -> ServerProcess {
            try await ServerProcess.start(try ServerProcess.satchelBinary(), data: data, users: usersFile)
        }

        func remove() { try? FileManager.default.removeItem(at: directory) }
    }

    static func start(_ binary: URL, data: URL, users: URL) async throws -> ServerProcess {
        try await start(binary, arguments: ["--data", data.path, "--users", users.path])
    }

    /// Starts `satchel serve --host 127.0.0.1 --port <free> <arguments>`, through `launcher` (a command and its
    /// arguments, such as `setsid`) when given, with standard error written to `standardError` (or discarded), and
    /// returns once it answers `/health` (within 10 s).
    static func start(
        _ binary: URL, arguments: [String], launcher: [String] = [], standardError: URL? = nil
    ) async throws -> ServerProcess {
        let port = try LoopbackPort.free()
        let serve = ["serve", "--host", "127.0.0.1", "--port", String(port)] + arguments
        let running =
            if let command = launcher.first {
                try ChildProcess.start(
                    URL(fileURLWithPath: command), Array(launcher.dropFirst()) + [binary.path] + serve,
                    standardError: standardError)
            } else {
                try ChildProcess.start(binary, serve, standardError: standardError)
            }
        let url = URL(string: "http://127.0.0.1:\(port)")!
        let client = HTTPClient()
        for _ in 0..<200 {
            if let response = try? await client.send(
                HTTPClient.Request(.get, url: url.appendingPathComponent("health"))),
                response.status == 200
            {
                return ServerProcess(running: running, url: url)
            }
            guard running.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        await running.stop(grace: .zero)
        throw ServerError("satchel serve did not answer /health on port \(port)")
    }

    /// Waits until the server has ended by itself (killed, or stopped by a signal the test sent).
    func waitUntilExit() async { await running.waitForExit() }

    /// SIGTERM, then SIGKILL if the process has not ended within five seconds (a stalled server ignores SIGTERM).
    func stop() async { await running.stop() }

    // MARK: Browser binding requests

    /// Basic credentials of the one user, alice (password `pw-alice`).
    static let basic = "Basic " + Data("alice:pw-alice".utf8).base64EncodedString()

    static func fields(action: String, name: String, type: String) -> [(String, String)] {
        [
            ("cmisaction", action), ("propertyId[0]", "cmis:name"), ("propertyValue[0]", name),
            ("propertyId[1]", "cmis:objectTypeId"), ("propertyValue[1]", type), ("succinct", "true"),
        ]
    }

    static func url(_ base: URL, objectId: String, extra: [(String, String)] = []) -> URL {
        var components = URLComponents(url: base, resolvingAgainstBaseURL: false)!
        components.queryItems =
            [URLQueryItem(name: "objectId", value: objectId)]
            + extra.map {
                URLQueryItem(name: $0.0, value: $0.1)
            }
        return components.url!
    }

    /// Creates a folder (in the root) or a document (in `folderId`) and returns its id.
    static func create(
        _ client: HTTPClient, _ base: URL, action: String, name: String, type: String, folderId: String? = nil,
        content: Data? = nil, directory: URL? = nil
    ) async throws -> String {
        let target = folderId.map { url(base, objectId: $0) } ?? base
        var request: HTTPClient.Request
        if let content {
            var form = MultipartFormData()
            for (field, value) in fields(action: action, name: name, type: type) { form.addField(field, value) }
            try form.addData("content", data: content, filename: name, contentType: "application/octet-stream")
            request = HTTPClient.Request(.post, url: target, body: .multipart(form))
        } else {
            request = HTTPClient.Request(
                .post, url: target, body: .form(fields(action: action, name: name, type: type)))
        }
        request.headers["Authorization"] = basic
        let json = try await client.send(request).json()
        return try #require(json["succinctProperties"]?["cmis:objectId"]?.stringValue)
    }

    /// The `satchel` executable built beside the tests.
    static func satchelBinary() throws -> URL {
        guard let binary = BuiltExecutable.find("satchel") else {
            throw ServerError("the satchel binary is not built next to the tests: run swift build --build-tests")
        }
        return binary
    }
}
