import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServerTestSupport
import SatchelTestSupport
import Testing

/// The Notes library against `satchel serve`: alice's MyDocuments, over the Browser binding.
@Suite("Mobile Documents notes")
struct MobileDocumentsNotesTests {
    @Test("create, list (notes only), read, update guarded by the change token, rename, delete")
    func lifecycle() async throws {
        try await withCMISSession { _, _, session in
            let notes = MobileDocumentsNotes(session: session)
            #expect(notes.isMyDocuments && notes.folderId == session.myDocumentsFolderId)
            let shopping = try await notes.create(named: "Shopping", text: Data("milk".utf8))
            _ = try await notes.create(named: "Ideas", text: Data("one\ntwo\n".utf8))
            _ = try await session.createDocument(
                named: "other.txt", in: notes.folderId, content: .data(Data("x".utf8), filename: "other.txt"))
            #expect(Set(try await notes.notes().compactMap(\.name)) == ["Shopping", "Ideas"])
            #expect(try await notes.note(named: "Nothing") == nil)
            let ideas = try #require(try await notes.note(named: "Ideas"))
            #expect(try await notes.text(of: ideas) == Data("one\ntwo\n".utf8))

            let updated = try await notes.update(shopping, text: Data("milk, eggs".utf8))
            #expect(updated.id == shopping.id)
            #expect(try await notes.text(of: updated) == Data("milk, eggs".utf8))
            // The copy read before that change is stale: its update is refused, and the text stays.
            let stale = await #expect(throws: CMISError.self) {
                _ = try await notes.update(shopping, text: Data("lost".utf8))
            }
            #expect(stale?.code == .updateConflict)
            #expect(try await notes.text(of: updated) == Data("milk, eggs".utf8))

            let renamed = try await notes.rename(updated, to: "Groceries")
            #expect(renamed.name == "Groceries" && renamed.id == shopping.id)
            try await notes.delete(renamed)
            #expect(try await notes.notes().compactMap(\.name) == ["Ideas"])
        }
    }

    @Test("a repository without MyDocuments keeps its notes in the root folder")
    func withoutMyDocuments() async throws {
        let server = try await LiveServer.start(users: ["alice"])
        try await withCleanup { () async throws in
            let session = try await CMISSession.connect(
                SessionParameters(
                    url: server.baseURL.appendingPathComponent("cmis/browser"), repositoryId: "shared",
                    auth: [BasicAuth(user: "alice", password: "pw-alice")]))
            let notes = MobileDocumentsNotes(session: session)
            #expect(!notes.isMyDocuments && notes.folderId == session.repositoryInfo.rootFolderId)
            _ = try await notes.create(named: "N", text: Data("t".utf8))
            #expect(try await notes.notes().compactMap(\.name) == ["N"])
        } cleanup: {
            await server.stop()
        }
    }
}
