import Foundation
import SatchelServerTestSupport
import SatchelTestSupport
import Testing

extension SatchelCLITests {
    /// `satchel cmis` against `satchel serve` (alice, the shared repository unless told): every subcommand, byte
    /// round trips, exit codes.
    @Suite struct CMISCommandTests {
        static func cmis(
            _ server: LiveServer, _ arguments: [String], extra: [String] = ["--repository", "shared"]
        )
            async throws -> SatchelResult
        {
            guard let command = arguments.first else { throw CancellationError() }
            return try await SatchelProcess.run(
                ["cmis", command] + arguments.dropFirst()
                    + ["--url", Self.browser(server).absoluteString, "--user", "alice", "-q"] + extra,
                environment: ["SATCHEL_PASSWORD": "pw-alice"])
        }

        static func browser(_ server: LiveServer) -> URL { server.baseURL.appendingPathComponent("cmis/browser") }

        @Test func reposAndInfoDescribeTheRepository() async throws {
            let server = try await LiveServer.start(users: ["alice"])
            try await withCleanup { () async throws in
                let repos = try await Self.cmis(server, ["repos"], extra: [])
                #expect(repos.status == 0, "stderr: \(repos.stderr)")
                let lines = repos.stdoutText.split(separator: "\n")
                #expect(lines.contains { $0.hasPrefix("shared") } && lines.contains { $0.hasPrefix("mydocs-alice") })
                #expect(repos.stdoutText.contains("root: "))
                #expect(
                    lines.first { $0.hasPrefix("mydocs-alice") }?.contains("[MyDocuments: ") == true,
                    "\(repos.stdoutText)")

                let info = try await Self.cmis(server, ["info"], extra: ["--repository", "mydocs-alice"])
                #expect(info.status == 0, "stderr: \(info.stderr)")
                #expect(info.stdoutText.contains("id:"))
                #expect(info.stdoutText.contains("root folder:"))
                #expect(info.stdoutText.contains("capabilities:"))
                #expect(info.stdoutText.contains("extensions:"))
                #expect(info.stdoutText.contains("myDocuments"))
            } cleanup: {
                await server.stop()
            }
        }

        @Test func folderAndDocumentLifecycle() async throws {
            let server = try await LiveServer.start(users: ["alice"])
            try await withCleanup { () async throws in
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
            } cleanup: {
                await server.stop()
            }
        }

        @Test func queryPrintsIdsAndNames() async throws {
            let server = try await LiveServer.start(users: ["alice"])
            try await withCleanup { () async throws in
                _ = try await Self.cmis(server, ["mkdir", "/A"])
                _ = try await Self.cmis(server, ["mkdir", "/B"])
                let query = try await Self.cmis(server, ["query", "SELECT * FROM cmis:folder"])
                #expect(query.status == 0, "stderr: \(query.stderr)")
                let names = query.stdoutText.split(separator: "\n").compactMap { $0.split(separator: "\t").last }
                #expect(Set(names).isSuperset(of: ["A", "B"]), "\(names)")
            } cleanup: {
                await server.stop()
            }
        }

        @Test func missingObjectExitsFiveWithTheServerMessage() async throws {
            let server = try await LiveServer.start(users: ["alice"])
            try await withCleanup { () async throws in
                let result = try await Self.cmis(server, ["get", "/nothing/here.txt"])
                #expect(result.status == 5)
                #expect(result.stderr.hasPrefix("satchel: error: objectNotFound: "))
                #expect(result.stderr.split(separator: "\n").count == 1)
                #expect(result.stdout.isEmpty)

                let missingFile = try await Self.cmis(server, ["put", "/nonexistent/file.bin", "/"])
                #expect(missingFile.status == 8)
            } cleanup: {
                await server.stop()
            }
        }

        @Test func unreachableServerExitsThree() async throws {
            let result = try await SatchelProcess.run(
                ["cmis", "repos", "--url", "http://127.0.0.1:9/browser", "--timeout", "5", "--retries", "0"])
            #expect(result.status == 3, "stderr: \(result.stderr)")
        }

        @Test func mobileDocumentsSendsTheToken() async throws {
            let server = try await LiveServer.start(users: ["alice"])
            try await withCleanup { () async throws in
                // What the CLI puts on the wire, seen by a proxy in front of the server.
                let proxy = try FaultyTCPProxy(upstreamPort: server.port)
                defer { proxy.stop() }
                let auth = ["--user", "alice"]
                let environment = ["SATCHEL_PASSWORD": "pw-alice"]
                func tokenHeaders() -> Int {
                    proxy.requestHeads.count { $0.hasPrefix("POST ") && $0.lowercased().contains("\r\nx-csrf-token: ") }
                }
                // The Browser binding sends the token as a form field anyway; --mobile-documents adds the header.
                let without = try await SatchelProcess.run(
                    [
                        "cmis", "mkdir", "/X", "--url", proxy.url.appendingPathComponent("cmis/browser").absoluteString,
                        "--repository", "mydocs-alice",
                    ] + auth, environment: environment)
                #expect(without.status == 0, "stderr: \(without.stderr)")
                #expect(tokenHeaders() == 0)

                let with = try await SatchelProcess.run(
                    ["cmis", "mkdir", "/Y", "--mobile-documents", "--url", proxy.url.absoluteString] + auth,
                    environment: environment)
                #expect(with.status == 0, "stderr: \(with.stderr)")
                #expect(tokenHeaders() == 1)
                #expect(!with.stderr.contains("pw-alice"))

                let wrongPassword = try await SatchelProcess.run(
                    ["cmis", "repos", "--url", Self.browser(server).absoluteString] + auth,
                    environment: ["SATCHEL_PASSWORD": "wrong"])
                #expect(wrongPassword.status == 4, "stderr: \(wrongPassword.stderr)")
                #expect(wrongPassword.stderr.hasPrefix("satchel: error: unauthorized: "))
            } cleanup: {
                await server.stop()
            }
        }
    }
}
