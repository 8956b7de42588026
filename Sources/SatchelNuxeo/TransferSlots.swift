/// At most `limit` transfers at once; the others wait their turn in order, and a waiting task that is cancelled
/// leaves the queue at once with `CancellationError`.
actor TransferSlots {
    let limit: Int
    private var used = 0
    private var waiting: [(id: Int, continuation: CheckedContinuation<Void, any Error>)] = []
    private var nextID = 0

    init(limit: Int) { self.limit = max(1, limit) }

    /// Runs `body` in a slot.
    func run<T: Sendable>(_ body: @Sendable () async throws -> T) async throws -> T {
        try await acquire()
        do {
            let result = try await body()
            release()
            return result
        } catch {
            release()
            throw error
        }
    }

    private func acquire() async throws {
        try Task.checkCancellation()
        if used < limit {
            used += 1
            return
        }
        nextID += 1
        let id = nextID
        try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in waiting.append((id, continuation)) }
        } onCancel: {
            Task { await self.cancel(id) }
        }
    }

    private func cancel(_ id: Int) {
        guard let index = waiting.firstIndex(where: { $0.id == id }) else { return }
        waiting.remove(at: index).continuation.resume(throwing: CancellationError())
    }

    /// Hands the slot to the first waiting task, or frees it.
    private func release() {
        if waiting.isEmpty {
            used -= 1
        } else {
            waiting.removeFirst().continuation.resume()
        }
    }
}
