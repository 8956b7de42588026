import Foundation
import SatchelOData
import Synchronization

/// A step of an open, download or upload, as SAP's offline store reports them.
public enum OfflineProgress: Sendable, Hashable {
    /// Reading `$metadata` (first open).
    case loadingMetadata
    /// Receiving a store built by the middle tier (first open through it); ``bytes(received:sent:)`` follows it.
    case receivingStore
    /// Sealing the received store's pages under the store's own key.
    case resealing
    /// Starting defining query `index` (1-based) of `count`.
    case definingQuery(name: String, index: Int, count: Int)
    /// Entities received so far for a defining query.
    case received(definingQuery: String, entities: Int)
    /// Requests processed so far in an upload, of the requests it found queued.
    case processedRequests(done: Int, of: Int)
    /// Payload bytes so far in this download or upload: pages and media content received, request bodies and
    /// content sent.
    case bytes(received: Int, sent: Int)
    /// The exchange ended (successfully or not).
    case finished
}

/// The subscribers of a store's progress and its cancel flag.
final class OfflineSignals: Sendable {
    private let subscribers = Mutex<[UUID: AsyncStream<OfflineProgress>.Continuation]>([:])
    private let cancelled = Atomic<Bool>(false)
    private let bytes = Mutex((received: 0, sent: 0))

    /// Counts payload bytes of the running exchange and reports the totals.
    func count(received: Int = 0, sent: Int = 0) {
        let totals = bytes.withLock { totals in
            totals.received += received
            totals.sent += sent
            return totals
        }
        emit(.bytes(received: totals.received, sent: totals.sent))
    }

    func stream() -> AsyncStream<OfflineProgress> {
        let id = UUID()
        let (stream, continuation) = AsyncStream<OfflineProgress>.makeStream(bufferingPolicy: .bufferingNewest(256))
        subscribers.withLock { $0[id] = continuation }
        continuation.onTermination = { [weak self] _ in self?.subscribers.withLock { _ = $0.removeValue(forKey: id) } }
        return stream
    }

    func emit(_ step: OfflineProgress) {
        for continuation in subscribers.withLock({ Array($0.values) }) { continuation.yield(step) }
    }

    func requestCancel() { cancelled.store(true, ordering: .relaxed) }
    func reset() {
        cancelled.store(false, ordering: .relaxed)
        bytes.withLock { $0 = (0, 0) }
    }

    /// Throws `CancellationError` when ``OfflineStore/cancel()`` was called during this exchange, or the task was
    /// cancelled.
    func check() throws {
        if cancelled.load(ordering: .relaxed) { throw CancellationError() }
        try Task.checkCancellation()
    }
}

extension OfflineStore {
    /// The steps of every open, download and upload from now on, until the stream is dropped.
    ///
    /// ```swift
    /// Task { for await step in store.progress() { print(step) } }
    /// try await store.download()
    /// ```
    public func progress() -> AsyncStream<OfflineProgress> { signals.stream() }

    /// Stops the running download or upload at the next page or request: it throws `CancellationError`. What was
    /// stored or sent stays; the next download or upload goes on from there.
    public func cancel() { signals.requestCancel() }
}
