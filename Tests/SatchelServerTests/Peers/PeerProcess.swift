import Foundation

/// Runs a peer program (cmislib, cmissh's test kit, libcmis's cmis-client) against the server and captures what
/// it prints. Missing peers are a test failure with the command that installs them, never a skip.
enum PeerProcess {
    struct Result {
        var status: Int32
        var output: String
    }

    struct Missing: Error, CustomStringConvertible {
        var description: String
    }

    /// The package's root folder (this file is Tests/SatchelServerTests/Peers/PeerProcess.swift).
    static let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The virtual environment `scripts/test` fills with cmislib 0.7.0 and cmissh.
    static var venv: URL {
        if let path = ProcessInfo.processInfo.environment["SATCHEL_PEERS_VENV"], !path.isEmpty {
            return URL(fileURLWithPath: path, isDirectory: true)
        }
        return packageRoot.appendingPathComponent(".venv-peers", isDirectory: true)
    }

    static func python() throws -> URL {
        let python = venv.appendingPathComponent("bin/python")
        guard FileManager.default.isExecutableFile(atPath: python.path) else {
            throw Missing(
                description: "the Python CMIS peers are not installed (\(venv.path)): run scripts/test, which installs "
                    + "cmislib 0.7.0 and cmissh into .venv-peers")
        }
        return python
    }

    static func venvTool(_ name: String) throws -> URL {
        let tool = venv.appendingPathComponent("bin/\(name)")
        guard FileManager.default.isExecutableFile(atPath: tool.path) else {
            throw Missing(description: "\(tool.path) is missing: run scripts/test to install cmissh into .venv-peers")
        }
        return tool
    }

    static func systemTool(_ name: String, package: String) throws -> URL {
        for folder in (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin").split(separator: ":") {
            let candidate = URL(fileURLWithPath: String(folder)).appendingPathComponent(name)
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
        }
        throw Missing(description: "\(name) is not installed: apt-get install \(package) (scripts/test does this)")
    }

    /// Runs `executable` with `arguments`, at most `timeout` seconds, in `directory`.
    static func run(
        _ executable: URL, _ arguments: [String], in directory: URL? = nil, timeout: TimeInterval = 180
    ) async throws -> Result {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        var environment = ProcessInfo.processInfo.environment
        environment["PYTHONUNBUFFERED"] = "1"
        environment["NO_PROXY"] = "127.0.0.1,localhost"
        environment.removeValue(forKey: "http_proxy")
        environment.removeValue(forKey: "HTTP_PROXY")
        process.environment = environment
        let outputFile = FileManager.default.temporaryDirectory.appendingPathComponent("peer-\(UUID().uuidString).log")
        FileManager.default.createFile(atPath: outputFile.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outputFile) }
        let handle = try FileHandle(forWritingTo: outputFile)
        process.standardOutput = handle
        process.standardError = handle
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning {
            if Date() > deadline {
                process.terminate()
                try await Task.sleep(for: .milliseconds(200))
                break
            }
            try await Task.sleep(for: .milliseconds(50))
        }
        process.waitUntilExit()
        try handle.close()
        let output = (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
        return Result(status: process.terminationStatus, output: output)
    }
}
