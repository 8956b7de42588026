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
        // Standard input is always a pipe, closed once `input` is written: a command reading it sees the end.
        let outcome = try await ChildProcess.run(
            binary, arguments, interruptAfter: interruptAfter.map { .milliseconds(Int64($0 * 1000)) },
            timeout: .seconds(120), capturingErrors: true, environment: fullEnvironment, inheritingEnvironment: false,
            input: Data((input ?? "").utf8))
        return SatchelResult(status: outcome.status, stdout: outcome.standardOutput, stderr: outcome.errors)
    }
}
