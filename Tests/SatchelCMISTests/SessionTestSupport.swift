import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServerTestSupport
import SatchelTestSupport
import Synchronization

/// Starts a `satchel serve` (user `alice`, password `pw-alice`), connects a session to alice's MyDocuments over the
/// Browser binding with its requests recorded, runs `body`, stops the server. `sqlite`: a store that survives a
/// ``LiveServer/restart()``.
func withCMISSession(
    tokenHeader: String? = "X-CSRF-Token", pageSize: Int = 100, sqlite: Bool = false,
    _ body: (LiveServer, RecordingTransport, CMISSession) async throws -> Void
) async throws {
    let server = try await LiveServer.start(users: ["alice"], sqlite: sqlite)
    do {
        let recorder = RecordingTransport()
        let session = try await CMISSession.connect(
            SessionParameters(
                url: server.baseURL.appendingPathComponent("cmis/browser"), preferMyDocuments: true,
                auth: [BasicAuth(user: "alice", password: "pw-alice")], tokenHeader: tokenHeader, pageSize: pageSize,
                transport: recorder))
        try await body(server, recorder, session)
    } catch {
        await server.stop()
        throw error
    }
    await server.stop()
}

extension RecordingTransport {
    /// GET requests with this `cmisselector`.
    func selectorCount(_ selector: String) -> Int {
        count { $0.method == .get && $0.query("cmisselector") == selector }
    }
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
