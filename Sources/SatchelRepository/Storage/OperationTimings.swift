public import Foundation
import Synchronization

/// Where a store tells how long its operations take: a metadata store its round trips, a ``BlobStore`` its
/// back-end's calls and the uploads it received. Nobody is told until someone observes (``observe(_:)``), and then
/// an operation costs two clock reads more.
public final class OperationTimings: Sendable {
    /// One operation: its name (`read`, `write`, `store`, `remove`, …), how long it took, the bytes it carried
    /// when that is known, and whether it failed.
    public struct Event: Sendable, Hashable {
        /// What was done.
        public var operation: String
        /// How long it took.
        public var duration: Duration
        /// The bytes it carried, when known.
        public var bytes: Int64?
        /// Whether it failed.
        public var failed: Bool
    }

    private let observer = Mutex<(@Sendable (Event) -> Void)?>(nil)

    /// Nobody observes yet.
    public init() {}

    /// Calls `handler` after each operation from now on (replacing an earlier observer).
    public func observe(_ handler: @escaping @Sendable (Event) -> Void) {
        observer.withLock { $0 = handler }
    }

    /// Runs `body`, timed as `operation` when someone observes.
    package func measure<T, Failure: Error>(
        _ operation: String, bytes: Int64? = nil, _ body: () async throws(Failure) -> T
    ) async throws(Failure) -> T {
        guard let handler = observer.withLock({ $0 }) else { return try await body() }
        let start = ContinuousClock.now
        do {
            let result = try await body()
            handler(Event(operation: operation, duration: .now - start, bytes: bytes, failed: false))
            return result
        } catch {
            handler(Event(operation: operation, duration: .now - start, bytes: bytes, failed: true))
            throw error
        }
    }

    /// `measure` for synchronous work.
    package func measureNow<T, Failure: Error>(
        _ operation: String, _ body: () throws(Failure) -> T
    ) throws(Failure) -> T {
        guard let handler = observer.withLock({ $0 }) else { return try body() }
        let start = ContinuousClock.now
        do {
            let result = try body()
            handler(Event(operation: operation, duration: .now - start, bytes: nil, failed: false))
            return result
        } catch {
            handler(Event(operation: operation, duration: .now - start, bytes: nil, failed: true))
            throw error
        }
    }

    /// Reports an operation that was timed elsewhere.
    package func record(_ event: Event) {
        observer.withLock({ $0 })?(event)
    }
}

/// A metadata store that tells how long its round trips take (SQLite and PostgreSQL).
public protocol TimedStore: Sendable {
    /// Where its round trips are reported: `read` and `write` (PostgreSQL: `query` for one statement outside a
    /// transaction, `transaction` for a whole one).
    var timings: OperationTimings { get }
}

/// A ``BlobBackend`` whose every call is reported to `timings` (`store` with the blob's bytes, `open` for the start
/// of a read, `lastWritten`, `remove`, `list`, `check`).
struct TimedBlobBackend: BlobBackend {
    let base: any BlobBackend
    let timings: OperationTimings

    var location: String { base.location }
    var partSize: Int64? { base.partSize }

    func store(_ file: URL, as reference: BlobReference, partDigests: [String]) async throws(BlobStoreError) {
        try await timings.measure("store", bytes: reference.length) { () async throws(BlobStoreError) in
            try await base.store(file, as: reference, partDigests: partDigests)
        }
    }

    func read(
        _ blob: BlobReference, range: ClosedRange<Int64>?
    ) async throws(BlobStoreError) -> AsyncThrowingStream<[UInt8], any Error> {
        try await timings.measure("open") { () async throws(BlobStoreError) in try await base.read(blob, range: range) }
    }

    func lastWritten(_ hash: String) async throws(BlobStoreError) -> Date? {
        try await timings.measure("lastWritten") { () async throws(BlobStoreError) in try await base.lastWritten(hash) }
    }

    func remove(_ hash: String) async throws(BlobStoreError) {
        try await timings.measure("remove") { () async throws(BlobStoreError) in try await base.remove(hash) }
    }

    func list() async throws(BlobStoreError) -> [BlobListing] {
        try await timings.measure("list") { () async throws(BlobStoreError) in try await base.list() }
    }

    func checkAvailable() async throws(BlobStoreError) {
        try await timings.measure("check") { () async throws(BlobStoreError) in try await base.checkAvailable() }
    }

    func localFile(for hash: String) -> URL? { base.localFile(for: hash) }
}
