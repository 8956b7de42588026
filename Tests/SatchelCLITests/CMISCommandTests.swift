import Foundation
import SatchelTestSupport
import Testing

extension SatchelCLITests {
    /// `satchel cmis` against the in-memory Browser-binding server: every subcommand, byte round trips, exit codes.
    @Suite struct CMISCommandTests {
        static func cmis(
            _ server: CMISTestServer, _ arguments: [String], extra: [String] = []
        )
            async throws -> SatchelResult
        {
            guard let command = arguments.first else { throw CancellationError() }
            return try await SatchelProcess.run(
                ["cmis", command] + arguments.dropFirst() + ["--url", server.serviceURL.absoluteString, "-q"]
                    + extra)
        }

        @Test func reposAndInfoDescribeTheRepository() async throws {
            let server = try await CMISTestServer.start(.init(myDocuments: "root"))
            defer { Task { await server.stop() } }
            let repos = try await Self.cmis(server, ["repos"])
            #expect(repos.status == 0, "stderr: \(repos.stderr)")
            #expect(repos.stdoutText.hasPrefix("A1"))
            #expect(repos.stdoutText.contains("root: root"))
            #expect(repos.stdoutText.contains("[MyDocuments: root]"))

            let info = try await Self.cmis(server, ["info"])
            #expect(info.status == 0, "stderr: \(info.stderr)")
            #expect(info.stdoutText.contains("id:"))
            #expect(info.stdoutText.contains("root folder:"))
            #expect(info.stdoutText.contains("capabilities:"))
            #expect(info.stdoutText.contains("extensions:"))
            #expect(info.stdoutText.contains("myDocuments"))
        }

        @Test func folderAndDocumentLifecycle() async throws {
            let server = try await CMISTestServer.start()
            defer { Task { await server.stop() } }
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let bytes = TestHTTPServer.pattern(count: 300_001)
            let local = directory.appendingPathComponent("data.bin")
            try bytes.write(to: local)

            let mkdir = try await Self.cmis(server, ["mkdir", "/Reports"])
            #expect(mkdir.status == 0, "stderr: \(mkdir.stderr)")
            let put = try await Self.cmis(server, ["put", local.path, "/Reports", "--name", "q3.bin"])
            #expect(put.status == 0, "stderr: \(put.stderr)")
            #expect(!put.stdoutText.isEmpty)

            let ls = try await Self.cmis(server, ["ls", "/Reports", "--long", "--page-size", "1"])
            #expect(ls.status == 0, "stderr: \(ls.stderr)")
            #expect(ls.stdoutText.contains("document"))
            #expect(ls.stdoutText.contains("300001"))
            #expect(ls.stdoutText.contains("q3.bin"))
            let root = try await Self.cmis(server, ["ls", "/"])
            #expect(root.stdoutText.contains("Reports/"))

            let stdout = try await Self.cmis(server, ["get", "/Reports/q3.bin"])
            #expect(stdout.status == 0, "stderr: \(stdout.stderr)")
            #expect(stdout.stdout == bytes)
            let file = directory.appendingPathComponent("out.bin")
            let get = try await Self.cmis(server, ["get", "/Reports/q3.bin", "-o", file.path])
            #expect(get.status == 0, "stderr: \(get.stderr)")
            #expect(try Data(contentsOf: file) == bytes)

            let mv = try await Self.cmis(server, ["mv", "/Reports/q3.bin", "q4.bin"])
            #expect(mv.status == 0, "stderr: \(mv.stderr)")
            let renamed = try await Self.cmis(server, ["ls", "/Reports"])
            #expect(renamed.stdoutText.contains("q4.bin"))
            #expect(!renamed.stdoutText.contains("q3.bin"))

            let rm = try await Self.cmis(server, ["rm", "/Reports/q4.bin"])
            #expect(rm.status == 0, "stderr: \(rm.stderr)")
            let rmdir = try await Self.cmis(server, ["rm", "/Reports"])
            #expect(rmdir.status == 0, "stderr: \(rmdir.stderr)")
            let empty = try await Self.cmis(server, ["ls", "/"])
            #expect(empty.status == 0)
            #expect(empty.stdoutText.isEmpty)
        }

        @Test func queryPrintsIdsAndNames() async throws {
            let server = try await CMISTestServer.start()
            defer { Task { await server.stop() } }
            _ = try await Self.cmis(server, ["mkdir", "/A"])
            _ = try await Self.cmis(server, ["mkdir", "/B"])
            let query = try await Self.cmis(server, ["query", "SELECT * FROM cmis:folder"])
            #expect(query.status == 0, "stderr: \(query.stderr)")
            let names = query.stdoutText.split(separator: "\n").compactMap { $0.split(separator: "\t").last }
            #expect(Set(names) == ["A", "B"])
        }

        @Test func missingObjectExitsFiveWithTheServerMessage() async throws {
            let server = try await CMISTestServer.start()
            defer { Task { await server.stop() } }
            let result = try await Self.cmis(server, ["get", "/nothing/here.txt"])
            #expect(result.status == 5)
            #expect(result.stderr.hasPrefix("satchel: error: objectNotFound: "))
            #expect(result.stderr.split(separator: "\n").count == 1)
            #expect(result.stdout.isEmpty)

            let missingFile = try await Self.cmis(server, ["put", "/nonexistent/file.bin", "/"])
            #expect(missingFile.status == 8)
        }

        @Test func unreachableServerExitsThree() async throws {
            let result = try await SatchelProcess.run(
                ["cmis", "repos", "--url", "http://127.0.0.1:9/browser", "--timeout", "5", "--retries", "0"])
            #expect(result.status == 3, "stderr: \(result.stderr)")
        }

        @Test func mobileDocumentsSendsTheToken() async throws {
            let server = try await CMISTestServer.start(.init(user: "alice", password: "secret", token: "t-1"))
            defer { Task { await server.stop() } }
            let auth = ["--user", "alice"]
            let environment = ["SATCHEL_PASSWORD": "secret"]
            // The Browser binding returns the token as a form field anyway; --mobile-documents adds the header.
            let without = try await SatchelProcess.run(
                ["cmis", "mkdir", "/X", "--url", server.serviceURL.absoluteString] + auth, environment: environment)
            #expect(without.status == 0, "stderr: \(without.stderr)")
            #expect(server.repository.requestCount("tokenHeader") == 0)

            let with = try await SatchelProcess.run(
                ["cmis", "mkdir", "/Y", "--mobile-documents", "--url", server.serviceURL.absoluteString] + auth,
                environment: environment)
            #expect(with.status == 0, "stderr: \(with.stderr)")
            #expect(server.repository.requestCount("tokenHeader") == 1)
            #expect(!with.stderr.contains("secret"))

            let wrongPassword = try await SatchelProcess.run(
                ["cmis", "repos", "--url", server.serviceURL.absoluteString] + auth,
                environment: ["SATCHEL_PASSWORD": "wrong"])
            #expect(wrongPassword.status == 4, "stderr: \(wrongPassword.stderr)")
            #expect(wrongPassword.stderr.hasPrefix("satchel: error: unauthorized: "))
        }
    }
}
