import Foundation
import SatchelHTTP
import SatchelServer
import SatchelTestSupport
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Kills a real `satchel serve` process (SIGKILL) in the middle of a large upload, starts it again on the same data
/// folder, and checks that every earlier document is intact, that the half-sent one does not exist, and that no
/// temporary file is left behind.
@Suite("satchel serve survives SIGKILL during an upload", .serialized)
struct CrashSafetyTests {
    @Test func killDuringLargeUpload() async throws {
        let binary = try Self.satchelBinary()
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-crash-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }
        let usersFile = directory.appendingPathComponent("users.json")
        try UsersFile(entries: ["alice": try PasswordHash.make(password: "pw-alice", rounds: 1_000)])
            .save(to: usersFile)
        let data = directory.appendingPathComponent("data")

        var server = try await ServerProcess.start(binary, data: data, users: usersFile)
        let client = HTTPClient()
        let base = server.url.appendingPathComponent("cmis/browser/shared/root")
        let folderId = try await Self.create(client, base, action: "createFolder", name: "kept", type: "cmis:folder")
        var kept: [String: Data] = [:]
        for index in 0..<3 {
            let bytes = Data((0..<(50_000 + index)).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ index) })
            let id = try await Self.create(
                client, base, action: "createDocument", name: "doc-\(index).bin", type: "cmis:document",
                folderId: folderId, content: bytes, directory: directory)
            kept[id] = bytes
        }

        // 256 MiB of content, streamed from disk; the server dies once 24 MiB have gone out.
        let big = directory.appendingPathComponent("big.bin")
        FileManager.default.createFile(atPath: big.path, contents: nil)
        let handle = try FileHandle(forWritingTo: big)
        try handle.truncate(atOffset: 256 << 20)
        try handle.close()
        var form = MultipartFormData()
        for (name, value) in Self.fields(action: "createDocument", name: "big.bin", type: "cmis:document") {
            form.addField(name, value)
        }
        try form.addFile("content", fileURL: big, filename: "big.bin")
        var request = HTTPRequest(
            .post, url: Self.url(base, objectId: folderId), body: .multipart(form), operation: "big upload")
        request.headers["Authorization"] = Self.basic
        let pid = server.pid
        let killed = Mutex(false)
        await #expect(throws: (any Error).self) {
            try await client.send(request) { progress in
                guard progress.bytesDone > 24 << 20 else { return }
                killed.withLock { done in
                    if !done { kill(pid, SIGKILL) }
                    done = true
                }
            }
        }
        #expect(killed.withLock { $0 }, "the upload finished before the server was killed")
        server.waitUntilExit()

        // The same data folder, a new process.
        server = try await ServerProcess.start(binary, data: data, users: usersFile)
        defer { server.stop() }
        let restartedBase = server.url.appendingPathComponent("cmis/browser/shared/root")
        var children = HTTPRequest(
            .get,
            url: Self.url(
                restartedBase, objectId: folderId, extra: [("cmisselector", "children"), ("succinct", "true")]))
        children.headers["Authorization"] = Self.basic
        let listing = try await client.send(children).json()
        let names = (listing["objects"]?.arrayValue ?? []).compactMap {
            $0["object"]?["succinctProperties"]?["cmis:name"]?.stringValue
        }
        #expect(names.sorted() == ["doc-0.bin", "doc-1.bin", "doc-2.bin"])
        for (id, bytes) in kept {
            var content = HTTPRequest(
                .get, url: Self.url(restartedBase, objectId: id, extra: [("cmisselector", "content")]))
            content.headers["Authorization"] = Self.basic
            #expect(try await client.send(content).body == bytes)
        }
        let leftovers = try FileManager.default.contentsOfDirectory(
            atPath: data.appendingPathComponent("blobs/tmp").path)
        #expect(leftovers.isEmpty, "temporary upload files left: \(leftovers)")
    }

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
        var request: HTTPRequest
        if let content {
            var form = MultipartFormData()
            for (field, value) in fields(action: action, name: name, type: type) { form.addField(field, value) }
            form.addData("content", data: content, filename: name, contentType: "application/octet-stream")
            request = HTTPRequest(.post, url: target, body: .multipart(form))
        } else {
            request = HTTPRequest(.post, url: target, body: .form(fields(action: action, name: name, type: type)))
        }
        request.headers["Authorization"] = basic
        let json = try await client.send(request).json()
        return try #require(json["succinctProperties"]?["cmis:objectId"]?.stringValue)
    }

    /// The `satchel` executable built beside the tests.
    static func satchelBinary() throws -> URL {
        var folders = [Bundle.main.bundleURL, Bundle.main.bundleURL.deletingLastPathComponent()]
        folders.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            folders.append(bundle.bundleURL.deletingLastPathComponent())
        }
        guard
            let binary = folders.map({ $0.appendingPathComponent("satchel") }).first(where: {
                FileManager.default.isExecutableFile(atPath: $0.path)
            })
        else {
            throw ServerError("the satchel binary is not built next to the tests: run swift build --build-tests")
        }
        return binary
    }
}

/// `satchel serve` as a child process on a free port.
struct ServerProcess {
    let process: Process
    let url: URL
    var pid: pid_t { process.processIdentifier }

    static func start(_ binary: URL, data: URL, users: URL) async throws -> ServerProcess {
        let port = try LoopbackPort.free()
        let process = Process()
        process.executableURL = binary
        process.arguments = [
            "serve", "--host", "127.0.0.1", "--port", String(port), "--data", data.path, "--users", users.path,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        let url = URL(string: "http://127.0.0.1:\(port)")!
        let client = HTTPClient()
        for _ in 0..<200 {
            if let response = try? await client.send(HTTPRequest(.get, url: url.appendingPathComponent("health"))),
                response.status == 200
            {
                return ServerProcess(process: process, url: url)
            }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.terminate()
        throw ServerError("satchel serve did not answer /health on port \(port)")
    }

    func waitUntilExit() { process.waitUntilExit() }

    func stop() {
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
    }
}
