import Foundation
import SatchelHTTP
import SatchelTestSupport
import Synchronization
import Testing

@Suite("Streaming transfers, progress and ranges")
struct TransferTests {
    @Test("a download streams to a file with progress")
    func download() async throws {
        try await withServer { server, _ async throws in
            let directory = try temporaryDirectory()
            let file = directory.appendingPathComponent("data.bin")
            let size = 5_000_000
            let seen = Mutex<[TransferProgress]>([])
            let response = try await makeClient().download(
                HTTPClient.Request(url: server.url("/bytes/\(size)")), to: file
            ) {
                progress in seen.withLock { $0.append(progress) }
            }
            #expect(response.bodyFile == file)
            #expect(response.body.isEmpty)
            #expect(try Data(contentsOf: file) == TestHTTPServer.pattern(count: size))
            let reports = seen.withLock { $0 }
            #expect(!reports.isEmpty)
            #expect(reports.last?.bytesDone == Int64(size))
            #expect(reports.last?.totalBytes == Int64(size))
            #expect(zip(reports, reports.dropFirst()).allSatisfy { $0.bytesDone <= $1.bytesDone })
            let names = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(names == ["data.bin"])  // no temporary file left behind
        }
    }

    @Test("progress as an AsyncSequence")
    func transferSequence() async throws {
        try await withServer { server, _ async throws in
            let directory = try temporaryDirectory()
            let file = directory.appendingPathComponent("seq.bin")
            let transfer = makeClient().downloadTransfer(
                HTTPClient.Request(url: server.url("/bytes/3000000")), to: file)
            var last: TransferProgress?
            for await progress in transfer.progress { last = progress }
            let response = try await transfer.response
            #expect(response.status == 200)
            #expect(last?.fraction == 1)
        }
    }

    @Test("Range requests give partial content, and a download resumes where it stopped")
    func ranges() async throws {
        try await withServer { server, _ async throws in
            let client = makeClient()
            var request = HTTPClient.Request(url: server.url("/bytes/100000"))
            request.range = .bytes(1000...1999)
            let partial = try await client.send(request)
            #expect(partial.status == 206)
            #expect(partial.body == TestHTTPServer.pattern(count: 1000, from: 1000))
            #expect(partial.contentRange?.first == 1000)
            #expect(partial.contentRange?.completeLength == 100_000)

            let directory = try temporaryDirectory()
            let file = directory.appendingPathComponent("resume.bin")
            try TestHTTPServer.pattern(count: 40_000).write(to: file)
            let resumed = try await client.download(
                HTTPClient.Request(url: server.url("/bytes/100000")), to: file, resume: true)
            #expect(resumed.status == 206)
            #expect(try Data(contentsOf: file) == TestHTTPServer.pattern(count: 100_000))

            let again = try await client.download(
                HTTPClient.Request(url: server.url("/bytes/100000")), to: file, resume: true)
            #expect(again.status == 206)  // already complete: 416 from the server, nothing changes
            #expect(try Data(contentsOf: file).count == 100_000)
        }
    }

    @Test("an upload streams from a file with progress, and the server receives every byte")
    func upload() async throws {
        try await withServer { server, _ async throws in
            let directory = try temporaryDirectory()
            let file = directory.appendingPathComponent("upload.bin")
            let size = 4_000_000
            try TestHTTPServer.pattern(count: size).write(to: file)
            let sent = Mutex<Int64>(0)
            let response = try await makeClient().upload(
                HTTPClient.Request(.put, url: server.url("/sink")), fromFile: file
            ) {
                progress in if progress.direction == .upload { sent.withLock { $0 = progress.bytesDone } }
            }
            let result = try response.decode(SinkResult.self)
            #expect(result.received == size)
            #expect(result.matchesPattern)
            #expect(sent.withLock { $0 } == Int64(size))
        }
    }

    @Test("a failed download leaves the existing file as it was; big answers don't go to memory")
    func failureKeepsFile() async throws {
        try await withServer { server, _ async throws in
            let directory = try temporaryDirectory()
            let file = directory.appendingPathComponent("keep.bin")
            try Data("old content".utf8).write(to: file)
            let error = await #expect(throws: HTTPTransferError.self) {
                try await makeClient().download(HTTPClient.Request(url: server.url("/status/404")), to: file)
            }
            #expect(error?.code == .notFound)
            #expect(error?.serverMessage == "status 404 as requested")
            #expect(try Data(contentsOf: file) == Data("old content".utf8))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["keep.bin"])

            var configuration = HTTPClient.Configuration()
            configuration.maximumInMemoryResponseBytes = 1000
            let small = HTTPClient(configuration: configuration)
            let tooLarge = await #expect(throws: HTTPTransferError.self) {
                try await small.send(HTTPClient.Request(url: server.url("/bytes/5000")))
            }
            #expect(tooLarge?.code == .responseTooLarge)
        }
    }
}

struct SinkResult: Decodable {
    var received: Int
    var matchesPattern: Bool
}
