public import Foundation
import Synchronization

/// The hand-over point between a transport producing body bytes and the task consuming them.
///
/// A transport pushes chunks (``push(_:)`` blocks a producer thread while the buffer is full; ``offer(_:)`` never
/// blocks and asks the producer to pause instead), then calls ``finish(throwing:)``. The consumer awaits
/// ``next()``. At most ``highWater`` bytes wait in between, whatever the producer's speed: that is the
/// backpressure. ``cancel()`` (consumer gone, task cancelled) runs the transport's `onCancel`, which closes the
/// connection, and wakes both sides.
public final class ResponseBodyChannel: @unchecked Sendable {
    // Every stored property is guarded by `condition`.
    private let condition = NSCondition()
    private var chunks: [Data] = []
    private var first = 0
    private var buffered = 0
    private var received: Int64 = 0
    private var finished = false
    private var failure: HTTPTransferError?
    private var cancelled = false
    private var paused = false
    private var waiter: CheckedContinuation<Data?, any Error>?
    private var onCancel: (@Sendable () -> Void)?
    private var onDemand: (@Sendable () -> Void)?
    private var inspector: (@Sendable (Data) -> Void)?
    private var onComplete: (@Sendable () -> Void)?

    /// The most bytes held between producer and consumer.
    public let highWater: Int
    /// The most body bytes accepted in all; more fail with `.responseTooLarge`.
    public let limit: Int64?

    /// A channel holding at most `highWater` bytes (at least one chunk) and accepting at most `limit` in all.
    public init(highWater: Int = 256 * 1024, limit: Int64? = nil) {
        self.highWater = max(1, highWater)
        self.limit = limit
    }

    /// What to run when the consumer gives up: close the connection. Runs at once if that already happened.
    public func setOnCancel(_ handler: @escaping @Sendable () -> Void) {
        condition.lock()
        let runNow = cancelled
        if !runNow { onCancel = handler }
        condition.unlock()
        if runNow { handler() }
    }

    /// What to run when a producer paused by ``offer(_:)`` may go on.
    public func setOnDemand(_ handler: @escaping @Sendable () -> Void) {
        condition.lock()
        onDemand = handler
        condition.unlock()
    }

    /// Runs `inspect` on every chunk, in order, as the producer hands it over (chunks already waiting first), so
    /// that work which must not wait for the consumer — finding a link at the end of a page to ask for the next
    /// page early — sees the bytes as soon as they arrive; then `complete` once the body has arrived whole (not when
    /// it was cut short or cancelled). `inspect` runs on the producer's thread while the channel is locked: it must
    /// be quick and must not call back into the channel. A transport finishes the body once it is done with the
    /// connection: `SocketTransport` has put it back in its pool by the time `complete` runs.
    public func setInspector(
        _ inspect: @escaping @Sendable (Data) -> Void, complete: (@Sendable () -> Void)? = nil
    ) {
        condition.lock()
        guard !cancelled else {
            condition.unlock()
            return
        }
        for chunk in chunks[first...] { inspect(chunk) }
        let completeNow = finished && failure == nil
        if !finished {
            inspector = inspect
            onComplete = complete
        }
        condition.unlock()
        if completeNow { complete?() }
    }

    /// Whether an ``offer(_:)`` producer was asked to pause and has not been resumed yet.
    public var isPaused: Bool {
        condition.lock()
        defer { condition.unlock() }
        return paused
    }

    /// Whether the consumer has given up.
    public var isCancelled: Bool {
        condition.lock()
        defer { condition.unlock() }
        return cancelled
    }

    // MARK: Producer

    /// Hands over a chunk, blocking the calling thread while the buffer is full.
    ///
    /// Throws `.cancelled` once the consumer has given up and `.responseTooLarge` past ``limit``; the producer
    /// then stops and closes the connection.
    public func push(_ data: Data) throws(HTTPTransferError) {
        guard !data.isEmpty else { return }
        condition.lock()
        defer { condition.unlock() }
        try acceptLocked(data)
        while buffered >= highWater, !cancelled { condition.wait() }
        if cancelled { throw Self.cancelledError }
        appendLocked(data)
    }

    /// Hands over a chunk without blocking; returns false when the producer should pause until the `onDemand`
    /// handler runs. Throws as ``push(_:)`` does.
    public func offer(_ data: Data) throws(HTTPTransferError) -> Bool {
        guard !data.isEmpty else { return true }
        condition.lock()
        defer { condition.unlock() }
        try acceptLocked(data)
        appendLocked(data)
        if buffered >= highWater {
            paused = true
            return false
        }
        return true
    }

