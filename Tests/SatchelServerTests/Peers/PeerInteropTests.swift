import Foundation
import SatchelTestSupport
import Testing

/// Real CMIS clients against a live `satchel serve` (SQLite store): cmislib 0.7.0 over both bindings, cmissh's
/// `cmis-tck` over AtomPub, and libcmis's `cmis-client` over AtomPub. Each asserts what the peer reports.
@Suite("Real CMIS clients against satchel serve", .serialized)
struct PeerInteropTests {
    @Test(
        "cmislib 0.7.0: repositories, info, children, folder, document CRUD with content, query, versioning",
        arguments: ["browser", "atom"])
    func cmislib(binding: String) async throws {
        let python = try Peers.python()
        let script = Peers.packageRoot.appendingPathComponent("Tests/Peers/cmislib_check.py")
        let server = try await ServerHarness.start(sqlite: true)
        defer { Task { await server.stop() } }
        let url = server.url(binding == "browser" ? "/cmis/browser" : "/cmis/atom").absoluteString
        let result = try await Peers.run(python, [script.path, url, "alice", "pw-alice", binding, "shared"])
        #expect(result.status == 0, "cmislib over \(binding):\n\(result.output)")
        #expect(result.output.contains("ok create document"), "\(result.output)")
        #expect(result.output.contains("0 failed"), "\(result.output)")
    }

    @Test(
        "Nuxeo's Python client 7.1.0: root, create, get by path and uid, children, NXQL with paging, update, Automation, upload, tokens, current user, permissions, move, locks, trash, delete"
    )
    func nuxeoPython() async throws {
        let python = try Peers.python()
        let script = Peers.packageRoot.appendingPathComponent("Tests/Peers/nuxeo_check.py")
        let server = try await ServerHarness.start(sqlite: true)
        defer { Task { await server.stop() } }
        let result = try await Peers.run(
            python, [script.path, server.url("/nuxeo/").absoluteString, "admin", "pw-admin"])
        #expect(result.status == 0, "nuxeo (Python):\n\(result.output)")
        #expect(result.output.contains("ok query with paging"), "\(result.output)")
        #expect(result.output.contains("ok automation"), "\(result.output)")
        #expect(result.output.contains("ok upload, plain and chunked"), "\(result.output)")
        #expect(result.output.contains("ok token authentication"), "\(result.output)")
        for step in [
            "current user and server info", "permissions", "move", "lock and unlock", "trash and untrash",
            "has permission",
        ] {
            #expect(result.output.contains("ok \(step)"), "\(result.output)")
        }
        #expect(result.output.contains("0 failed"), "\(result.output)")
    }

    @Test("cmissh's cmis-tck passes every suite over AtomPub")
    func cmisTCK() async throws {
        let tck = try Peers.venvTool("cmis-tck")
        let server = try await ServerHarness.start(sqlite: true)
        defer { Task { await server.stop() } }
        let result = try await Peers.run(
            tck, ["-u", "alice", "-p", "pw-alice", server.url("/cmis/atom").absoluteString])
        #expect(result.status == 0, "cmis-tck:\n\(result.output)")
        #expect(result.output.contains("Failed:  0"), "\(result.output)")
        #expect(!result.output.contains("Passed:  0"), "\(result.output)")
    }

    @Test("libcmis cmis-client: list repositories, create a folder and a document, get its content, delete")
    func libcmis() async throws {
        let client = try Peers.systemTool("cmis-client", package: "cmis-client")
        let server = try await ServerHarness.start(sqlite: true)
        defer { Task { await server.stop() } }
        let work = FileManager.default.temporaryDirectory.appendingPathComponent("libcmis-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: work, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: work) }
        let base = [
            "--url", server.url("/cmis/atom").absoluteString, "-u", "alice", "-p", "pw-alice", "-r", "shared",
        ]
        func run(_ arguments: [String]) async throws -> ChildProcess.Outcome {
            try await Peers.run(client, base + arguments, in: work, timeout: .seconds(60))
        }

        let repositories = try await run(["list-repos"])
        #expect(repositories.status == 0, "\(repositories.output)")
        #expect(repositories.output.contains("shared"), "\(repositories.output)")

        let root = try await run(["show-by-path", "/"])
        #expect(root.status == 0, "\(root.output)")
        let rootId = try #require(Self.value(of: "Id", in: root.output), "no Id in:\n\(root.output)")

        let folder = try await run(["create-folder", rootId, "libcmis-folder"])
        #expect(folder.status == 0, "\(folder.output)")
        let folderId = try #require(Self.value(of: "Id", in: folder.output), "no Id in:\n\(folder.output)")

        let text = "hello from libcmis\n"
        let input = work.appendingPathComponent("input.txt")
        try Data(text.utf8).write(to: input)
        let document = try await run([
            "--input-file", input.path, "--input-type", "text/plain", "--input-name", "hello.txt",
            "create-document", folderId, "hello.txt",
        ])
        #expect(document.status == 0, "\(document.output)")
        let documentId = try #require(Self.value(of: "Id", in: document.output), "no Id in:\n\(document.output)")

        let content = try await run(["get-content", documentId])
        #expect(content.status == 0, "\(content.output)")
        let saved = try FileManager.default.contentsOfDirectory(atPath: work.path).filter { $0 != "input.txt" }
        let downloaded = saved.compactMap { try? String(contentsOf: work.appendingPathComponent($0), encoding: .utf8) }
        #expect(downloaded.contains(text), "saved files: \(saved)\n\(content.output)")

        let deleted = try await run(["delete", documentId, folderId])
        #expect(deleted.status == 0, "\(deleted.output)")
        let gone = try await run(["show-by-id", folderId])
        #expect(gone.status != 0 || gone.output.localizedCaseInsensitiveContains("not found"), "\(gone.output)")
    }

    /// `Id: 42` (cmis-client prints `Key: value` lines).
    static func value(of key: String, in output: String) -> String? {
        for line in output.split(whereSeparator: \.isNewline) {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if trimmed.hasPrefix("\(key):") {
                let value = trimmed.dropFirst(key.count + 1).trimmingCharacters(in: .whitespaces)
                if !value.isEmpty { return value }
            }
        }
        return nil
    }
}
