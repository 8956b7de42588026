extension AsyncThrowingStream where Failure == any Error {
    /// A stream fed by `produce` in a task of its own: finished when `produce` returns, with its error when it throws,
    /// and the task cancelled when the consumer stops listening.
    package static func producing(
        _ produce: @escaping @Sendable (Continuation) async throws -> Void
    ) -> AsyncThrowingStream where Element: Sendable {
        let (stream, continuation) = makeStream(of: Element.self)
        let task = Task {
            do {
                try await produce(continuation)
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return stream
    }
}
