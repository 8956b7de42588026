import Foundation
import SatchelHTTP
import SatchelTestSupport
import Synchronization
import Testing

/// The exchanges every transport must get right against the standard test server, for the suites of the
/// transports that are not the default one (URLSession, NIO).
enum TransportExchanges {
    static let names = ["redirect+cookies", "json", "upload", "download", "range", "status", "timeout", "cancel"]

    /// Runs exchange `name` through `client`. `prompt`: the transport ends a timeout or a cancellation within a
    /// second or two (swift-corelibs URLSession cancels late).
    static func check(_ name: String, client: HTTPClient, server: TestHTTPServer, prompt: Bool) async throws {
        switch name {
        case "redirect+cookies":
            let response = try await client.send(HTTPClient.Request(url: server.url("/set-cookie")))
            #expect(try response.decode(Inspection.self).header("Cookie")?.contains("session=abc123") == true)
        case "json":
            let response = try await client.send(
                HTTPClient.Request(.post, url: server.url("/echo"), body: .json(["a": "1"])))
            #expect(response.text == #"{"a":"1"}"#)
        case "upload":
            let file = try temporaryDirectory().appendingPathComponent("up.bin")
            try TestHTTPServer.pattern(count: 3_000_000).write(to: file)
            let progress = ProgressLog()
            let response = try await client.upload(
                HTTPClient.Request(.put, url: server.url("/sink")), fromFile: file, progress: progress.record)
            let result = try response.decode(SinkResult.self)
            #expect(result.received == 3_000_000 && result.matchesPattern)
            #expect(progress.lastSent == 3_000_000)
        case "download":
            let file = try temporaryDirectory().appendingPathComponent("down.bin")
            let progress = ProgressLog()
            try await client.download(
                HTTPClient.Request(url: server.url("/bytes/3000000")), to: file, progress: progress.record)
            #expect(try Data(contentsOf: file) == TestHTTPServer.pattern(count: 3_000_000))
            #expect(progress.lastReceived == 3_000_000)
        case "range":
            var request = HTTPClient.Request(url: server.url("/bytes/5000"))
            request.range = .suffix(10)
            let response = try await client.send(request)
            #expect(response.status == 206 && response.body == TestHTTPServer.pattern(count: 10, from: 4990))
        case "status":
            let error = await #expect(throws: HTTPTransferError.self) {
                try await client.send(HTTPClient.Request(url: server.url("/status/404")))
            }
            #expect(error?.code == .notFound && error?.serverMessage == "status 404 as requested")
        case "timeout":
            var request = HTTPClient.Request(url: server.url("/slow?ms=3000"))
            request.timeout = .milliseconds(300)
            let start = ContinuousClock.now
            let error = await #expect(throws: HTTPTransferError.self) { try await client.send(request) }
            #expect(error?.code == .timeout, "\(String(describing: error))")
            if prompt { #expect(ContinuousClock.now - start < .seconds(3)) }
        default:
            let task = Task { try await client.send(HTTPClient.Request(url: server.url("/drip?chunks=50&ms=100"))) }
            try await Task.sleep(for: .milliseconds(200))
            let start = ContinuousClock.now
            task.cancel()
            guard case .failure(let error as HTTPTransferError) = await task.result else {
                Issue.record("expected a cancellation error")
                return
            }
            #expect(error.code == .cancelled)
            if prompt { #expect(ContinuousClock.now - start < .seconds(2)) }
        }
    }
}

/// Progress reports, kept for a test.
final class ProgressLog: Sendable {
    private let state = Mutex<(sent: Int64, received: Int64)>((0, 0))
    var lastSent: Int64 { state.withLock { $0.sent } }
    var lastReceived: Int64 { state.withLock { $0.received } }
    var record: @Sendable (TransferProgress) -> Void {
        { progress in
            self.state.withLock { state in
                switch progress.direction {
                case .upload: state.sent = max(state.sent, progress.bytesDone)
                case .download: state.received = max(state.received, progress.bytesDone)
                }
            }
        }
    }
}
