public import Foundation
import SatchelHTTP
import Synchronization
import SatchelText

/// A TCP proxy on `127.0.0.1` in front of a loopback server, for the network faults a test needs (the kernel here
/// has no `netem`): latency on every chunk, connections cut at a random byte of a response, and a request whose
/// response never arrives although the server handled it (the client sees the connection close).
///
/// ```swift
/// let proxy = try FaultyTCPProxy(upstreamPort: server.port, faults: .init(latency: .milliseconds(200)))
/// proxy.dropResponse(toNext: "PATCH")      // applied by the server, lost on the way back
/// ```
public final class FaultyTCPProxy: Sendable {
    public struct Faults: Sendable {
        /// Delay before each chunk is forwarded, both ways.
        public var latency: Duration
        /// The chance that a connection's response is cut at a random byte.
        public var cutProbability: Double
        public init(latency: Duration = .zero, cutProbability: Double = 0) {
            self.latency = latency
            self.cutProbability = cutProbability
        }
    }

    public let port: Int
    private let listener: Int32
    private let state: Mutex<State>

    private struct State {
        var faults: Faults
        var dropMethods: [String] = []
        var cuts = 0
        var dropped = 0
        var heads: [String] = []
    }

    /// Connections cut at a random byte so far.
    public var cuts: Int { state.withLock { $0.cuts } }
    /// Responses dropped after the server handled the request.
    public var droppedResponses: Int { state.withLock { $0.dropped } }
    /// The request line and headers of each request that started a chunk the client sent (what a client put on the
    /// wire, for tests of a separate process).
    public var requestHeads: [String] { state.withLock { $0.heads } }

    public init(upstreamPort: Int, faults: Faults = Faults()) throws {
        state = Mutex(State(faults: faults))
        let (fd, port) = try LoopbackPort.listen(backlog: 32)
        listener = fd
        self.port = port
        LoopbackPort.acceptLoop(fd) { [self] client in serve(client, upstreamPort: upstreamPort) }
    }

    public var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    /// The response to the next request with `method` is read from the server and thrown away, and the client's
    /// connection closed: the server applied it, the client does not know.
    public func dropResponse(toNext method: String) { state.withLock { $0.dropMethods.append(method) } }

    public func setFaults(_ faults: Faults) { state.withLock { $0.faults = faults } }

    public func stop() { shutdown(listener, Int32(SHUT_RDWR)) }

    private func serve(_ client: Int32, upstreamPort: Int) {
        let upstream = LoopbackPort.connect(upstreamPort)
        guard upstream >= 0 else {
            close(client)
            return
        }
        let dropping = Atomic<Bool>(false)
        let closed = Atomic<Bool>(false)
        let finish: @Sendable () -> Void = {
            if !closed.exchange(true, ordering: .relaxed) {
                shutdown(client, Int32(SHUT_RDWR))
                shutdown(upstream, Int32(SHUT_RDWR))
            }
        }
        let cutProbability = state.withLock { $0.faults.cutProbability }
        let cutAt: Int? = Double.random(in: 0..<1) < cutProbability ? Int.random(in: 1...6000) : nil
        let done = DispatchSemaphore(value: 0)
        // Client → server: forwarded; a request whose method is marked makes its response vanish.
        Thread { [self] in
            var buffer = [UInt8](repeating: 0, count: 65536)
            while true {
                let count = read(client, &buffer, buffer.count)
                if count <= 0 { break }
                let text = String(decoding: buffer[0..<min(count, 16)], as: UTF8.self)
                if let method = text.split(separator: " ").first,
                    ["GET", "POST", "PUT", "DELETE", "HEAD", "PATCH"].contains(String(method))
                {
                    let chunk = String(decoding: buffer[0..<count], as: UTF8.self)
                    let head = chunk.components(separatedBy: "\r\n\r\n").first ?? chunk
                    state.withLock { $0.heads.append(head) }
                }
                let marked = state.withLock { state -> Bool in
                    guard let index = state.dropMethods.firstIndex(where: { text.hasPrefix($0 + " ") }) else {
                        return false
                    }
                    state.dropMethods.remove(at: index)
                    return true
                }
                if marked { dropping.store(true, ordering: .relaxed) }
                if latency > .zero { Thread.sleep(forTimeInterval: latency.timeInterval) }
                if !Self.writeAll(upstream, buffer, count) { break }
            }
            finish()
            done.signal()
        }.start()
        // Server → client: forwarded with latency; cut at a random byte, or thrown away when dropping.
        var buffer = [UInt8](repeating: 0, count: 65536)
        var forwarded = 0
        while true {
            let count = read(upstream, &buffer, buffer.count)
            if count <= 0 { break }
            if dropping.load(ordering: .relaxed) {
                state.withLock { $0.dropped += 1 }
                break
            }
            if latency > .zero { Thread.sleep(forTimeInterval: latency.timeInterval) }
            if let cutAt, forwarded + count >= cutAt {
                _ = Self.writeAll(client, buffer, max(0, cutAt - forwarded))
                state.withLock { $0.cuts += 1 }
                break
            }
            if !Self.writeAll(client, buffer, count) { break }
            forwarded += count
        }
        finish()
        done.wait()
        close(client)
        close(upstream)
    }

    private static func writeAll(_ fd: Int32, _ buffer: [UInt8], _ count: Int) -> Bool {
        buffer.withUnsafeBytes { LoopbackPort.sendAll(fd, UnsafeRawBufferPointer(rebasing: $0[0..<count])) }
    }

    /// The latency now (``setFaults(_:)`` applies to connections already open too).
    private var latency: Duration { state.withLock { $0.faults.latency } }
}
