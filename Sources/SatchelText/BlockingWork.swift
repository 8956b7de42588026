import Dispatch

/// Where Satchel runs work that blocks a thread — `fsync`, file copies and hashing, synchronous SQLite calls,
/// closing a database — so that it never holds one of the concurrency pool's few threads (as many as the machine
/// has cores): a task awaits ``run(_:)`` and its thread goes back to the pool while dispatch threads do the work.
///
/// ``shared`` runs jobs side by side; a queue made with ``init(label:)`` runs its jobs one at a time, in order
/// (what an actor's serialisation gave, without running on the pool).
package struct BlockingWork: Sendable {
    private let queue: DispatchQueue

    /// Jobs run side by side on dispatch's global threads.
    package static let shared = BlockingWork(queue: .global(qos: .userInitiated))

    /// A queue whose jobs run one at a time, in the order they were given.
    package init(label: String) {
        queue = DispatchQueue(label: label, qos: .userInitiated)
    }

    private init(queue: DispatchQueue) { self.queue = queue }

    /// Runs `body` on the queue and returns its result; the awaiting task holds no thread meanwhile.
    package func run<T: Sendable, E: Error>(_ body: @escaping @Sendable () throws(E) -> T) async throws(E) -> T {
        let result: Result<T, E> = await withCheckedContinuation { continuation in
            queue.async { continuation.resume(returning: Result(catching: body)) }
        }
        return try result.get()
    }

    /// ``run(_:)`` for a value that is not `Sendable` but is used by one task at a time: the task hands it to the
    /// job and waits for the job to end, so no two threads touch it at once.
    package func run<Value, T: Sendable, E: Error>(
        handing value: Value, _ body: @escaping @Sendable (Value) throws(E) -> T
    ) async throws(E) -> T {
        let handed = Handed(value: value)
        return try await run { () throws(E) -> T in try body(handed.value) }
    }

    private struct Handed<Value>: @unchecked Sendable {
        let value: Value
    }
}
