import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServer
import SatchelTestSupport
import Testing

extension Attacks {
    /// Bob may read alice's document D and write his own folder W. Filing D in W must not give him more than read:
    /// every write he tries afterwards is refused, over both bindings, and D is left exactly as it was.
    @Suite("Filing an object grants nothing")
    struct MultiFilingEscalation {
        @Test(arguments: SessionParameters.Binding.allCases)
        func readerFilesADocumentInHisFolderAndTriesEveryWrite(binding: SessionParameters.Binding) async throws {
            let harness = try await ServerHarness.start()
            try await withCleanup { () async throws in
                let admin = try await harness.session("admin", binding: binding)
                let alice = try await harness.session("alice", binding: binding)
                let bob = try await harness.session("bob", binding: binding)

                // Only alice may write the shared repository; bob may read D and write W.
                let root = admin.repositoryInfo.rootFolderId
                _ = try await admin.applyACL(
                    to: root, adding: [ACE(principalId: "alice", permissions: ["cmis:write"])],
                    removing: [ACE(principalId: "cmis:anyone", permissions: ["cmis:write"])])
                let folderP = try #require(try await alice.createFolder(named: "P", in: root).id)
                let folderW = try #require(try await alice.createFolder(named: "W", in: root).id)
                let original = Data("alice's words".utf8)
                let document = try await alice.createDocument(
                    named: "D.txt", in: folderP, content: .data(original, filename: "D.txt", mimeType: "text/plain"))
                let documentId = try #require(document.id)
                _ = try await admin.applyACL(
                    to: documentId, adding: [ACE(principalId: "bob", permissions: ["cmis:read"])])
                _ = try await admin.applyACL(
                    to: folderW, adding: [ACE(principalId: "bob", permissions: ["cmis:write"])])
                let folderW2 = try #require(try await bob.createFolder(named: "W2", in: folderW).id)

                // The filing itself is allowed: it needs read on D and write on W.
                _ = try await bob.addToFolder(documentId, folderId: folderW)
                let before = try await alice.object(id: documentId)
                #expect(Set(try await alice.parents(of: documentId).compactMap(\.object.id)) == [folderP, folderW])

                let attempts: [(String, () async throws -> Void)] = [
                    ("update", { _ = try await bob.rename(documentId, to: "stolen.txt") }),
                    (
                        "setContent",
                        {
                            _ = try await bob.setContent(
                                of: documentId, to: .data(Data("mine".utf8), filename: "D.txt"))
                        }
                    ),
                    ("delete", { try await bob.delete(documentId) }),
                    ("move", { _ = try await bob.move(documentId, to: folderW2, from: folderW) }),
                    ("checkOut", { _ = try await bob.checkOut(documentId) }),
                    (
                        "applyACL",
                        {
                            _ = try await bob.applyACL(
                                to: documentId, adding: [ACE(principalId: "bob", permissions: ["cmis:all"])])
                        }
                    ),
                    ("unfile from P", { _ = try await bob.removeFromFolder(documentId, folderId: folderP) }),
                ]
                for (name, attempt) in attempts {
                    let refused = await failure(attempt)
                    #expect(refused?.code == .permissionDenied, "\(name) over \(binding)")
                    #expect(refused?.status == 403, "\(name) over \(binding)")
                }
                let untouched = try await alice.object(id: documentId)
                #expect(untouched.name == "D.txt" && untouched.changeToken == before.changeToken)
                #expect(try await alice.content(of: documentId) == original)
                let bobSees = try await bob.object(
                    id: documentId, context: OperationContext(includeAllowableActions: true))
                let actions = try #require(bobSees.allowableActions)
                #expect(actions.canGetContentStream && !actions.canUpdateProperties && !actions.canDeleteObject)

                // deleteTree on W removes bob's folders and only unfiles D.
                let undeleted = try await bob.deleteTree(folderW)
                #expect(undeleted.isEmpty)
                #expect(await failure { _ = try await alice.object(id: folderW) }?.code == .objectNotFound)
                #expect(try await alice.object(id: documentId).name == "D.txt")
                #expect(try await alice.content(of: documentId) == original)
                #expect(try await alice.parents(of: documentId).compactMap(\.object.id) == [folderP])
                let direct = try await alice.acl(of: documentId).aces.filter(\.isDirect)
                #expect(
                    direct == [
                        ACE(principalId: "alice", permissions: ["cmis:all"], isDirect: true),
                        ACE(principalId: "bob", permissions: ["cmis:read"], isDirect: true),
                    ])
            } cleanup: {
                await harness.stop()
            }
        }
    }
}
