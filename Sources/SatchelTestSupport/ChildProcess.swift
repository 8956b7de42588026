public import Foundation
import Synchronization

/// A child process run from an async test: started, killed with SIGKILL after a while when asked, and waited for on
/// a thread of its own (never on one of the concurrency pool's few threads, where a blocking wait would hold up
/// every other test).
public enum ChildProcess {
    public struct Outcome: Sendable {
        /// The exit status, or the signal that ended it.
        public var status: Int32
        /// Whether a signal ended it.
        public var signalled: Bool
        /// What it printed on standard output (and standard error, when merged).
        public var output: String
    }

    /// Runs `executable` with `arguments` (in `directory`); with `killAfter`, sends SIGKILL once that much time has
    /// passed (a kill loop); with `timeout`, only if it is still running then. `environment` adds to (or replaces
    /// in) this process's environment.
    public static func run(
        _ executable: URL, _ arguments: [String], killAfter: Duration? = nil, timeout: Duration? = nil,
        mergingErrors: Bool = false, environment: [String: String] = [:], in directory: URL? = nil
    ) async throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        process.standardOutput = output
        process.standardError = mergingErrors ? output : FileHandle.nullDevice
        try process.run()
        if let killAfter {
            try? await Task.sleep(for: killAfter)
            kill(process.processIdentifier, SIGKILL)
        }
        let child = Box(process: process, output: output)
        let pid = process.processIdentifier
        let watchdog = timeout.map { limit in
            Task {
                try? await Task.sleep(for: limit)
                if !child.exited.load(ordering: .acquiring) { kill(pid, SIGKILL) }
            }
        }
        defer { watchdog?.cancel() }
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                // The output first: a child blocked on a full pipe would never exit.
                let text = String(
                    decoding: child.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
                child.process.waitUntilExit()
                child.exited.store(true, ordering: .releasing)
                continuation.resume(
                    returning: Outcome(
                        status: child.process.terminationStatus,
                        signalled: child.process.terminationReason == .uncaughtSignal, output: text))
            }
        }
    }

    /// The process and its pipe, handed to the waiting thread (used by one thread at a time).
    private final class Box: @unchecked Sendable {
        let process: Process
        let output: Pipe
        /// Set once the process has been waited for (a timeout then kills nothing).
        let exited = Atomic<Bool>(false)
        init(process: Process, output: Pipe) {
            self.process = process
            self.output = output
        }
    }
}
