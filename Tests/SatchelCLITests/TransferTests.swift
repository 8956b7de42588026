import Foundation
import SatchelTestSupport
import Testing

extension SatchelCLITests {
    /// Bodies arrive byte for byte, uploads stream from files, and Ctrl-C leaves nothing behind.
    @Suite struct TransferTests {
        struct Download: Sendable, CustomTestStringConvertible {
            var path: String
            var toFile: Bool
            var extra: [String] = []
            var expected: Data
            var testDescription: String { "\(path) \(extra.joined(separator: " ")) to \(toFile ? "file" : "stdout")" }
        }

        static let downloads: [Download] = [
            Download(path: "/bytes/1", toFile: true, expected: TestHTTPServer.pattern(count: 1)),
            Download(path: "/bytes/3000001", toFile: true, expected: TestHTTPServer.pattern(count: 3_000_001)),
            Download(path: "/bytes/3000001", toFile: false, expected: TestHTTPServer.pattern(count: 3_000_001)),
            Download(
                path: "/bytes/100",
                toFile: false,
                extra: ["--range", "10-19"],
                expected: TestHTTPServer.pattern(count: 10, from: 10)
            ),
        ]

        @Test(arguments: downloads)
        func downloadWritesTheExactBytes(_ download: Download) async throws {
            let server = try await TestHTTPServer.startStandard()
            let directory = try Self.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("out.bin")
            var arguments = ["http", "get", server.url(download.path).absoluteString] + download.extra
            if download.toFile { arguments += ["-o", file.path] }
            let result = try await SatchelProcess.run(arguments)
            await server.stop()

            #expect(result.status == 0, "stderr: \(result.stderr)")
            let written = download.toFile ? try Data(contentsOf: file) : result.stdout
            #expect(written == download.expected)
            if download.toFile { #expect(result.stdout.isEmpty) }
            #expect(
                try FileManager.default.contentsOfDirectory(atPath: directory.path)
                    == (download.toFile ? ["out.bin"] : []))
        }

        struct Upload: Sendable, CustomTestStringConvertible {
            var method: String
            var body: [String]
            var contentType: String
            /// What the echo route must send back; nil: the test file's bytes.
            var expected: String?
            var testDescription: String { "\(method) \(body.first ?? "")" }
        }

        static let uploads: [Upload] = [
            Upload(method: "put", body: ["--data-file", "{file}"], contentType: "application/octet-stream"),
            Upload(
                method: "post", body: ["--data-file", "{file}", "--content-type", "image/png"], contentType: "image/png"
            ),
            Upload(
                method: "post", body: ["--data", "hello"], contentType: "text/plain; charset=utf-8", expected: "hello"),
            Upload(
                method: "patch", body: ["--json", "{\"a\":1}"], contentType: "application/json", expected: "{\"a\":1}"),
            Upload(
                method: "post",
                body: ["--form", "a=1", "--form", "b=x y&z"],
                contentType: "application/x-www-form-urlencoded",
                expected: "a=1&b=x+y%26z"
            ),
        ]

        @Test(arguments: uploads)
        func uploadRoundTripsThroughEcho(_ upload: Upload) async throws {
            let server = try await TestHTTPServer.startStandard()
            let directory = try Self.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("upload.bin")
            let fileBytes = TestHTTPServer.pattern(count: 700_001)
            try fileBytes.write(to: file)
            let body = upload.body.map { $0 == "{file}" ? file.path : $0 }
            let result = try await SatchelProcess.run(
                ["http", upload.method, "-i", server.url("/echo").absoluteString] + body)
            await server.stop()

            #expect(result.status == 0, "stderr: \(result.stderr)")
            let separator = Data("\n\n".utf8)
            let split = try #require(result.stdout.firstRange(of: separator))
            let head = String(decoding: result.stdout[..<split.lowerBound], as: UTF8.self)
            #expect(head.hasPrefix("HTTP 200"))
            #expect(head.lowercased().contains("content-type: \(upload.contentType)"), "\(head)")
            let echoed = result.stdout[split.upperBound...]
            #expect(Data(echoed) == (upload.expected.map { Data($0.utf8) } ?? fileBytes))
        }

        @Test func multipartStreamsFileParts() async throws {
            let server = try await TestHTTPServer.startStandard()
            let directory = try Self.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("note.txt")
            try Data("the note's text".utf8).write(to: file)
            let result = try await SatchelProcess.run([
                "http", "post", server.url("/echo").absoluteString,
                "--multipart", "title=Shopping", "--multipart", "content=@\(file.path)",
            ])
            await server.stop()

            #expect(result.status == 0, "stderr: \(result.stderr)")
            let text = result.stdoutText
            #expect(text.contains("name=\"title\"\r\n\r\nShopping\r\n"))
            #expect(text.contains("name=\"content\"; filename=\"note.txt\""))
            #expect(text.contains("the note's text"))
        }

        @Test func interruptCancelsAndRemovesThePartialDownload() async throws {
            let server = try await TestHTTPServer.startStandard()
            let directory = try Self.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("slow.bin")
            let started = ContinuousClock.now
            let result = try await SatchelProcess.run(
                ["http", "get", server.url("/drip?chunks=200&ms=50").absoluteString, "-o", file.path],
                interruptAfter: 1.5
            )
            await server.stop()

            #expect(result.status == 130, "stderr: \(result.stderr)")
            #expect(ContinuousClock.now - started < .seconds(8), "the 10 s download stopped at Ctrl-C")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }

        static func temporaryDirectory() throws -> URL {
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "satchel-cli-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            return directory
        }
    }
}
