import Foundation
import SatchelServerTestSupport
import SatchelServer
import SatchelTestSupport
import Testing

extension SatchelCLITests {
    /// `satchel notes` against a live `satchel serve` (SQLite store), over both bindings: the URL is completed to
    /// the Mobile Documents mount point, the MyDocuments repository is found by its extension, and the XSRF token
    /// from its repository info goes on every change.
    @Suite struct NotesServerCommandTests {
        @Test(arguments: ["browser", "atom"])
        func notesLifecycle(binding: String) async throws {
            let server = try await LiveServer.start(users: ["alice", "bob"], sqlite: true)
            try await withCleanup { () async throws in
                func notes(
                    _ arguments: [String], user: String = "alice", as other: String? = nil, input: String? = nil,
                    editor: String? = nil
                ) async throws -> SatchelResult {
                    var environment = ["SATCHEL_PASSWORD": "pw-\(user)"]
                    environment["EDITOR"] = editor
                    return try await SatchelProcess.run(
                        ["notes"] + arguments + [
                            "--url", server.baseURL.absoluteString, "--binding", other ?? binding, "--user", user,
                        ], environment: environment, input: input)
                }

                let create = try await notes(["create", "Shopping", "--text", "milk, eggs"])
                #expect(create.status == 0, "stderr: \(create.stderr)")
                let fromStdin = try await notes(["create", "Ideas"], input: "line one\nline two\n")
                #expect(fromStdin.status == 0, "stderr: \(fromStdin.stderr)")

                // The other binding sees the same notes: both are the same MyDocuments repository.
                let otherBinding = binding == "atom" ? "browser" : "atom"
                for reader in [binding, otherBinding] {
                    let list = try await notes(["list"], as: reader)
                    #expect(list.status == 0, "\(reader): \(list.stderr)")
                    let names = Set(list.stdoutText.split(separator: "\n").compactMap { $0.split(separator: " ").last })
                    #expect(names == ["Shopping", "Ideas"], "\(reader): \(list.stdoutText)")
                }
                // Bob's MyDocuments is his own.
                let bobs = try await notes(["list"], user: "bob")
                #expect(bobs.status == 0, "stderr: \(bobs.stderr)")
                #expect(bobs.stdoutText.isEmpty)
                #expect(try await notes(["show", "Ideas"], user: "bob").status == 5)

                #expect(try await notes(["show", "Ideas"]).stdoutText == "line one\nline two\n")
                let edit = try await notes(["edit", "Shopping", "--text", "bread"])
                #expect(edit.status == 0, "stderr: \(edit.stderr)")
                let editor = try await notes(["edit", "Shopping", "--editor"], editor: "sed -i s/bread/butter/")
                #expect(editor.status == 0, "stderr: \(editor.stderr)")
                let rename = try await notes(["rename", "Shopping", "Groceries"])
                #expect(rename.status == 0, "stderr: \(rename.stderr)")
                #expect(try await notes(["show", "Groceries"], as: otherBinding).stdoutText == "butter")
                #expect(try await notes(["show", "Shopping"]).status == 5)
                let delete = try await notes(["delete", "Groceries"])
                #expect(delete.status == 0, "stderr: \(delete.stderr)")
                let after = try await notes(["list"], as: otherBinding)
                #expect(after.stdoutText.split(separator: "\n").count == 1)
                #expect(after.stdoutText.hasSuffix("Ideas\n"))
            } cleanup: {
                await server.stop()
            }
        }
    }
}
