import Foundation
import SatchelTestSupport
import Testing

extension SatchelCLITests {
    /// `satchel odata generate` as a person runs it: from a `$metadata` file and from a URL, writing the same
    /// code the generator's reference files hold, and failing with the documented exit codes.
    @Suite struct ODataGenerateCommandTests {
        static let generatorTests = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("SatchelODataGenTests")
        static let metadataFile = generatorTests.appendingPathComponent("Fixtures/v4-people.odata.xml")
        static let expectedFile = generatorTests.appendingPathComponent("Expected/v4-people.swift")

        static func temporaryDirectory() throws -> URL {
            let url = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-gen-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            return url
        }

        @Test func fromAFileTheReferenceCode() async throws {
            let directory = try Self.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let output = directory.appendingPathComponent("v4-people.swift")
            let result = try await SatchelProcess.run([
                "odata", "generate", "--metadata", Self.metadataFile.path, "--output", output.path,
            ])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            #expect(result.stderr.contains("wrote \(output.path)"))
            let generated = try String(contentsOf: output, encoding: .utf8)
            #expect(generated == (try String(contentsOf: Self.expectedFile, encoding: .utf8)))
        }

        @Test func fromAURLWithOptions() async throws {
            let metadata = try Data(contentsOf: Self.metadataFile)
            let server = try ScriptedTCPServer { connection in
                guard let request = connection.readRequest() else { return }
                guard request.target.hasSuffix("/$metadata") else {
                    connection.write("HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
                    return
                }
                connection.write(
                    "HTTP/1.1 200 OK\r\nContent-Type: application/xml\r\nContent-Length: \(metadata.count)\r\n"
                        + "Connection: close\r\n\r\n")
                connection.write(metadata)
            }
            defer { server.stop() }
            let directory = try Self.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let result = try await SatchelProcess.run([
                "odata", "generate", "--metadata", "http://127.0.0.1:\(server.port)/odata/$metadata",
                "--output", directory.path, "--access", "internal", "--prefix", "P",
            ])
            #expect(result.status == 0, "stderr: \(result.stderr)")
            let files = try FileManager.default.contentsOfDirectory(atPath: directory.path)
            #expect(files.count == 1)
            let generated = try String(
                contentsOf: directory.appendingPathComponent(try #require(files.first)), encoding: .utf8)
            #expect(generated.contains("struct PPerson: Codable, Sendable"))
            #expect(!generated.contains("public "))
        }

        @Test func errorsExitWithTheirCodes() async throws {
            let directory = try Self.temporaryDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let notMetadata = directory.appendingPathComponent("page.xml")
            try Data("<html><body>login</body></html>".utf8).write(to: notMetadata)
            let cases: [(arguments: [String], status: Int32)] = [
                (["--metadata", notMetadata.path, "--output", directory.path], 7),
                (["--metadata", directory.appendingPathComponent("missing.xml").path, "--output", directory.path], 8),
                (["--metadata", Self.metadataFile.path, "--output", directory.path, "--access", "open"], 2),
            ]
            for (arguments, status) in cases {
                let result = try await SatchelProcess.run(["odata", "generate"] + arguments)
                #expect(result.status == status, "\(arguments): stderr \(result.stderr)")
                #expect(!result.stderr.isEmpty)
            }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["page.xml"])
        }
    }
}
