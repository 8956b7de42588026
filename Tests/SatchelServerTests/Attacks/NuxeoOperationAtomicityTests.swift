import Foundation
import SatchelCMISCore
import SatchelHTTP
import SatchelJSON
import SatchelNuxeo
import SatchelServer
import SatchelTestSupport
import Testing

extension Attacks {
    /// `Document.Move` and `Document.Copy` with a name the repository refuses: the operation is refused whole, where
    /// before the move or copy was committed and only the rename failed (409), leaving the document moved, or a copy
    /// under the old name.
    @Suite("Nuxeo operations that half happen")
    struct NuxeoOperationAtomicity {
        @Test(
            "a move or copy with a bad or taken name changes nothing",
            arguments: ["Document.Move", "Document.Copy"], ["bad/name", "..", "taken.txt"])
        func moveOrCopyWithBadName(operation: String, name: String) async throws {
            let harness = try await ServerHarness.start()
            try await withCleanup { () async throws in
                let nuxeo = NuxeoFacadeTests.nuxeo(harness, user: "admin")
                _ = try await nuxeo.create(in: "/", type: "Folder", name: "From")
                _ = try await nuxeo.create(in: "/", type: "Folder", name: "To")
                let document = try await nuxeo.create(in: "/From", type: "File", name: "a.txt")
                _ = try await nuxeo.create(in: "/To", type: "File", name: "taken.txt")
                let refused = await #expect(throws: NuxeoError.self) {
                    _ = try await nuxeo.execute(
                        operation, input: document.uid, params: ["target": "/To", "name": .string(name)])
                }
                #expect(refused.map { (400...499).contains($0.status ?? 0) } == true, "\(String(describing: refused))")
                let stayed = try await nuxeo.document(path: "/From/a.txt")
                #expect(stayed.uid == document.uid && stayed.title == "a.txt")
                guard
                    case .documents(let inTarget)? = try await nuxeo.execute("Document.GetChildren", input: "/To")
                else {
                    Issue.record("Document.GetChildren answered no documents")
                    return
                }
                #expect(inTarget.entries.map(\.title) == ["taken.txt"], "\(operation) \(name)")
                // And with a good name both go through, renamed.
                guard
                    case .document(let done)? = try await nuxeo.execute(
                        operation, input: document.uid, params: ["target": "/To", "name": "b.txt"])
                else {
                    Issue.record("\(operation) answered no document")
                    return
                }
                #expect(done.path == "/To/b.txt")
            } cleanup: {
                await harness.stop()
            }
        }
    }
}
