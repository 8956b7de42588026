public import Foundation
import Synchronization

/// Child processes for async tests, the one runner every suite uses: a program run to its end (a peer, a CLI
/// command, a kill loop's victim) or started to keep running (a server). Waiting always happens on a thread of
/// the runner's own, never on one of the concurrency pool's few threads, where a blocking wait would hold up every
/// other test; and every wait is bounded.
public enum ChildProcess {
    public struct Outcome: Sendable {
        /// The exit status, or the signal that ended it.
        public var status: Int32
        /// Whether a signal ended it.
        public var signalled: Bool
        /// What it wrote on standard output (and standard error, when merged), as bytes.
        public var standardOutput: Data
        /// What it wrote on standard error, when captured apart (`capturingErrors`).
        public var errors: String

        /// Standard output as text.
        public var output: String { String(decoding: standardOutput, as: UTF8.self) }
    }

    /// Runs `executable` with `arguments` (in `directory`) to its end.
    ///
    /// - `killAfter`: SIGKILL once that much time has passed (a kill loop). `interruptAfter`: SIGINT then, as
    ///   Ctrl-C would. `timeout`: SIGKILL then, only if it is still running.
    /// - Standard error is merged into the output (`mergingErrors`), captured apart (`capturingErrors`), or dropped.
    /// - `environment` adds to (or replaces in) this process's environment; with `inheritingEnvironment` false it
    ///   is the whole environment. `input` is written to standard input, which is then closed.
    public static func run(
        _ executable: URL, _ arguments: [String], killAfter: Duration? = nil, interruptAfter: Duration? = nil,
        timeout: Duration? = nil, mergingErrors: Bool = false, capturingErrors: Bool = false,
        environment: [String: String] = [:], inheritingEnvironment: Bool = true, input: Data? = nil,
        in directory: URL? = nil
    ) async throws -> Outcome {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if let directory { process.currentDirectoryURL = directory }
        if !inheritingEnvironment {
            process.environment = environment
        } else if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        let output = Pipe()
        let errors = capturingErrors ? Pipe() : nil
        let standardInput = input == nil ? nil : Pipe()
        process.standardOutput = output
        process.standardError = mergingErrors ? output : errors ?? FileHandle.nullDevice
        process.standardInput = standardInput ?? FileHandle.nullDevice
        try process.run()
        if let standardInput, let input {
            let writer = standardInput.fileHandleForWriting
            Thread.detachNewThread {
                try? writer.write(contentsOf: input)
                try? writer.close()
            }
        }
        let pid = process.processIdentifier
        let child = Box(process: process, output: output, errors: errors)
        if let killAfter {
            try? await Task.sleep(for: killAfter)
            kill(pid, SIGKILL)
        }
        if let interruptAfter {
            try? await Task.sleep(for: interruptAfter)
            kill(pid, SIGINT)
        }
        let watchdog = timeout.map { limit in
            Task {
                try? await Task.sleep(for: limit)
                if !child.exited.load(ordering: .acquiring) { kill(pid, SIGKILL) }
            }
        }
        defer { watchdog?.cancel() }
        return await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                // Standard error is drained beside standard output: a child blocked on a full pipe never exits.
                let errorText = Mutex<Data>(Data())
                let drained = DispatchSemaphore(value: 0)
                if let errors = child.errors {
                    Thread.detachNewThread {
                        let data = errors.fileHandleForReading.readDataToEndOfFile()
                        errorText.withLock { $0 = data }
                        drained.signal()
                    }
                } else {
                    drained.signal()
                }
                let data = child.output.fileHandleForReading.readDataToEndOfFile()
                drained.wait()
                child.process.waitUntilExit()
                child.exited.store(true, ordering: .releasing)
                continuation.resume(
                    returning: Outcome(
                        status: child.process.terminationStatus,
                        signalled: child.process.terminationReason == .uncaughtSignal, standardOutput: data,
                        errors: String(decoding: errorText.withLock { $0 }, as: UTF8.self)))
            }
        }
    }

    /// Starts `executable` to keep running (a server): standard output is dropped, standard error goes to
    /// `standardError` when given. Stop it with ``Running/stop(grace:)``.
    ///
    /// A child inherits the signal mask of the thread that starts it, and test runners' threads block SIGTERM and
    /// SIGINT: a program that does not take signals itself (as `satchel serve` does) may not end on SIGTERM, and
    /// ``Running/stop(grace:)`` then ends it with SIGKILL once the grace is over.
    public static func start(
        _ executable: URL, _ arguments: [String], standardError: URL? = nil, environment: [String: String] = [:]
    ) throws -> Running {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        }
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        if let standardError {
            _ = FileManager.default.createFile(atPath: standardError.path, contents: nil)
            process.standardError = try FileHandle(forWritingTo: standardError)
        } else {
            process.standardError = FileHandle.nullDevice
        }
        let running = Running(process: process)
        process.terminationHandler = { ended in
            running.ended(status: ended.terminationStatus, signalled: ended.terminationReason == .uncaughtSignal)
        }
        try process.run()
        running.pid = process.processIdentifier
        return running
    }

    /// A process that keeps running until it is stopped, or ends by itself.
    public final class Running: @unchecked Sendable {
        // `process` is touched only to start it; everything after goes through `state`.
        private let process: Process
        private let state = Mutex<State>(State())
        /// Set once, right after the start.
        public fileprivate(set) var pid: pid_t = 0

        private struct State {
            var exit: (status: Int32, signalled: Bool)?
            var waiters: [CheckedContinuation<(status: Int32, signalled: Bool), Never>] = []
        }

        fileprivate init(process: Process) { self.process = process }

        fileprivate func ended(status: Int32, signalled: Bool) {
            let waiters = state.withLock { state in
                state.exit = (status, signalled)
                defer { state.waiters.removeAll() }
                return state.waiters
            }
            for waiter in waiters { waiter.resume(returning: (status, signalled)) }
        }

        public var isRunning: Bool { state.withLock { $0.exit == nil } }

        /// Sends `signal`, if it still runs.
        public func signal(_ signal: Int32) {
            if isRunning { kill(pid, signal) }
        }

        /// Waits until the process has ended: its status, or the signal that ended it.
        @discardableResult
        public func waitForExit() async -> (status: Int32, signalled: Bool) {
            await withCheckedContinuation { continuation in
                let exit = state.withLock { state in
                    if state.exit == nil { state.waiters.append(continuation) }
                    return state.exit
                }
                if let exit { continuation.resume(returning: exit) }
            }
        }

        /// Waits until the process has ended, for at most `limit`; whether it had.
        public func waitForExit(within limit: Duration) async -> Bool {
            let deadline = ContinuousClock.now + limit
            while isRunning && ContinuousClock.now < deadline { try? await Task.sleep(for: .milliseconds(20)) }
            return !isRunning
        }

        /// SIGTERM, then SIGKILL when it has not ended within `grace` (a stalled process ignores SIGTERM); returns
        /// once it has ended.
        public func stop(grace: Duration = .seconds(5)) async {
            signal(SIGTERM)
            if await !waitForExit(within: grace) { signal(SIGKILL) }
            await waitForExit()
        }
    }

    /// The process and its pipes, handed to the waiting thread (used by one thread at a time).
    private final class Box: @unchecked Sendable {
        let process: Process
        let output: Pipe
        let errors: Pipe?
        /// Set once the process has been waited for (a timeout then kills nothing).
        let exited = Atomic<Bool>(false)
        init(process: Process, output: Pipe, errors: Pipe?) {
            self.process = process
            self.output = output
            self.errors = errors
        }
    }
}
