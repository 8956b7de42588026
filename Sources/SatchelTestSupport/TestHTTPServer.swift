public import Foundation
public import Hummingbird
import Logging
import NIOCore
import Synchronization

/// A real HTTP server on `127.0.0.1`, on a port the system picks, for tests and benchmarks.
///
/// ```swift
/// let server = try await TestHTTPServer.start { router in
///     router.get("/hello") { _, _ in "hi" }
/// }
/// defer { Task { await server.stop() } }
/// let url = server.url("/hello")
/// ```
public final class TestHTTPServer: Sendable {
    public let port: Int
    private let task: Task<Void, any Error>

    private init(port: Int, task: Task<Void, any Error>) {
        self.port = port
        self.task = task
    }

    public var baseURL: URL { URL(string: "http://127.0.0.1:\(port)")! }

    public func url(_ pathAndQuery: String) -> URL { URL(string: "http://127.0.0.1:\(port)\(pathAndQuery)")! }

    /// Starts a server with the routes `configure` adds; returns once it accepts connections.
    public static func start(
        configure: (Router<BasicRequestContext>) -> Void
    ) async throws -> TestHTTPServer {
        let router = Router()
        configure(router)
        let (ports, continuation) = AsyncStream.makeStream(of: Int.self)
        var logger = Logger(label: "satchel.test-server")
        logger.logLevel = .critical
        let app = Application(
            router: router,
            configuration: .init(address: .hostname("127.0.0.1", port: 0), serverName: "SatchelTestServer"),
            onServerRunning: { channel in
                continuation.yield(channel.localAddress?.port ?? 0)
                continuation.finish()
            },
            logger: logger
        )
        let task = Task { try await app.run() }
        var iterator = ports.makeAsyncIterator()
        guard let port = await iterator.next(), port > 0 else {
            task.cancel()
            throw TestServerError("the test HTTP server did not start: \(String(describing: await task.result))")
        }
        return TestHTTPServer(port: port, task: task)
    }

    public func stop() async {
        task.cancel()
        _ = await task.result
    }
}

public struct TestServerError: Error, CustomStringConvertible {
    public let description: String
    public init(_ description: String) { self.description = description }
}