    private func acceptLocked(_ data: Data) throws(HTTPTransferError) {
        if cancelled { throw Self.cancelledError }
        if let failure { throw failure }
        received += Int64(data.count)
        if let limit, received > limit {
            let error = Self.tooLarge(limit: limit)
            failure = error
            resumeWaiterLocked(.failure(error))
            throw error
        }
    }

    private func appendLocked(_ data: Data) {
        inspector?(data)
        if let waiter {
            self.waiter = nil
            waiter.resume(returning: data)
            return
        }
        chunks.append(data)
        buffered += data.count
    }

    /// Ends the body: `nil` when it is complete, the error that cut it short otherwise. Later calls do nothing.
    public func finish(throwing error: HTTPTransferError? = nil) {
        condition.lock()
        guard !finished else {
            condition.unlock()
            return
        }
        finished = true
        if let error, failure == nil { failure = error }
        onCancel = nil
        onDemand = nil
        inspector = nil
        let complete = failure == nil && !cancelled ? onComplete : nil
        onComplete = nil
        if first == chunks.count {
            if let failure {
                resumeWaiterLocked(.failure(failure))
            } else {
                resumeWaiterLocked(.success(nil))
            }
        }
        condition.broadcast()
        condition.unlock()
        complete?()
    }

    // MARK: Consumer

    /// The next chunk; nil at the end of a complete body.
    public func next() async throws -> Data? {
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Data?, any Error>) in
                condition.lock()
                if first < chunks.count {
                    let chunk = chunks[first]
                    first += 1
                    buffered -= chunk.count
                    if first == chunks.count {
                        chunks.removeAll(keepingCapacity: true)
                        first = 0
                    }
                    condition.broadcast()
                    let demand = takeDemandLocked()
                    condition.unlock()
                    demand?()
                    continuation.resume(returning: chunk)
                    return
                }
                if cancelled {
                    condition.unlock()
                    continuation.resume(throwing: Self.cancelledError)
                } else if let failure {
                    condition.unlock()
                    continuation.resume(throwing: failure)
                } else if finished {
                    condition.unlock()
                    continuation.resume(returning: nil)
                } else {
                    waiter = continuation
                    let demand = takeDemandLocked()
                    condition.unlock()
                    demand?()
                }
            }
        } onCancel: {
            cancel()
        }
    }

    /// The paused producer's resume handler, when the buffer has drained enough.
    private func takeDemandLocked() -> (@Sendable () -> Void)? {
        guard paused, buffered < highWater / 2 || first == chunks.count else { return nil }
        paused = false
        return onDemand
    }

    private func resumeWaiterLocked(_ result: Result<Data?, HTTPTransferError>) {
        guard let waiter else { return }
        self.waiter = nil
        waiter.resume(with: result.mapError { $0 as any Error })
    }

    /// The consumer gives up: drops what is buffered, closes the connection, wakes everyone.
    public func cancel() {
        condition.lock()
        guard !cancelled, !finished || first < chunks.count else {
            condition.unlock()
            return
        }
        cancelled = true
        chunks.removeAll()
        first = 0
        buffered = 0
        let handler = onCancel
        onCancel = nil
        onDemand = nil
        inspector = nil
        onComplete = nil
        resumeWaiterLocked(.failure(Self.cancelledError))
        condition.broadcast()
        condition.unlock()
        handler?()
    }

    static var cancelledError: HTTPTransferError { HTTPTransferError(.cancelled, "the response body was cancelled") }

    static func tooLarge(limit: Int64) -> HTTPTransferError {
        HTTPTransferError(
            .responseTooLarge, "the response body is larger than the \(limit) bytes allowed for this stream")
    }
}

/// Resumes a transport's waiting caller once: with the head when it arrives, or with the failure before it.
final class HeadDelivery: Sendable {
    private let continuation = Mutex<CheckedContinuation<TransportResponse, any Error>?>(nil)
    func attach(_ continuation: CheckedContinuation<TransportResponse, any Error>) {
        self.continuation.withLock { $0 = continuation }
    }

    /// False when the caller had already been resumed.
    @discardableResult
    func resume(_ result: Result<TransportResponse, any Error>) -> Bool {
        let waiting = continuation.withLock { state -> CheckedContinuation<TransportResponse, any Error>? in
            defer { state = nil }
            return state
        }
        guard let waiting else { return false }
        waiting.resume(with: result)
        return true
    }
}
