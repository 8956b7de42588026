import Foundation
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelTestSupport
import Synchronization
import Testing

/// Progress steps of a download and an upload, and cancelling an upload half way.
@Suite("Offline store: progress and cancel")
struct ProgressTests {
    final class Steps: Sendable {
        private let value = Mutex<[OfflineProgress]>([])
        func withLock<R>(_ body: (inout [OfflineProgress]) -> R) -> R { value.withLock { body(&$0) } }
    }

    @Test func progressThenCancel() async throws {
        let server = try await ODataPyServer.start(maxPageSize: 20, repeatable: true, timeout: .seconds(60))
        defer { server.stop() }
        let proxy = try FaultyTCPProxy(upstreamPort: server.port)
        defer { proxy.stop() }
        let folder = try offlineTestFolder("progress")
        defer { try? FileManager.default.removeItem(at: folder) }
        let store = offlineTestStore(
            serviceURL: proxy.url.appendingPathComponent("odata"), folder: folder,
            queries: [.init(name: "a", query: "Products?$filter=ID le 50"), .init(name: "b", query: "Categories")],
            upload: .batch(maximumRequests: 2))
        let steps = Steps()
        let stream = store.progress()
        let collector = Task { for await step in stream { steps.withLock { $0.append(step) } } }
        /// Waits (at most 5 s) until the collector has received what `done` looks for.
        func settle(_ done: ([OfflineProgress]) -> Bool) async throws {
            for _ in 0..<100 where !steps.withLock({ done($0) }) { try await Task.sleep(for: .milliseconds(50)) }
        }
        try await store.open()
        try await settle { $0.last == .finished }
        let opening = steps.withLock { $0 }
        #expect(opening.first == .loadingMetadata)
        #expect(opening.contains(.definingQuery(name: "a", index: 1, count: 2)))
        #expect(opening.contains(.definingQuery(name: "b", index: 2, count: 2)))
        #expect(opening.contains(.received(definingQuery: "a", entities: 50)))
        #expect(opening.last == .finished)
        // Bytes received grow with every page and nothing is sent.
        let received = opening.compactMap { step -> (Int, Int)? in
            if case .bytes(let received, let sent) = step { return (received, sent) }
            return nil
        }
        #expect(received.count >= 4, "a step per page")
        #expect(zip(received, received.dropFirst()).allSatisfy { $0.0 < $1.0 } && received.allSatisfy { $0.1 == 0 })
        #expect((received.last?.0 ?? 0) > 5_000, "\(received)")

        // Six changes, sent slowly in batches of two; cancelled after the first batch or two.
        for id in 1...6 {
            try await store.update(
                "Products", .key(.single(.int(id))), with: ODataEntity(properties: ["Stock": .int(Int64(900 + id))]))
        }
        steps.withLock { $0.removeAll() }
        proxy.setFaults(.init(latency: .milliseconds(150)))
        let upload = Task { try await store.upload() }
        try await Task.sleep(for: .milliseconds(700))
        store.cancel()
        await #expect(throws: CancellationError.self) { try await upload.value }
        let left = try await store.requests().count
        #expect(left > 0 && left < 6 && left % 2 == 0, "\(left) requests left")
        proxy.setFaults(.init())
        let rest = try await store.upload()
        #expect(rest.sent == left)
        try await settle { $0.contains(.processedRequests(done: left, of: left)) }
        let uploading = steps.withLock { $0 }
        #expect(uploading.contains(.processedRequests(done: 0, of: 6)))
        #expect(uploading.contains(.processedRequests(done: left, of: left)))
        // Each change's body (`{"Stock":90x}`) counted as sent.
        let sent = uploading.compactMap { step -> Int? in
            if case .bytes(_, let sent) = step { return sent }
            return nil
        }
        #expect(sent.last == left * #"{"Stock":901}"#.utf8.count, "\(sent)")
        collector.cancel()
        try await store.close()
    }
}
