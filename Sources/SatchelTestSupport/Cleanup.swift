/// Runs `body`, then `cleanup`, and waits for the cleanup whether `body` returned or threw: what a test needs
/// around a server or a process it started, where `defer { Task { await server.stop() } }` would leave the stop
/// running after the test (nobody awaits that task), racing the next test for ports, files and threads.
///
/// A body whose only `try` sits inside `#expect(...)` is not seen to throw (the macro's expansion comes later):
/// write its closure `{ () async throws in … }`, as the suite does everywhere.
///
/// ```swift
/// let server = try await LiveServer.start(users: ["alice"])
/// try await withCleanup { () async throws in
///     let session = try await CMISSession.connect(parameters(for: server))
///     #expect(session.repositoryInfo.id == "shared")
/// } cleanup: {
///     await server.stop()
/// }
/// ```
public func withCleanup<Result>(
    _ body: () async throws -> Result, cleanup: () async -> Void
) async throws -> Result {
    let result: Result
    do {
        result = try await body()
    } catch {
        await cleanup()
        throw error
    }
    await cleanup()
    return result
}
