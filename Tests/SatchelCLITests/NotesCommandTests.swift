import Foundation
import SatchelServerTestSupport
import SatchelTestSupport
import Testing

extension SatchelCLITests {
    /// `satchel notes` against `satchel serve`: what the lifecycle test (`NotesServerCommandTests`) leaves out.
    @Suite struct NotesCommandTests {
        static func notes(
            _ server: LiveServer, _ arguments: [String], input: String? = nil, extra: [String] = []
        ) async throws -> SatchelResult {
            try await SatchelProcess.run(
                ["notes"] + arguments + ["--url", server.baseURL.absoluteString, "--user", "alice"] + extra,
                environment: ["SATCHEL_PASSWORD": "pw-alice"], input: input)
        }

        @Test func otherDocumentsAreNotNotesAndAMissingNoteIsSaid() async throws {
            let server = try await LiveServer.start(users: ["alice"])
            try await withCleanup { () async throws in
                #expect(try await Self.notes(server, ["create", "Shopping", "--text", "milk, eggs"]).status == 0)
                let other = server.directory.appendingPathComponent("other.txt")
                try Data("x".utf8).write(to: other)
                let put = try await SatchelProcess.run(
                    [
                        "cmis", "put", other.path, "/", "--mobile-documents", "--url", server.baseURL.absoluteString,
                        "--user", "alice",
                    ], environment: ["SATCHEL_PASSWORD": "pw-alice"])
                #expect(put.status == 0, "stderr: \(put.stderr)")
                let list = try await Self.notes(server, ["list"])
                #expect(list.status == 0, "stderr: \(list.stderr)")
                #expect(list.stdoutText.split(separator: "\n").map { $0.split(separator: " ").last } == ["Shopping"])
                #expect(list.stdoutText.contains("10  "), "the size of the note: \(list.stdoutText)")
                let gone = try await Self.notes(server, ["show", "Nothing"])
                #expect(gone.status == 5)
                #expect(gone.stderr == "satchel: error: no note named \"Nothing\"\n")
            } cleanup: {
                await server.stop()
            }
        }

        @Test func withoutMyDocumentsTheRootFolderIsUsed() async throws {
            let server = try await LiveServer.start(users: ["alice"])
            try await withCleanup { () async throws in
                let create = try await Self.notes(
                    server, ["create", "N", "--text", "t"], extra: ["--repository", "shared"])
                #expect(create.status == 0, "stderr: \(create.stderr)")
                #expect(create.stderr.contains("no MyDocuments folder; using its root folder"))
                let list = try await Self.notes(server, ["list"], extra: ["--repository", "shared"])
                #expect(list.stdoutText.hasSuffix("  N\n"))
                #expect(try await Self.notes(server, ["list"]).stdoutText.isEmpty, "alice's MyDocuments has no notes")
            } cleanup: {
                await server.stop()
            }
        }
    }
}
