import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServer
import SatchelTestSupport
import Testing

extension Attacks {
    /// Learning about objects one may not read: their names in permission errors, their ids in the change log, and
    /// other users' activity counted by the gaps between one's own change tokens.
    @Suite("Leaks about unreadable objects")
    struct UnreadableObjectLeaks {
        @Test func deniedWritesNameNothing() async throws {
            let harness = try await ServerHarness.start()
            try await withCleanup { () async throws in
                let admin = try await harness.session("admin", binding: .browser)
                let alice = try await harness.session("alice", binding: .browser)
                let root = admin.repositoryInfo.rootFolderId
                let secret = try await alice.createFolder(named: "merger-with-initech", in: root)
                let secretId = try #require(secret.id)
                _ = try await admin.applyACL(
                    to: root, adding: [ACE(principalId: "alice", permissions: ["cmis:write"])],
                    removing: [ACE(principalId: "cmis:anyone", permissions: ["cmis:write"])])
                for (fields, what) in [
                    ([("cmisaction", "update"), ("propertyId[0]", "cmis:name"), ("propertyValue[0]", "x")], "update"),
                    ([("cmisaction", "delete")], "delete"),
                ] {
                    let response = try await harness.post(
                        "/cmis/browser/shared/root?objectId=\(secretId)", user: "bob", fields: fields)
                    #expect(response.status == 403, "\(what)")
                    let text = String(decoding: response.body, as: UTF8.self)
                    #expect(!text.contains("merger") && !text.contains(secretId), "\(what): \(text)")
                }
            } cleanup: {
                await harness.stop()
            }
        }

        @Test func theChangeLogShowsOnlyWhatTheCallerMayRead() async throws {
            let harness = try await ServerHarness.start()
            try await withCleanup { () async throws in
                let admin = try await harness.session("admin", binding: .browser)
                let alice = try await harness.session("alice", binding: .browser)
                let bob = try await harness.session("bob", binding: .browser)
                let root = admin.repositoryInfo.rootFolderId
                let start = try await bob.refreshRepositoryInfo().latestChangeLogToken
                // Alice's private folder, and a document in it created, changed and deleted; and a public document
                // deleted.
                _ = try await admin.applyACL(
                    to: root, adding: [ACE(principalId: "alice", permissions: ["cmis:write"])],
                    removing: [ACE(principalId: "cmis:anyone", permissions: ["cmis:write"])])
                let hidden = try #require(try await alice.createFolder(named: "hidden", in: root).id)
                let open = try #require(try await alice.createFolder(named: "open", in: root).id)
                _ = try await alice.applyACL(to: open, adding: [ACE(principalId: "bob", permissions: ["cmis:read"])])
                let secretDocument = try #require(try await alice.createDocument(named: "s.txt", in: hidden).id)
                _ = try await alice.rename(secretDocument, to: "t.txt")
                try await alice.delete(secretDocument)
                let publicDocument = try #require(try await alice.createDocument(named: "p.txt", in: open).id)
                try await alice.delete(publicDocument)

                func ids(_ session: CMISSession) async throws -> [String] {
                    var seen: [String] = []
                    var token = start
                    while true {
                        let page = try await session.contentChanges(since: token, maxItems: 2)
                        seen += page.objects.compactMap(\.id)
                        token = page.changeLogToken
                        if !page.hasMoreItems { break }
                    }
                    return seen
                }
                let bobSees = try await ids(bob)
                #expect(!bobSees.contains(secretDocument))
                #expect(!bobSees.contains(hidden))
                #expect(bobSees.filter { $0 == publicDocument }.count == 2)  // created, deleted
                let aliceSees = try await ids(alice)
                #expect(aliceSees.filter { $0 == secretDocument }.count == 3)
            } cleanup: {
                await harness.stop()
            }
        }

