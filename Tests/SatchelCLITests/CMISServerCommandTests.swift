import Foundation
import SatchelServerTestSupport
import SatchelServer
import SatchelTestSupport
import Testing

extension SatchelCLITests {
    /// `satchel cmis` against a live `satchel serve` (memory store) over both bindings: the commands that need a
    /// full repository — tree, move across folders, check-out and check-in, versions, ACLs.
    @Suite struct CMISServerCommandTests {
        @Test("several repositories and no --repository: the error names the option and the repositories")
        func repositoryChoice() async throws {
            let server = try await LiveServer.start(users: ["alice"])
            try await withCleanup { () async throws in
                let url = server.baseURL.appendingPathComponent("cmis/browser")
                let result = try await SatchelProcess.run(
                    ["cmis", "ls", "/", "--url", url.absoluteString, "--user", "alice"],
                    environment: ["SATCHEL_PASSWORD": "pw-alice"])
                #expect(result.status != 0)
                #expect(result.stderr.contains("--repository") && result.stderr.contains("shared"), "\(result.stderr)")
                #expect(!result.stderr.contains("SessionParameters"), "\(result.stderr)")
                let chosen = try await SatchelProcess.run(
                    ["cmis", "ls", "/", "--url", url.absoluteString, "--user", "alice", "--repository", "shared"],
                    environment: ["SATCHEL_PASSWORD": "pw-alice"])
                #expect(chosen.status == 0, "\(chosen.stderr)")
            } cleanup: {
                await server.stop()
            }
        }

        #if os(Linux)
            @Test("satchel cmis and satchel notes over HTTPS: a private authority with --ca-file, refused without it")
            func https() async throws {
                let certificates = try await TestCertificates.make()
                defer { certificates.remove() }
                let server = try await LiveServer.start(
                    users: ["alice"],
                    tls: TLSFiles(
                        certificateChain: certificates.server.certificate, privateKey: certificates.server.key))
                try await withCleanup { () async throws in
                    let url = server.baseURL.appendingPathComponent("cmis/browser").absoluteString
                    #expect(url.hasPrefix("https://"))
                    let base = ["--url", url, "--user", "alice", "--repository", "shared"]
                    let environment = ["SATCHEL_PASSWORD": "pw-alice"]
                    let refused = try await SatchelProcess.run(["cmis", "ls", "/"] + base, environment: environment)
                    #expect(refused.status == 3, "\(refused.stderr)")
                    #expect(refused.stderr.contains("not signed by a trusted authority"), "\(refused.stderr)")
                    let trusted = try await SatchelProcess.run(
                        ["cmis", "ls", "/"] + base + ["--ca-file", certificates.authority.path],
                        environment: environment)
                    #expect(trusted.status == 0, "\(trusted.stderr)")
                    let insecure = try await SatchelProcess.run(
                        ["cmis", "ls", "/"] + base + ["--insecure-skip-tls-verify"], environment: environment)
                    #expect(insecure.status == 0, "\(insecure.stderr)")
                    let note = try await SatchelProcess.run(
                        [
                            "notes", "create", "tls.txt", "--text", "over TLS", "--url", server.baseURL.absoluteString,
                            "--user", "alice",
                            "--ca-file", certificates.authority.path,
                        ], environment: environment)
                    #expect(note.status == 0, "\(note.stderr)")
                } cleanup: {
                    await server.stop()
                }
            }
        #endif

        @Test("--retries reaches the CMIS commands: a lost answer is retried only when retries are allowed")
        func retries() async throws {
            let server = try await LiveServer.start(users: ["alice"])
            try await withCleanup { () async throws in
                let proxy = try FaultyTCPProxy(upstreamPort: server.baseURL.port ?? 0)
                defer { proxy.stop() }
                let url = proxy.url.appendingPathComponent("cmis/browser")
                func ls(retries: Int) async throws -> SatchelResult {
                    // The first GET is handled by the server and its answer lost on the way back.
                    proxy.dropResponse(toNext: "GET")
                    return try await SatchelProcess.run(
                        [
                            "cmis", "ls", "/", "--url", url.absoluteString, "--user", "alice", "--repository", "shared",
                            "--retries", String(retries),
                        ], environment: ["SATCHEL_PASSWORD": "pw-alice"])
                }
                let none = try await ls(retries: 0)
                #expect(none.status != 0, "with --retries 0 a lost answer is an error")
                let one = try await ls(retries: 1)
                #expect(one.status == 0, "\(one.stderr)")
                #expect(proxy.droppedResponses == 2)
            } cleanup: {
                await server.stop()
            }
        }

