import Foundation
import Synchronization
import Testing

@testable import SatchelNuxeo
import SatchelHTTP

/// The shared configuration file (where the server is, never who you are) and the bounded download queue.
@Suite("Nuxeo session configuration and transfers")
struct SessionConfigurationTests {
    static func file(_ text: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory.appendingPathComponent("nuxeo-\(UUID().uuidString).json")
        try Data(text.utf8).write(to: url)
        return url
    }

    @Test("a shared configuration file: read, and refused with the reason when it holds credentials or nonsense")
    func configurationFile() throws {
        let good = try Self.file(
            """
            {"url": "https://nuxeo.example.com/nuxeo", "repository": "archive", "apiPrefix": "api/v1",
             "schemas": ["dublincore"], "headers": {"enrichers-document": "acls"}, "timeoutSeconds": 12}
            """)
        defer { try? FileManager.default.removeItem(at: good) }
        let configuration = try NuxeoSession.Configuration(file: good)
        #expect(configuration.serverURL.absoluteString == "https://nuxeo.example.com/nuxeo")
        #expect(configuration.repository == "archive" && configuration.schemas == ["dublincore"])
        #expect(configuration.headers["enrichers-document"] == "acls")
        #expect(configuration.http.timeout == .seconds(12))
        for (text, reason) in [
            (#"{"url": "https://h/nuxeo", "password": "x"}"#, "password"),
            (#"{"url": "https://h/nuxeo", "apiToken": "x"}"#, "apiToken"),
            (#"{"url": "https://h/nuxeo", "headers": {"Authorization": "Basic eA=="}}"#, "Authorization"),
            (#"{"repository": "default"}"#, "url"),
            (#"{"url": "not a url"}"#, "url"),
            (#"{"url": "https://h/nuxeo", "colour": "blue"}"#, "colour"),
            (#"{"url": "https://h/nuxeo", "timeoutSeconds": -1}"#, "timeoutSeconds"),
            ("[1, 2]", "object"),
            ("{", "JSON"),
        ] {
            let file = try Self.file(text)
            defer { try? FileManager.default.removeItem(at: file) }
            let error = #expect(throws: NuxeoError.self) { try NuxeoSession.Configuration(file: file) }
            #expect(
                error?.code == .configuration && error?.message.contains(reason) == true,
                "\(text): \(String(describing: error))")
        }
    }

    @Test("the download queue: at most the limit at once, in order, and a waiting task cancelled leaves at once")
    func transferSlots() async throws {
        let slots = TransferSlots(limit: 2)
        let meter = Meter()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<8 {
                group.addTask {
                    try await slots.run {
                        meter.enter()
                        try await Task.sleep(for: .milliseconds(20))
                        meter.leave()
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(meter.peak == 2)

        let blocker = Task { try await slots.run { try await Task.sleep(for: .seconds(30)) } }
        let second = Task { try await slots.run { try await Task.sleep(for: .seconds(30)) } }
        try await Task.sleep(for: .milliseconds(50))
        let waiting = Task { try await slots.run { 42 } }
        try await Task.sleep(for: .milliseconds(50))
        let started = ContinuousClock.now
        waiting.cancel()
        await #expect(throws: CancellationError.self) { _ = try await waiting.value }
        #expect(ContinuousClock.now - started < .seconds(5))
        blocker.cancel()
        second.cancel()
        _ = try? await blocker.value
        _ = try? await second.value
        #expect(try await slots.run { 7 } == 7, "slots come back after cancellations")
    }
}

final class Meter: Sendable {
    private let state = Mutex<(now: Int, peak: Int)>((0, 0))
    func enter() {
        state.withLock {
            $0.now += 1; $0.peak = max($0.peak, $0.now)
        }
    }
    func leave() { state.withLock { $0.now -= 1 } }
    var peak: Int { state.withLock { $0.peak } }
}
