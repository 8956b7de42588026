import Foundation
import SatchelTestSupport
import Testing
import SatchelHTTP

/// The peer launchers themselves: a free port, readiness, stop, and errors that say what went wrong.
@Suite("Live: peer launchers")
struct PeerLauncherTests {
    @Test func startAndStop() async throws {
        let sap = try await MockSAPServer.start(.init(csrf: false, clock: "2026-01-15T09:30"))
        #expect(sap.isRunning)
        #expect(sap.port > 0)
        #expect(sap.baseURL.absoluteString == "http://127.0.0.1:\(sap.port)")
        let health = try await LivePeers.get(sap.baseURL.appendingPathComponent("_mock/health"))
        #expect(health.status == 200)
        #expect(health.text.contains("2026-01-15"))
        #expect(health.text.contains(#""csrf": false"#))
        sap.stop()
        #expect(!sap.isRunning)
        sap.stop()  // twice is fine
    }

    @Test func failingScriptReportsItsOutput() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-peer-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let script = folder.appendingPathComponent("broken.py")
        try Data("import sys\nprint('cannot serve: model missing', file=sys.stderr)\nsys.exit(3)\n".utf8).write(
            to: script)
        do {
            _ = try await ODataPyServer.start(script: script, timeout: .seconds(20))
            Issue.record("a failing script started")
        } catch let error as PeerError {
            #expect(error.message.contains("cannot serve: model missing"))
            #expect(error.message.contains("status 3"))
        }
        do {
            _ = try await ODataPyServer.start(script: folder.appendingPathComponent("missing.py"))
            Issue.record("a missing script started")
        } catch let error as PeerError {
            #expect(error.message.contains("missing.py"))
        }
    }
}
