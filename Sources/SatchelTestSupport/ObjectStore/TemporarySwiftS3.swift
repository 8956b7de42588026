public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A throwaway S3-compatible object store for tests and benchmarks: OpenStack Swift (Debian's `python3-swift`) with
/// its S3 API, single node, on 127.0.0.1 on a free port, its rings, configuration and storage in a temporary folder
/// (`Tests/Peers/swift_s3_server.py` sets it up and runs it).
///
/// ```swift
/// let swift = try await TemporarySwiftS3.start()
/// let endpoint = swift.endpoint          // http://127.0.0.1:41234, path-style, region us-east-1
/// // keys: TemporarySwiftS3.accessKeyID / TemporarySwiftS3.secretAccessKey
/// await swift.stop()
/// ```
///
/// The launcher waits on a pipe from this process: when the process ends, even by a crash, the pipe closes and the
/// launcher stops its servers and removes the folder, so no store outlives its tests. ``stop()`` keeps the folder
/// until ``remove()``, so a store can be stopped and started again on the same port with the same objects
/// (``restart()``).
public final class TemporarySwiftS3: Sendable {
    /// The access key tempauth gives (`user_test_tester`).
    public static let accessKeyID = "test:tester"
    /// Its secret.
    public static let secretAccessKey = "testing"
    /// The region the S3 API signs for.
    public static let region = "us-east-1"

    /// One store for a whole test process (started on first use; it stops when the process ends): suites share it
    /// and each makes buckets of its own.
    public static let shared = Task<TemporarySwiftS3, any Error> { try await TemporarySwiftS3.start() }

    /// The folder holding the launcher's log and, in `store/`, the rings, the configuration, the storage and the
    /// servers' logs.
    public let folder: String
    /// The S3 port on 127.0.0.1.
    public let port: Int
    private let launcher: Mutex<Launcher?>

    private struct Launcher: @unchecked Sendable {
        let process: Process
        let lifeline: Pipe
    }

    private init(folder: String, port: Int, launcher: Launcher) {
        self.folder = folder
        self.port = port
        self.launcher = Mutex(launcher)
    }

    /// `http://127.0.0.1:<port>`.
    public var endpoint: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// Starts the store and waits (at most `timeout`) until it answers signed S3 calls.
    ///
    /// - Throws: ``PeerError`` naming `apt-get install --no-install-recommends python3-swift` when Swift is not
    ///   installed, or with the launcher's log when it does not become ready.
    public static func start(timeout: Duration = .seconds(90)) async throws -> TemporarySwiftS3 {
        try checkInstalled()
        var template = Array((NSTemporaryDirectory() + "/satchel-swift-XXXXXX").utf8CString)
        guard let created = mkdtemp(&template) else {
            throw PeerError(message: "cannot create a temporary folder: errno \(errno)")
        }
        let folder = String(cString: created)
        var lastError: (any Error)?
        // The port is free when chosen; another process may take it before the proxy binds it: try again.
        for _ in 0..<3 {
            let port = try LoopbackPort.free()
            do {
                let launcher = try await launch(folder: folder, port: port, timeout: timeout)
                return TemporarySwiftS3(folder: folder, port: port, launcher: launcher)
            } catch {
                lastError = error
            }
        }
        try? FileManager.default.removeItem(atPath: folder)
        throw lastError ?? PeerError(message: "the object store did not start")
    }

    /// Stops the servers (keeping the folder and its objects) and waits for them to exit. Safe to call twice.
    public func stop() async {
        guard
            let launcher = launcher.withLock({ state -> Launcher? in
                defer { state = nil }
                return state
            })
        else { return }
        // Kept for a restart: without this mark the launcher removes the folder as it exits.
        FileManager.default.createFile(atPath: folder + "/keep", contents: nil)
        try? launcher.lifeline.fileHandleForWriting.close()
        for _ in 0..<150 where launcher.process.isRunning {
            try? await Task.sleep(for: .milliseconds(100))
        }
        if launcher.process.isRunning { launcher.process.terminate() }
    }

    /// Starts the servers again on the same port, with the objects they held.
    public func restart(timeout: Duration = .seconds(90)) async throws {
        await stop()
        let started = try await Self.launch(folder: folder, port: port, timeout: timeout, reuse: true)
        launcher.withLock { $0 = started }
    }

    /// Stops the servers and removes the folder.
    public func remove() async {
        await stop()
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// What the servers logged (their last 4 KB each), for failure messages.
    public var logs: String { Self.logs(folder) }

    private static func launch(
        folder: String, port: Int, timeout: Duration, reuse: Bool = false
    ) async throws -> Launcher {
        let script = Peers.scriptsFolder.appendingPathComponent("swift_s3_server.py")
        guard FileManager.default.fileExists(atPath: script.path) else {
            throw PeerError(message: "the object store launcher is missing: \(script.path)")
        }
        let process = Process()
        let lifeline = Pipe()
        let output = Pipe()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        let store = folder + "/store"
        if !reuse {
            try? FileManager.default.removeItem(atPath: store)
            try FileManager.default.createDirectory(atPath: store, withIntermediateDirectories: false)
        }
        try? FileManager.default.removeItem(atPath: folder + "/keep")
        // When this process ends (or stops the store for good), the launcher removes the folder as it exits.
        process.arguments = [script.path, "--dir", store, "--port", String(port), "--remove-unless-kept", folder]
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONUNBUFFERED"] = "1"
        for name in ["http_proxy", "https_proxy", "HTTP_PROXY", "HTTPS_PROXY"] { environment[name] = nil }
        process.environment = environment
        process.standardInput = lifeline
        process.standardOutput = output
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        if let log = FileHandle(forWritingAtPath: folder + "/launcher.log")
            ?? (FileManager.default.createFile(atPath: folder + "/launcher.log", contents: nil)
                ? FileHandle(forWritingAtPath: folder + "/launcher.log") : nil)
        {
            process.standardError = log
        }
        do {
            try process.run()
        } catch {
            throw PeerError(message: "cannot start /usr/bin/python3 \(script.path): \(error)")
        }
        let launcher = Launcher(process: process, lifeline: lifeline)
        // The launcher prints one line once the store answers signed calls.
        let ready = Mutex(false)
        let reader = output.fileHandleForReading
        Thread.detachNewThread {
            var seen = Data()
            while true {
                let chunk = reader.availableData
                if chunk.isEmpty { return }
                seen.append(chunk)
                if String(decoding: seen, as: UTF8.self).contains("swift_s3_server: ready") {
                    ready.withLock { $0 = true }
                }
            }
        }
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if ready.withLock({ $0 }) { return launcher }
            guard process.isRunning else { break }
            try await Task.sleep(for: .milliseconds(50))
        }
        try? lifeline.fileHandleForWriting.close()
        for _ in 0..<50 where process.isRunning { try? await Task.sleep(for: .milliseconds(100)) }
        if process.isRunning { process.terminate() }
        throw PeerError(message: "the object store did not become ready on port \(port): \(logs(folder))")
    }

    private static func logs(_ folder: String) -> String {
        var text = ""
        for name in [
            "launcher.log", "store/logs/proxy.log", "store/logs/object.log", "store/logs/container.log",
            "store/logs/account.log",
        ] {
            if let log = try? String(contentsOfFile: folder + "/" + name, encoding: .utf8), !log.isEmpty {
                text += "\n== \(name)\n" + log.suffix(4000)
            }
        }
        return text
    }

    private static func checkInstalled() throws {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/python3"),
            FileManager.default.fileExists(atPath: "/usr/lib/python3/dist-packages/swift/common/middleware/s3api")
        else {
            throw PeerError(
                message: "OpenStack Swift is not installed (no /usr/lib/python3/dist-packages/swift): "
                    + "apt-get install --no-install-recommends python3-swift (scripts/test does this)")
        }
    }
}
