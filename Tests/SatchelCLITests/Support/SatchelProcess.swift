import Foundation
import SatchelTestSupport
import Testing

/// What a run of the `satchel` binary produced.
struct SatchelResult: Sendable {
    var status: Int32
    var stdout: Data
    var stderr: String

    var stdoutText: String { String(decoding: stdout, as: UTF8.self) }
}

/// Runs the built `satchel` binary as a subprocess, the way a person or a script would.
enum SatchelProcess {
    /// The binary next to the test bundle (`.build/debug/satchel`), or `SATCHEL_BINARY` when set.
    static let binary: URL? = {
        if let path = ProcessInfo.processInfo.environment["SATCHEL_BINARY"],
            FileManager.default.isExecutableFile(atPath: path)
        {
            return URL(fileURLWithPath: path)
        }
        return BuiltExecutable.find("satchel")
    }()

    /// Runs `satchel` with `arguments`; `environment` adds to a copy of this process's environment without any
    /// `SATCHEL_` variables, `input` goes to standard input, and `interruptAfter` sends SIGINT like Ctrl-C.
    static func run(
        _ arguments: [String],
        environment: [String: String] = [:],
        input: String? = nil,
        interruptAfter: Double? = nil
    ) async throws -> SatchelResult {
        guard let binary else {
            Issue.record(
                """
                The satchel binary was not found next to the tests (\(Bundle.main.bundleURL.path)). \
                Build it first with `swift build --product satchel`, or set SATCHEL_BINARY to its path.
                """
            )
            throw CancellationError()
        }
        var fullEnvironment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("SATCHEL_") }
        fullEnvironment.merge(environment) { $1 }
        let finalEnvironment = fullEnvironment
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(
                    with: Result {
                        try runBlocking(binary, arguments, finalEnvironment, input, interruptAfter)
                    }
                )
            }
        }
    }

    /// Blocks its own thread, never one of the concurrency pool's, while the child runs.
    private static func runBlocking(
        _ binary: URL,
        _ arguments: [String],
        _ environment: [String: String],
        _ input: String?,
        _ interruptAfter: Double?
    ) throws -> SatchelResult {
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.environment = environment
        let (stdin, stdout, stderr) = (Pipe(), Pipe(), Pipe())
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        try process.run()
        if let input { stdin.fileHandleForWriting.write(Data(input.utf8)) }
        try stdin.fileHandleForWriting.close()

        // Both pipes are drained at once so a child writing a lot to one of them never blocks.
        let collected = Collected()
        let group = DispatchGroup()
        for (index, pipe) in [stdout, stderr].enumerated() {
            group.enter()
            DispatchQueue.global().async {
                let data = pipe.fileHandleForReading.readDataToEndOfFile()
                collected.set(index, data)
                group.leave()
            }
        }
        if let interruptAfter {
            Thread.sleep(forTimeInterval: interruptAfter)
            process.interrupt()
        }
        if group.wait(timeout: .now() + 120) == .timedOut {
            process.terminate()
            group.wait()
        }
        process.waitUntilExit()
        return SatchelResult(
            status: process.terminationStatus,
            stdout: collected.get(0),
            stderr: String(decoding: collected.get(1), as: UTF8.self)
        )
    }

    private final class Collected: @unchecked Sendable {
        private let lock = NSLock()
        private var outputs: [Int: Data] = [:]
        func set(_ index: Int, _ data: Data) { lock.withLock { outputs[index] = data } }
        func get(_ index: Int) -> Data { lock.withLock { outputs[index] ?? Data() } }
    }
}
