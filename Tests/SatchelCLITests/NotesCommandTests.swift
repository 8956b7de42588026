import Foundation
import SatchelTestSupport
import Testing

extension SatchelCLITests {
    /// `satchel notes` end to end against a MyDocuments-style server.
    @Suite struct NotesCommandTests {
        static func notes(
            _ server: CMISTestServer, _ arguments: [String], input: String? = nil, environment: [String: String] = [:]
        )
            async throws -> SatchelResult
        {
            guard let command = arguments.first else { throw CancellationError() }
            return try await SatchelProcess.run(
                ["notes", command] + arguments.dropFirst() + ["--url", server.serviceURL.absoluteString],
                environment: environment, input: input)
        }

        @Test func createListShowEditRenameDelete() async throws {
            let server = try await CMISTestServer.start(.init(token: "t-9", myDocuments: "root"))
            defer { Task { await server.stop() } }

            let create = try await Self.notes(server, ["create", "Shopping", "--text", "milk, eggs"])
            #expect(create.status == 0, "stderr: \(create.stderr)")
            #expect(create.stderr.isEmpty)
            let fromStdin = try await Self.notes(server, ["create", "Ideas"], input: "line one\nline two\n")
            #expect(fromStdin.status == 0, "stderr: \(fromStdin.stderr)")
            // Not a note: other documents in MyDocuments are not listed.
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-\(UUID())")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            defer { try? FileManager.default.removeItem(at: directory) }
            let other = directory.appendingPathComponent("other.txt")
            try Data("x".utf8).write(to: other)
            let put = try await SatchelProcess.run(
                ["cmis", "put", other.path, "/", "--mobile-documents", "--url", server.serviceURL.absoluteString])
            #expect(put.status == 0, "stderr: \(put.stderr)")

            let list = try await Self.notes(server, ["list"])
            #expect(list.status == 0, "stderr: \(list.stderr)")
            let names = list.stdoutText.split(separator: "\n").map { $0.split(separator: " ").last.map(String.init) }
            #expect(names == ["Shopping", "Ideas"] || names == ["Ideas", "Shopping"])
            #expect(list.stdoutText.contains("10  "))

            let show = try await Self.notes(server, ["show", "Ideas"])
            #expect(show.status == 0)
            #expect(show.stdoutText == "line one\nline two\n")

            let edit = try await Self.notes(server, ["edit", "Shopping", "--text", "bread"])
            #expect(edit.status == 0, "stderr: \(edit.stderr)")
            #expect(try await Self.notes(server, ["show", "Shopping"]).stdoutText == "bread")

            let editor = try await Self.notes(
                server, ["edit", "Shopping", "--editor"], environment: ["EDITOR": "sed -i s/bread/butter/"])
            #expect(editor.status == 0, "stderr: \(editor.stderr)")
            #expect(try await Self.notes(server, ["show", "Shopping"]).stdoutText == "butter")

            let rename = try await Self.notes(server, ["rename", "Shopping", "Groceries"])
            #expect(rename.status == 0, "stderr: \(rename.stderr)")
            let gone = try await Self.notes(server, ["show", "Shopping"])
            #expect(gone.status == 5)
            #expect(gone.stderr == "satchel: error: no note named \"Shopping\"\n")

            let delete = try await Self.notes(server, ["delete", "Groceries"])
            #expect(delete.status == 0, "stderr: \(delete.stderr)")
            let after = try await Self.notes(server, ["list"])
            #expect(after.stdoutText.split(separator: "\n").count == 1)
            #expect(after.stdoutText.hasSuffix("Ideas\n"))
        }

        @Test func withoutMyDocumentsTheRootFolderIsUsed() async throws {
            let server = try await CMISTestServer.start()
            defer { Task { await server.stop() } }
            let create = try await Self.notes(server, ["create", "N", "--text", "t"])
            #expect(create.status == 0, "stderr: \(create.stderr)")
            #expect(create.stderr.contains("no MyDocuments folder; using its root folder"))
            let list = try await Self.notes(server, ["list"])
            #expect(list.stdoutText.hasSuffix("  N\n"))
        }
    }
}
