public import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why a peer (a real client or server the tests talk to) could not be found or started.
public struct PeerError: Error, Sendable, CustomStringConvertible {
    /// What went wrong, with the peer's standard error when it has printed something.
    public var message: String

    /// Creates an error with its message.
    public init(message: String) { self.message = message }

    public var description: String { "peer: \(message)" }
}

/// The real peers the tests run against, in one place: where they live (the virtual environment `scripts/test`
/// builds, and system tools), running a peer program to its end (``run(_:_:in:timeout:)``), and starting a peer
/// server (``PeerProcess``). A missing peer is a test failure naming what installs it, never a skip.
public enum Peers {
    /// The package's root folder (this file is Sources/SatchelTestSupport/ODataPeers/PeerProcess.swift).
    public static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()

    /// The folder of the committed peer scripts (`Tests/Peers`).
    public static var scriptsFolder: URL { packageRoot.appendingPathComponent("Tests/Peers", isDirectory: true) }

    /// The virtual environment: `SATCHEL_PEERS_VENV`, else `.venv-peers` in the package root, else `.venv-peers`
    /// in the main worktree when the package is a linked git worktree.
    ///
    /// - Throws: ``PeerError`` naming `scripts/test` when none of them has a Python.
    public static func venv() throws -> URL {
        var candidates: [URL] = []
        if let path = ProcessInfo.processInfo.environment["SATCHEL_PEERS_VENV"], !path.isEmpty {
            candidates.append(URL(fileURLWithPath: path, isDirectory: true))
        }
        candidates.append(packageRoot.appendingPathComponent(".venv-peers", isDirectory: true))
        if let main = mainWorktree() {
            candidates.append(main.appendingPathComponent(".venv-peers", isDirectory: true))
        }
        for candidate in candidates
        where FileManager.default.isExecutableFile(atPath: candidate.appendingPathComponent("bin/python").path) {
            return candidate
        }
        throw PeerError(
            message: "the Python peers are not installed (looked in "
                + candidates.map(\.path).joined(separator: ", ")
                + "): run scripts/test, which installs cmislib, cmissh, nuxeo, mock-sap, odatapy, pyodata and "
                + "python-odata into .venv-peers (or point SATCHEL_PEERS_VENV at such a virtual environment)")
    }

    /// The venv's Python interpreter.
    public static func python() throws -> URL { try venv().appendingPathComponent("bin/python") }

    /// A program the venv installed (`cmis-tck`).
    public static func venvTool(_ name: String) throws -> URL {
        let tool = try venv().appendingPathComponent("bin/\(name)")
        guard FileManager.default.isExecutableFile(atPath: tool.path) else {
            throw PeerError(message: "\(tool.path) is missing: run scripts/test to install it into .venv-peers")
        }
        return tool
    }

    /// A program on the `PATH`, installed by the system package `package` (which `scripts/test` installs).
    public static func systemTool(_ name: String, package: String) throws -> URL {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw PeerError(message: "\(name) is not installed: apt-get install \(package) (scripts/test does this)")
    }

    /// Runs a peer program to its end (stopped after `timeout`), in `directory`, with its standard output and
    /// error together; Python unbuffered and no proxy for loopback, then `environment`.
    public static func run(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, environment: [String: String] = [:],
        timeout: Duration = .seconds(180)
    ) async throws -> ChildProcess.Outcome {
        try await ChildProcess.run(
            executable, arguments, timeout: timeout, mergingErrors: true,
            environment: [
                "PYTHONUNBUFFERED": "1", "NO_PROXY": "127.0.0.1,localhost", "http_proxy": "", "HTTP_PROXY": "",
                "https_proxy": "", "HTTPS_PROXY": "",
            ].merging(environment) { $1 },
            in: directory)
    }

    /// The main worktree's folder when the package root is a linked worktree (`.git` is a file naming the gitdir).
    private static func mainWorktree() -> URL? {
        let dotGit = packageRoot.appendingPathComponent(".git")
        guard let text = try? String(contentsOf: dotGit, encoding: .utf8), text.hasPrefix("gitdir:") else {
            return nil
        }
        let gitdir = URL(
            fileURLWithPath: text.dropFirst("gitdir:".count).trimmingCharacters(in: .whitespacesAndNewlines),
            isDirectory: true)
        // <main>/.git/worktrees/<name> → <main>
        let common = gitdir.deletingLastPathComponent().deletingLastPathComponent()
        guard common.lastPathComponent == ".git" else { return nil }
        return common.deletingLastPathComponent()
    }

    /// The status code a plain HTTP/1.0 GET of `path` on 127.0.0.1:`port` answers, or nil when nothing answers.
    static func probe(port: Int, path: String) -> Int? {
        let descriptor = LoopbackPort.connect(port)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: 2, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n\r\n".utf8)
        let sent = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, 0) }
        guard sent == request.count else { return nil }
        var buffer = [UInt8](repeating: 0, count: 64)
        var filled = 0
        while filled < 12 {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress! + filled, 64 - filled, 0) }
            guard count > 0 else { break }
            filled += count
        }
        // "HTTP/1.x NNN"
        let line = String(decoding: buffer[0..<filled], as: UTF8.self)
        guard line.hasPrefix("HTTP/"), filled >= 12 else { return nil }
        let start = line.index(line.startIndex, offsetBy: 9)
        return Int(line[start..<line.index(start, offsetBy: 3)])
    }
}

