import Synchronization
import Dispatch

/// Runs a command's work so that Ctrl-C cancels it cleanly.
///
/// The first SIGINT cancels the task: SatchelHTTP stops the request and removes partial downloads, and the
/// command exits 130. A second SIGINT exits at once, for when cleanup itself hangs.
enum Interrupts {
    static func cancellingOnInterrupt(_ work: @escaping @Sendable () async throws -> Void) async throws {
        let task = Task { try await work() }
        let interrupts = Mutex(0)
        let source = Terminal.onInterrupt {
            let count = interrupts.withLock {
                $0 += 1
                return $0
            }
            if count > 1 { Terminal.exit(.cancelled) }
            task.cancel()
        }
        defer { source.cancel() }
        do {
            try await task.value
        } catch {
            // Whatever the work threw while being cancelled, the person asked for it to stop.
            if interrupts.withLock({ $0 }) > 0 { throw CLIError(.cancelled, "cancelled") }
            throw error
        }
    }
}
