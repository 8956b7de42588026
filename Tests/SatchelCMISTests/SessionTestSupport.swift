import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelTestSupport
import Synchronization

/// Starts a ``CMISTestServer`` with Basic auth and a token, connects a session, runs `body`, stops the server.
func withCMISSession(
    token: String? = "token-1", tokenAuth: HeaderTokenAuth? = HeaderTokenAuth(), pageSize: Int = 100,
    _ body: (CMISTestServer, CMISSession) async throws -> Void
) async throws {
    let server = try await CMISTestServer.start(
        .init(user: "alice", password: "s3cret", token: token, myDocuments: "root"))
    do {
        let session = try await CMISSession.connect(
            SessionParameters(
                url: server.serviceURL, auth: [BasicAuth(user: "alice", password: "s3cret")], tokenAuth: tokenAuth,
                pageSize: pageSize))
        try await body(server, session)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

/// Collects values from `@Sendable` callbacks.
final class Collector<Value: Sendable>: Sendable {
    private let storage = Mutex<[Value]>([])
    func add(_ value: Value) { storage.withLock { $0.append(value) } }
    var values: [Value] { storage.withLock { $0 } }
}

/// A temporary file path, removed by the caller.
func temporaryFile(_ name: String = UUID().uuidString) -> URL {
    FileManager.default.temporaryDirectory.appendingPathComponent("satchel-cmis-\(UUID().uuidString)-\(name)")
}
