import SatchelHTTP
import Synchronization
import SatchelText

/// Shows a command's transfer progress on standard error: a bar on a terminal, plain lines otherwise.
///
/// Progress arrives on URLSession's queue; the lock keeps lines whole. An upload followed by its response's
/// download gets one line each.
final class ProgressDisplay: Sendable {
    private struct State {
        var renderer: ProgressRenderer?
        var direction: TransferProgress.Direction?
        var last: TransferProgress?
    }

    private let style: ProgressRenderer.Style
    private let origin = ContinuousClock.now
    private let state = Mutex(State())

    /// A display, or nil with `--quiet`.
    init?(quiet: Bool) {
        guard !quiet else { return nil }
        style = Terminal.standardErrorIsTerminal ? .bar : .plain
    }

    func report(_ progress: TransferProgress) {
        let now = seconds()
        state.withLock { state in
            if state.direction != progress.direction {
                Self.finish(&state, at: now)
                state.direction = progress.direction
                state.renderer = ProgressRenderer(
                    style: style, label: progress.direction == .upload ? "upload" : "progress")
            }
            state.last = progress
            if let text = state.renderer?.update(bytes: progress.bytesDone, total: progress.totalBytes, at: now) {
                Terminal.writeError(text)
            }
        }
    }

    /// Writes the closing line of a transfer that succeeded.
    func finish() {
        let now = seconds()
        state.withLock { Self.finish(&$0, at: now) }
    }

    /// Ends a half-drawn bar so that the error message that follows starts on its own line.
    func abandon() {
        state.withLock { state in
            if let text = state.renderer?.interrupt() { Terminal.writeError(text) }
            state.renderer = nil
        }
    }

    private static func finish(_ state: inout State, at time: Double) {
        if let last = state.last,
            let text = state.renderer?.finish(bytes: last.bytesDone, total: last.totalBytes, at: time)
        {
            Terminal.writeError(text)
        }
        state.renderer = nil
        state.last = nil
    }

    private func seconds() -> Double { (ContinuousClock.now - origin).timeInterval }
}
