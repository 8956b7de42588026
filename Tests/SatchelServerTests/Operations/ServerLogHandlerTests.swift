import Foundation
import Logging
import SatchelServer
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

@Suite("Server log handler and sink")
struct ServerLogHandlerTests {
    /// A pipe whose write end a sink writes to; `read()` returns what arrived.
    final class Pipe: @unchecked Sendable {
        let read: Int32
        let write: Int32
        init() throws {
            var fds: [Int32] = [0, 0]
            #expect(pipe(&fds) == 0)
            read = fds[0]
            write = fds[1]
            _ = fcntl(read, F_SETFL, fcntl(read, F_GETFL) | O_NONBLOCK)
        }
        func drain() -> String {
            var bytes: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            while true {
                let count = buffer.withUnsafeMutableBytes { Glibc.read(read, $0.baseAddress, $0.count) }
                if count <= 0 { break }
                bytes.append(contentsOf: buffer[0..<count])
            }
            return String(decoding: bytes, as: UTF8.self)
        }
        deinit {
            close(read)
            close(write)
        }
    }

    @Test("an info line is buffered until flushed, then written as one logfmt line with sorted, quoted metadata")
    func bufferedLine() throws {
        let pipe = try Pipe()
        let sink = LogSink(fileDescriptor: pipe.write)
        var logger = Logger(label: "satchel.access") { ServerLogHandler(label: $0, sink: sink) }
        logger[metadataKey: "user"] = "alice"
        logger.info("GET /x 200", metadata: ["path": "/a b", "status": "200", "quote": "say \"hi\"\n"])
        #expect(pipe.drain().isEmpty)
        sink.flush()
        let line = pipe.drain()
        let pattern =
            #/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ info satchel.access msg="GET \/x 200" path="\/a b" quote="say \\"hi\\"\\n" status=200 user=alice\n$/#
        #expect(line.wholeMatch(of: pattern) != nil, "got: \(line)")
    }

    @Test("a warning is written at once")
    func urgent() throws {
        let pipe = try Pipe()
        let sink = LogSink(fileDescriptor: pipe.write)
        let logger = Logger(label: "satchel.server") { ServerLogHandler(label: $0, sink: sink) }
        logger.warning("disk=full")
        #expect(pipe.drain().hasSuffix(#" warning satchel.server msg="disk=full""# + "\n"))
    }

    @Test("the background flusher writes buffered lines within a second")
    func backgroundFlush() async throws {
        let pipe = try Pipe()
        let sink = LogSink(fileDescriptor: pipe.write)
        let logger = Logger(label: "satchel.access") { ServerLogHandler(label: $0, sink: sink) }
        logger.info("late")
        var text = ""
        for _ in 0..<50 where text.isEmpty {
            try await Task.sleep(for: .milliseconds(50))
            text = pipe.drain()
        }
        #expect(text.contains("msg=late"))
    }

    @Test("concurrent writers never interleave inside a line")
    func concurrent() async throws {
        let pipe = try Pipe()
        let sink = LogSink(fileDescriptor: pipe.write)
        let collected = Task.detached { () -> String in
            var text = ""
            for _ in 0..<400 {
                text += pipe.drain()
                try? await Task.sleep(for: .milliseconds(5))
                if text.split(separator: "\n").count >= 800 { break }
            }
            return text
        }
        await withTaskGroup(of: Void.self) { group in
            for writer in 0..<8 {
                group.addTask {
                    let logger = Logger(label: "w\(writer)") { ServerLogHandler(label: $0, sink: sink) }
                    for index in 0..<100 { logger.info("line", metadata: ["n": "\(index)", "pad": "\(writer)"]) }
                }
            }
        }
        sink.flush()
        let lines = await collected.value.split(separator: "\n")
        #expect(lines.count == 800)
        let whole = #/^\S+ info w[0-7] msg=line n=\d{1,2} pad=[0-7]$/#
        #expect(lines.allSatisfy { $0.wholeMatch(of: whole) != nil })
        #expect(Set(lines).count == 800)
    }
}
