import Synchronization

/// How far a transfer has come.
public struct TransferProgress: Sendable, Hashable, CustomStringConvertible {
    /// Which way the bytes move.
    public enum Direction: Sendable, Hashable {
        /// The request body going out.
        case upload
        /// The response body coming in.
        case download
    }

    /// Which way the bytes move.
    public var direction: Direction
    /// Bytes moved so far in this direction.
    public var bytesDone: Int64
    /// The expected total, when the server or the body told it.
    public var totalBytes: Int64?

    /// Progress of the given values.
    public init(direction: Direction, bytesDone: Int64, totalBytes: Int64?) {
        self.direction = direction
        self.bytesDone = bytesDone
        self.totalBytes = totalBytes
    }

    /// Between 0 and 1, when the total is known.
    public var fraction: Double? {
        guard let totalBytes, totalBytes > 0 else { return nil }
        return min(1, Double(bytesDone) / Double(totalBytes))
    }

    /// `sent 1024 of 4096 bytes`, `received 1024 bytes`.
    public var description: String {
        let total = totalBytes.map { " of \($0)" } ?? ""
        return "\(direction == .upload ? "sent" : "received") \(bytesDone)\(total) bytes"
    }
}

/// Collects progress from a transport and hands it on, coalesced, to one consumer.
///
/// Transports call ``sent(_:of:)`` and ``received(_:of:)`` as often as they like; the handler runs at most once
/// per `granularity` bytes, plus once at the end of each direction, so a 1 GiB transfer does not produce
/// 65,536 callbacks.
public final class ProgressReporter: Sendable {
    private struct State {
        var lastReported: [TransferProgress.Direction: Int64] = [:]
    }

    private let handler: @Sendable (TransferProgress) -> Void
    private let granularity: Int64
    private let state = Mutex(State())

    /// A reporter calling `handler` at most once per `granularity` bytes (256 KiB by default) in each direction, and
    /// once when a direction reaches its total.
    public init(granularity: Int64 = 256 * 1024, handler: @escaping @Sendable (TransferProgress) -> Void) {
        self.granularity = granularity
        self.handler = handler
    }

    /// Reports `bytes` of the request body sent so far.
    public func sent(_ bytes: Int64, of total: Int64?) { report(.upload, bytes, total) }
    /// Reports `bytes` of the response body received so far.
    public func received(_ bytes: Int64, of total: Int64?) { report(.download, bytes, total) }

    private func report(_ direction: TransferProgress.Direction, _ bytes: Int64, _ total: Int64?) {
        let shouldReport = state.withLock { state -> Bool in
            let last = state.lastReported[direction] ?? -1
            let finished = total.map { bytes >= $0 } ?? false
            guard bytes != last, bytes - last >= granularity || finished || last < 0 else { return false }
            state.lastReported[direction] = bytes
            return true
        }
        if shouldReport { handler(TransferProgress(direction: direction, bytesDone: bytes, totalBytes: total)) }
    }
}