        @Test func changeTokensCountOnlyTheCallersRepository() async throws {
            let harness = try await ServerHarness.start()
            try await withCleanup { () async throws in
                let alice = try await harness.session("alice", binding: .browser, repository: "mydocs-alice")
                let bob = try await harness.session("bob", binding: .browser, repository: "mydocs-bob")
                let aliceHome = try #require(alice.myDocumentsFolderId)
                let bobHome = try #require(bob.myDocumentsFolderId)
                var tokens: [Int] = []
                for round in 0..<3 {
                    _ = try await bob.createFolder(named: "b\(round)", in: bobHome)
                    tokens.append(Int(try await bob.refreshRepositoryInfo().latestChangeLogToken ?? "") ?? -1)
                    for index in 0..<5 { _ = try await alice.createFolder(named: "a\(round)-\(index)", in: aliceHome) }
                }
                // Bob's tokens follow each other, whatever alice did meanwhile.
                #expect(tokens == [tokens[0], tokens[0] + 1, tokens[0] + 2], "\(tokens)")
            } cleanup: {
                await harness.stop()
            }
        }

        /// Through a folder bob cannot read, a document that exists and one that does not must answer alike, over
        /// every API that takes a path: otherwise names inside the folder can be guessed one request at a time.
        @Test func pathsThroughUnreadableFoldersAnswerAsMissing() async throws {
            let harness = try await ServerHarness.start()
            try await withCleanup { () async throws in
                let admin = try await harness.session("admin", binding: .browser)
                let alice = try await harness.session("alice", binding: .browser)
                let root = admin.repositoryInfo.rootFolderId
                _ = try await admin.applyACL(
                    to: root, adding: [ACE(principalId: "alice", permissions: ["cmis:write"])],
                    removing: [ACE(principalId: "cmis:anyone", permissions: ["cmis:write"])])
                let hidden = try #require(try await alice.createFolder(named: "hidden", in: root).id)
                let sub = try #require(try await alice.createFolder(named: "sub", in: hidden).id)
                _ = try await alice.createDocument(
                    named: "deep.txt", in: sub, content: .data(Data("x".utf8), filename: "deep.txt"))

                func answer(_ path: String, _ name: String) async throws -> (Int, String) {
                    let response = try await harness.send(
                        .get, path.replacingOccurrences(of: "NAME", with: name), user: "bob")
                    let body = String(decoding: response.body, as: UTF8.self)
                        .replacingOccurrences(of: name, with: "NAME")
                    return (response.status, body)
                }
                let nxql = { (folder: String) in
                    "/nuxeo/api/v1/query/NXQL?query="
                        + "SELECT * FROM Document WHERE ecm:path STARTSWITH '/hidden/\(folder)'"
                        .addingPercentEncoding(withAllowedCharacters: .alphanumerics)!
                }
                for path in [
                    "/cmis/browser/shared/root/hidden/sub/NAME?cmisselector=object",
                    "/cmis/browser/shared/root/hidden/NAME/deep.txt?cmisselector=object",
                    "/nuxeo/api/v1/path/hidden/sub/NAME", "/nuxeo/api/v1/path/hidden/NAME/deep.txt",
                ] {
                    let existing = try await answer(path, path.contains("NAME/") ? "sub" : "deep.txt")
                    let missing = try await answer(path, path.contains("NAME/") ? "nope" : "nope.txt")
                    #expect(existing.0 == 404, "\(path): \(existing)")
                    #expect(existing == missing, "\(path)")
                }
                let existing = try await harness.send(.get, nxql("sub"), user: "bob")
                let missing = try await harness.send(.get, nxql("nope"), user: "bob")
                #expect(existing.status == missing.status, "\(existing.status) \(missing.status)")
                #expect(
                    String(decoding: existing.body, as: UTF8.self).replacingOccurrences(of: "sub", with: "X")
                        == String(decoding: missing.body, as: UTF8.self).replacingOccurrences(of: "nope", with: "X"))
                // Alice herself still reaches it by path.
                let own = try await harness.send(.get, "/nuxeo/api/v1/path/hidden/sub/deep.txt", user: "alice")
                #expect(own.status == 200)
            } cleanup: {
                await harness.stop()
            }
        }
    }
}
