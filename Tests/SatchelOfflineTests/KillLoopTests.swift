import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelTestSupport
import Testing

/// A real process changes an offline store and uploads, and is killed with SIGKILL at random moments (including
/// after the server applied a request and before the store recorded it). Against a server that honours
/// repeatable requests: nothing queued is lost, nothing is applied twice, the repeats are answered.
@Suite("Offline store: killed while changing and uploading")
struct KillLoopTests {
    static let writer = BuiltExecutable.find("satchel-offline-crash-writer")

    @Test("100 kills: every queued creation reaches the server exactly once")
    func killedWhileUploading() async throws {
        let writer = try #require(
            Self.writer, "satchel-offline-crash-writer was not built next to the tests (swift build --build-tests)")
        let server = try await ODataPyServer.start(maxPageSize: 50, repeatable: true, timeout: .seconds(60))
        defer { server.stop() }
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-offline-kill-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let path = folder.appendingPathComponent("kill.store").path

        var queued = Set<Int>()
        var updated = Set<Int>()
        var kills = 0
        let deadline = ContinuousClock.now + .seconds(180)
        while kills < 100 {
            guard ContinuousClock.now < deadline else {
                Issue.record("only \(kills) kills within 180 s")
                break
            }
            let run = try await ChildProcess.run(
                writer, [server.serviceURL.absoluteString, path], killAfter: .milliseconds(Int.random(in: 80...400)))
            #expect(run.signalled, "the writer stopped by itself")
            for line in run.output.split(separator: "\n") {
                if line.hasPrefix("queued "), let id = Int(line.dropFirst(7)) { queued.insert(id) }
                if line.hasPrefix("updated "), let id = Int(line.dropFirst(8)) { updated.insert(id) }
            }
            kills += 1
        }

        // Finish the upload in this process, then compare the store, the server and what was reported.
        let service = ODataService(
            configuration: .init(serviceURL: server.serviceURL, http: HTTPClient.Configuration(retry: .never)))
        let store = OfflineStore(
            configuration: .init(
                service: service, path: path,
                definingQueries: [.init(name: "mine", query: "Products?$filter=ID ge 100000")],
                key: try StoreKey.raw(Data(repeating: 5, count: 32))))
        try await store.open()
        let final = try await store.upload()
        #expect(final.failed == 0)
        let errors = try await store.errors()
        #expect(errors.isEmpty, "\(errors)")
        #expect(try await store.requests().isEmpty)
        let local = Set(
            try await store.entities("Products", query: ODataQuery().filter(.property("ID") >= 100_000))
                .compactMap { $0["ID"]?.intValue.map(Int.init) })
        try await store.close()
        let online = try await service.entities(
            "Products", query: ODataQuery().filter(.property("ID") >= 100_000)
        ).collect()
        let onServer = online.compactMap { $0["ID"]?.intValue.map(Int.init) }
        #expect(onServer.count == Set(onServer).count)
        #expect(Set(onServer) == local, "server and store differ")
        #expect(queued.isSubset(of: local), "lost: \(queued.subtracting(local).sorted())")
        #expect(queued.count > 20)
        // Every change reported committed reached the server too.
        for product in online where updated.contains(Int(product["ID"]?.intValue ?? 0)) {
            #expect(product["Stock"]?.intValue == product["ID"]?.intValue)
        }
        #expect(!updated.isEmpty)
        // The server saw repeats (requests sent again after a kill) and answered them without applying them again.
        let counts = try await server.repeatability()
        #expect(counts.replayed > 0, "\(counts)")
        #expect(try StoreFile(path: path).check(key: try StoreKey.raw(Data(repeating: 5, count: 32))).isSound)
    }
}
