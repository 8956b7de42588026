import Foundation
import SatchelServerTestSupport
import SatchelServer
import SatchelTestSupport
import Testing

extension SatchelCLITests {
    /// `satchel nuxeo` against the Nuxeo REST API of a live `satchel serve` (memory store), with `satchel cmis` on
    /// the other side for content.
    @Suite struct NuxeoCommandTests {
        @Test func documentsQueriesBlobsAndOperations() async throws {
            let server = try await LiveServer.start(users: ["admin"], administrators: ["admin"])
            try await withCleanup { () async throws in
                let directory = server.directory
                let nuxeoURL = server.baseURL.appendingPathComponent("nuxeo").absoluteString
                func nuxeo(_ arguments: String..., password: String = "pw-admin") async throws -> SatchelResult {
                    try await SatchelProcess.run(
                        ["nuxeo"] + arguments + ["--url", nuxeoURL, "--user", "admin", "-q"],
                        environment: ["SATCHEL_PASSWORD": password])
                }

                let info = try await nuxeo("info")
                #expect(info.status == 0 && info.stdoutText.contains("user: admin"), "\(info.stderr)")
                // The server from a shared configuration file instead of --url; one with a password is refused.
                let shared = directory.appendingPathComponent("nuxeo.json")
                try Data(#"{"url": "\#(nuxeoURL)", "repository": "default"}"#.utf8).write(to: shared)
                let configured = try await SatchelProcess.run(
                    ["nuxeo", "info", "--config", shared.path, "--user", "admin", "-q"],
                    environment: ["SATCHEL_PASSWORD": "pw-admin"])
                #expect(configured.status == 0 && configured.stdoutText.contains("user: admin"), "\(configured.stderr)")
                try Data(#"{"url": "\#(nuxeoURL)", "password": "pw-admin"}"#.utf8).write(to: shared)
                let leaky = try await SatchelProcess.run(
                    ["nuxeo", "info", "--config", shared.path, "--user", "admin", "-q"],
                    environment: ["SATCHEL_PASSWORD": "pw-admin"])
                #expect(leaky.status == 2 && leaky.stderr.contains("credentials"), "\(leaky.stderr)")
                #expect(info.stdoutText.contains("administrator: yes"))
                for step in [["mkdoc", "/", "Reports", "--type", "Folder"], ["mkdoc", "/Reports", "a.txt"]] {
                    let result = try await SatchelProcess.run(
                        ["nuxeo"] + step + ["--url", nuxeoURL, "--user", "admin", "-q"],
                        environment: ["SATCHEL_PASSWORD": "pw-admin"])
                    #expect(result.status == 0, "\(step): \(result.stderr)")
                }
                // Content put over CMIS, fetched over Nuxeo.
                let source = directory.appendingPathComponent("b.txt")
                try Data("content for nuxeo\n".utf8).write(to: source)
                let put = try await SatchelProcess.run(
                    [
                        "cmis", "put", source.path, "/Reports", "--name", "b.txt", "--url",
                        server.baseURL.appendingPathComponent("cmis/browser").absoluteString, "--repository", "shared",
                        "--user", "admin", "-q",
                    ], environment: ["SATCHEL_PASSWORD": "pw-admin"])
                #expect(put.status == 0, "\(put.stderr)")

                let listed = try await nuxeo("ls", "/Reports")
                #expect(listed.status == 0, "\(listed.stderr)")
                #expect(listed.stdoutText.contains("/Reports/a.txt") && listed.stdoutText.contains("/Reports/b.txt"))
                let queried = try await nuxeo("query", "SELECT * FROM File WHERE dc:title = 'b.txt'")
                #expect(
                    queried.stdoutText.split(separator: "\n").count == 1
                        && queried.stdoutText.contains("/Reports/b.txt"))
                let shown = try await nuxeo("get", "/Reports/b.txt")
                #expect(shown.stdoutText.contains("blob: b.txt (18 bytes"), "\(shown.stdoutText)")
                let target = directory.appendingPathComponent("fetched.txt")
                let fetched = try await nuxeo("fetch", "/Reports/b.txt", target.path)
                #expect(fetched.status == 0, "\(fetched.stderr)")
                #expect(try Data(contentsOf: target) == Data(contentsOf: source))
                // Uploaded in chunks over Nuxeo, fetched back.
                let large = directory.appendingPathComponent("large.bin")
                let bytes = Data((0..<300_000).map { UInt8($0 % 241) })
                try bytes.write(to: large)
                let uploaded = try await nuxeo("put", large.path, "/Reports", "--chunk-size", "65536")
                #expect(
                    uploaded.status == 0 && uploaded.stdoutText.hasPrefix("300000 bytes → /Reports/large.bin"),
                    "\(uploaded.stdoutText) \(uploaded.stderr)")
                let back = directory.appendingPathComponent("back.bin")
                #expect(try await nuxeo("fetch", "/Reports/large.bin", back.path).status == 0)
                #expect(try Data(contentsOf: back) == bytes)
                let operation = try await nuxeo("op", "Document.Fetch", "--param", "value=/Reports")
                #expect(operation.stdoutText.hasPrefix("Folder\t") && operation.stdoutText.contains("/Reports"))

                // A token once, then no password: SATCHEL_NUXEO_TOKEN.
                let token = try await nuxeo("token", "--device", "ci", "--read-only")
                let issued = token.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines)
                #expect(token.status == 0 && issued.count >= 40, "\(token.stderr)")
                func byToken(_ arguments: String..., token: String = issued) async throws -> SatchelResult {
                    try await SatchelProcess.run(
                        ["nuxeo"] + arguments + ["--url", nuxeoURL, "-q"], environment: ["SATCHEL_NUXEO_TOKEN": token])
                }
                let whoami = try await byToken("info")
                #expect(whoami.status == 0 && whoami.stdoutText.contains("user: admin"), "\(whoami.stderr)")
                #expect(try await byToken("rm", "/Reports/a.txt").status != 0, "read-only")
                #expect(try await nuxeo("token", "--device", "ci", "--revoke").status == 0)
                #expect(try await byToken("info").status == 4, "revoked")

                let removed = try await nuxeo("rm", "/Reports")
                #expect(removed.status == 0, "\(removed.stderr)")
                let gone = try await nuxeo("get", "/Reports")
                #expect(gone.status == 5, "not found: \(gone.stderr)")
                let refused = try await nuxeo("info", password: "wrong")
                #expect(refused.status == 4, "authentication: \(refused.stderr)")
            } cleanup: {
                await server.stop()
            }
        }
    }
}
