import Foundation
import Hummingbird
import NIOCore
import SatchelCMISCore
import Synchronization
import Testing

@testable import SatchelServer

/// Content streamed from a source other than a file (a gateway's back-end): never more than announced is read or
/// sent, and a source that ends short fails the response instead of finishing it.
@Suite("Streamed content responses")
struct StreamedContentTests {
    final class Box: Sendable {
        let bytes = Mutex(0)
        let finished = Mutex(false)
        /// Chunks the source handed out.
        let reads = Mutex(0)
    }

    struct Writer: ResponseBodyWriter {
        let box: Box
        mutating func write(_ buffer: ByteBuffer) async throws { box.bytes.withLock { $0 += buffer.readableBytes } }
        consuming func finish(_ trailingHeaders: HTTPFields?) async throws { box.finished.withLock { $0 = true } }
    }

    /// A source of `chunks` chunks of 1,000 bytes (endless when nil), counting in `box` how many were read.
    static func source(chunks: Int?, box: Box) -> AsyncThrowingStream<[UInt8], any Error> {
        AsyncThrowingStream {
            let read = box.reads.withLock { count -> Int in
                count += 1
                return count
            }
            if let chunks, read > chunks { return nil }
            return [UInt8](repeating: 7, count: 1_000)
        }
    }

    @Test("a source that sends more than announced, or never stops, is cut off at the length")
    func endlessSource() async throws {
        let box = Box()
        let body = ContentResponse.streamed(Self.source(chunks: nil, box: box), count: 2_500)
        try await body.write(Writer(box: box))
        #expect(box.bytes.withLock { $0 } == 2_500)
        #expect(box.finished.withLock { $0 })
        #expect(box.reads.withLock { $0 } == 3)
    }

    @Test("a source that ends short fails the response instead of finishing it")
    func shortSource() async throws {
        let box = Box()
        let body = ContentResponse.streamed(Self.source(chunks: 2, box: box), count: 2_500)
        await #expect {
            try await body.write(Writer(box: box))
        } throws: { error in
            (error as? CMISError)?.code == .storage
                && (error as? CMISError)?.message.contains("500 bytes short") == true
        }
        #expect(!box.finished.withLock { $0 })
    }
}