        @Test(arguments: ["browser", "atom"])
        func versioningTreeMoveAndACL(binding: String) async throws {
            let server = try await LiveServer.start(users: ["alice"])
            try await withCleanup { () async throws in
                let directory = server.directory
                let url = server.baseURL.appendingPathComponent(binding == "atom" ? "cmis/atom" : "cmis/browser")

                func cmis(_ arguments: [String]) async throws -> SatchelResult {
                    try await SatchelProcess.run(
                        ["cmis"] + arguments + [
                            "--url", url.absoluteString, "--binding", binding, "--repository", "shared", "--user",
                            "alice", "-q",
                        ], environment: ["SATCHEL_PASSWORD": "pw-alice"])
                }
                let first = directory.appendingPathComponent("v1.txt")
                let second = directory.appendingPathComponent("v2.txt")
                try Data("first version\n".utf8).write(to: first)
                try Data("second version\n".utf8).write(to: second)

                for step in [
                    ["mkdir", "/Docs"], ["mkdir", "/Archive"], ["put", first.path, "/Docs", "--name", "a.txt"],
                ] {
                    let result = try await cmis(step)
                    #expect(result.status == 0, "\(step): \(result.stderr)")
                }
                let tree = try await cmis(["tree", "/"])
                #expect(tree.status == 0, "\(tree.stderr)")
                #expect(tree.stdoutText.contains("├── Archive/") || tree.stdoutText.contains("└── Archive/"))
                #expect(tree.stdoutText.contains("    └── a.txt") || tree.stdoutText.contains("│   └── a.txt"))

                let checkout = try await cmis(["checkout", "/Docs/a.txt"])
                #expect(checkout.status == 0, "\(checkout.stderr)")
                #expect(!checkout.stdoutText.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty)
                let checkin = try await cmis(["checkin", "/Docs/a.txt", "-f", second.path, "-m", "second"])
                #expect(checkin.status == 0, "\(checkin.stderr)")
                #expect(checkin.stdoutText.contains("2.0"))
                let versions = try await cmis(["versions", "/Docs/a.txt"])
                #expect(versions.status == 0, "\(versions.stderr)")
                let lines = versions.stdoutText.split(separator: "\n")
                #expect(lines.count == 2, "\(versions.stdoutText)")
                #expect(lines.first?.hasPrefix("2.0") == true && lines.first?.contains("second") == true)

                let acl = try await cmis(["acl", "/Docs", "--add", "bob=cmis:read"])
                #expect(acl.status == 0, "\(acl.stderr)")
                #expect(acl.stdoutText.contains("bob"), "\(acl.stdoutText)")
                #expect(acl.stdoutText.contains("cmis:read"), "\(acl.stdoutText)")

                let move = try await cmis(["mv", "/Docs/a.txt", "/Archive"])
                #expect(move.status == 0, "\(move.stderr)")
                let renameAndMove = try await cmis(["mv", "/Archive/a.txt", "/Docs/b.txt"])
                #expect(renameAndMove.status == 0, "\(renameAndMove.stderr)")
                let content = try await cmis(["get", "/Docs/b.txt"])
                #expect(content.status == 0, "\(content.stderr)")
                #expect(content.stdoutText == "second version\n")
                let gone = try await cmis(["get", "/Archive/a.txt"])
                #expect(gone.status == 5, "\(gone.stderr)")
            } cleanup: {
                await server.stop()
            }
        }
    }
}