/// A peer server process: Python under a lifeline (it exits when this process closes its standard input, so no
/// peer outlives a crashed test run), its standard error in a temporary file, stopped with SIGTERM then SIGKILL.
final class PeerProcess: Sendable {
    let port: Int
    private let process: Process
    private let lifeline: Pipe
    private let stderrFile: URL
    private let stopped = Mutex(false)

    /// Python code that runs before the peer: a thread that ends the interpreter when standard input closes.
    private static let lifelinePrelude = """
        import os, signal, sys, threading
        sys.argv = sys.argv[1:]
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGTERM, signal.SIGINT})
        signal.signal(signal.SIGTERM, lambda number, frame: os._exit(0))
        def _satchel_lifeline():
            try:
                while os.read(0, 4096):
                    pass
            finally:
                os._exit(0)
        threading.Thread(target=_satchel_lifeline, daemon=True).start()
        """

    private init(port: Int, process: Process, lifeline: Pipe, stderrFile: URL) {
        self.port = port
        self.process = process
        self.lifeline = lifeline
        self.stderrFile = stderrFile
    }

    /// Starts `python -c <lifeline; body>` with `arguments(port)` as `sys.argv[1:]`, on a free port, and waits
    /// until `GET readyPath` answers any HTTP status, and (with `banner`) until the peer printed `banner(port)`,
    /// which it prints once it holds the port: another test's server that took the port in between would answer the
    /// probe too. Without `readyPath` (a peer serving HTTPS, which a plain probe cannot ask) the banner alone says
    /// the peer listens. Retries with another port when the first one was taken.
    static func start(
        name: String, body: String, arguments: @Sendable (Int) -> [String], readyPath: String?,
        banner: (@Sendable (Int) -> String)? = nil, timeout: Duration = .seconds(20)
    ) async throws -> PeerProcess {
        let python = try Peers.python()
        var lastError: PeerError?
        for _ in 0..<3 {
            let port = try LoopbackPort.free()
            let peer = try launch(name: name, python: python, body: body, arguments: arguments(port), port: port)
            do {
                try await peer.waitUntilReady(
                    name: name, path: readyPath, banner: banner.map { $0(port) }, timeout: timeout)
                return peer
            } catch let error as PeerError {
                peer.stop()
                lastError = error
                // Another process took the port between the probe and the bind: try another one.
                guard error.message.contains("Address already in use") else { throw error }
            }
        }
        throw lastError ?? PeerError(message: "\(name) did not start")
    }

    private static func launch(
        name: String, python: URL, body: String, arguments: [String], port: Int
    ) throws
        -> PeerProcess
    {
        let process = Process()
        process.executableURL = python
        process.arguments = ["-c", lifelinePrelude + "\n" + body, name] + arguments
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONUNBUFFERED"] = "1"
        environment["PYTHONDONTWRITEBYTECODE"] = "1"
        process.environment = environment
        process.currentDirectoryURL = Peers.packageRoot
        let stderrFile = FileManager.default.temporaryDirectory
            .appendingPathComponent("satchel-\(name)-\(UUID().uuidString).log")
        _ = FileManager.default.createFile(atPath: stderrFile.path, contents: nil)
        let handle = try FileHandle(forWritingTo: stderrFile)
        defer { try? handle.close() }
        let lifeline = Pipe()
        process.standardInput = lifeline
        process.standardOutput = handle
        process.standardError = handle
        do {
            try process.run()
        } catch {
            try? FileManager.default.removeItem(at: stderrFile)
            throw PeerError(message: "cannot start \(name) (\(python.path)): \(error)")
        }
        return PeerProcess(port: port, process: process, lifeline: lifeline, stderrFile: stderrFile)
    }

    /// What the peer printed so far (its last 4 KB).
    var output: String {
        let data = (try? Data(contentsOf: stderrFile)) ?? Data()
        return String(decoding: data.suffix(4096), as: UTF8.self)
    }

    var isRunning: Bool { process.isRunning }

    private func waitUntilReady(name: String, path: String?, banner: String?, timeout: Duration) async throws {
        precondition(path != nil || banner != nil, "a peer needs a ready path or a banner")
        let deadline = ContinuousClock.now + timeout
        let port = self.port
        while ContinuousClock.now < deadline {
            guard process.isRunning else {
                throw PeerError(
                    message: "\(name) exited with status \(process.terminationStatus) before answering on port "
                        + "\(port): \(output)")
            }
            if banner.map(output.contains) ?? true, path.map({ Peers.probe(port: port, path: $0) != nil }) ?? true {
                return
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw PeerError(
            message: "\(name) did not \(path.map { "answer GET \($0)" } ?? "say it listens") on 127.0.0.1:\(port) "
                + "within \(timeout): \(output)")
    }

    /// Stops the process: closes its lifeline (the peer exits at once), then SIGTERM after 1 s, then SIGKILL
    /// after 3 s more. Safe to call more than once.
    func stop() {
        let first = stopped.withLock { stopped in
            defer { stopped = true }
            return !stopped
        }
        guard first else { return }
        try? lifeline.fileHandleForWriting.close()
        for _ in 0..<20 where process.isRunning { usleep(50_000) }
        if process.isRunning {
            kill(process.processIdentifier, SIGTERM)
            for _ in 0..<60 where process.isRunning { usleep(50_000) }
            if process.isRunning {
                kill(process.processIdentifier, SIGKILL)
                for _ in 0..<40 where process.isRunning { usleep(50_000) }
            }
        }
        try? FileManager.default.removeItem(at: stderrFile)
    }

    deinit { stop() }
}
