import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServer
import Testing

/// Satchel's own CMIS client against `satchel serve` with the real repository engine.
@Suite("End to end with CMISSession", .serialized)
struct ClientEndToEndTests {
    static let server = Task { try await ServerHarness.start() }

    static func session(_ harness: ServerHarness, user: String, pageSize: Int = 100) async throws -> CMISSession {
        let parameters = SessionParameters(
            url: MobileDocuments.endpoint(for: harness.url("/"), binding: .browser), preferMyDocuments: true,
            auth: [BasicAuth(user: user, password: "pw-\(user)")],
            tokenHeader: "X-CSRF-Token",
            pageSize: pageSize)
        return try await CMISSession.connect(parameters)
    }

    @Test("create, list (paged), get by path, update, rename, content with ranges, query, delete")
    func lifecycle() async throws {
        let harness = try await Self.server.value
        let session = try await Self.session(harness, user: "alice", pageSize: 2)
        #expect(session.repositoryId == "mydocs-alice")
        let home = try #require(session.myDocumentsFolderId)
        let homePath = try await session.object(id: home).path ?? "/"

        let folder = try await session.createFolder(named: "Projects", in: home)
        let folderId = try #require(folder.id)
        var payloads: [String: Data] = [:]
        for index in 0..<5 {
            let bytes = Data(
                Array("document number \(index) ".utf8) + (0..<2_000).map { UInt8(($0 * 7 + index) % 256) })
            let name = "doc-\(index).txt"
            payloads[name] = bytes
            let document = try await session.createDocument(
                named: name, in: folderId, content: .data(bytes, filename: name, mimeType: "text/plain"))
            #expect(document.name == name)
            #expect(document.contentStreamLength == Int64(bytes.count))
        }

        var listed: [String] = []
        for try await child in session.children(of: folderId) { listed.append(child.object.name ?? "") }
        #expect(listed.sorted() == payloads.keys.sorted())
        let firstPage = try await session.childrenPage(of: folderId, skipCount: 0, maxItems: 2)
        #expect(firstPage.objects.count == 2)
        #expect(firstPage.hasMoreItems)

        // Query results as a lazy sequence: three pages of two, requested ahead of iteration.
        var statement = QueryStatement("SELECT * FROM cmis:document WHERE IN_FOLDER(?) ORDER BY cmis:name")
        statement.set(1, id: folderId)
        var queried: [String] = []
        for try await document in try session.queryResults(statement) { queried.append(document.name ?? "") }
        #expect(queried == payloads.keys.sorted())
        // Several objects by id, in the order asked for, two requests at a time.
        let ids = try await session.children(of: folderId).reduce(into: [String]()) { $0.append($1.object.id ?? "") }
        let objects = try await session.objects(ids: ids.reversed(), useCache: false, maxConcurrentRequests: 2)
        #expect(objects.map { $0.id ?? "" } == ids.reversed())
        await #expect(throws: CMISError.self) {
            _ = try await session.objects(ids: ids + ["no-such-object"], useCache: false)
        }

        let prefix = homePath == "/" ? "" : homePath
        let byPath = try await session.object(at: "\(prefix)/Projects/doc-3.txt", useCache: false)
        #expect(byPath.name == "doc-3.txt")
        let documentId = try #require(byPath.id)

        let whole = try await session.content(of: documentId)
        #expect(whole == payloads["doc-3.txt"])
        let slice = try await session.content(of: documentId, range: .bytes(5...14))
        #expect(slice == payloads["doc-3.txt"]?.subdata(in: 5..<15))
        let tail = try await session.content(of: documentId, range: .suffix(4))
        #expect(tail == payloads["doc-3.txt"]?.suffix(4))

        let described = try await session.updateProperties(
            of: documentId, [CMISProperty(id: "cmis:description", type: .string, values: [.string("third")])])
        #expect(described.objectDescription == "third")
        let renamed = try await session.rename(documentId, to: "renamed.txt")
        #expect(renamed.name == "renamed.txt")
        let fetched = try await session.object(at: "\(prefix)/Projects/renamed.txt", useCache: false)
        #expect(fetched.id == documentId)

        let results = try await session.query("SELECT * FROM cmis:document WHERE cmis:name = 'renamed.txt'")
        #expect(results.objects.count == 1)
        #expect(results.objects.first?.id == documentId)

        try await session.delete(documentId)
        await #expect(throws: CMISError.self) { _ = try await session.object(id: documentId, useCache: false) }
        var after: [String] = []
        for try await child in session.children(of: folderId) { after.append(child.object.name ?? "") }
        #expect(after.count == 4)
    }

    @Test("another user gets objectNotFound for everything in alice's MyDocuments")
    func isolation() async throws {
        let harness = try await Self.server.value
        let alice = try await Self.session(harness, user: "alice")
        let home = try #require(alice.myDocumentsFolderId)
        let secret = try await alice.createDocument(
            named: "secret.txt", in: home, content: .data(Data("top secret".utf8), filename: "secret.txt"))
        let id = try #require(secret.id)
        let folder = try #require(try await alice.createFolder(named: "Private", in: home).id)

        let bob = try await Self.session(harness, user: "bob")
        #expect(bob.repositoryId == "mydocs-bob")
        #expect(
            try await CMISSession.repositories(
                SessionParameters(
                    url: MobileDocuments.endpoint(for: harness.url("/"), binding: .browser),
                    auth: [BasicAuth(user: "bob", password: "pw-bob")])
            ).allSatisfy { $0.id != "mydocs-alice" })
        let bobToken = try #require(try await harness.token(for: "bob"))

        let base = "/mcm/b/json/mydocs-alice"
        let reads = [
            "\(base)?cmisselector=repositoryInfo",
            "\(base)/root?objectId=\(id)&cmisselector=object",
            "\(base)/root?objectId=\(id)&cmisselector=content",
            "\(base)/root?objectId=\(id)&cmisselector=parents",
            "\(base)/root?objectId=\(id)&cmisselector=allowableActions",
            "\(base)/root?objectId=\(folder)&cmisselector=children",
            "\(base)/root/secret.txt?cmisselector=object",
            "\(base)?cmisselector=query&q=SELECT%20*%20FROM%20cmis%3Adocument",
        ]
        for path in reads {
            let response = try await harness.send(.get, path, user: "bob")
            #expect(response.status == 404, "\(path)")
            #expect(exception(response) == "objectNotFound", "\(path)")
        }
        let changes: [[(String, String)]] = [
            [("cmisaction", "update"), ("propertyId[0]", "cmis:name"), ("propertyValue[0]", "stolen")],
            [("cmisaction", "delete")],
            [("cmisaction", "createFolder"), ("propertyId[0]", "cmis:name"), ("propertyValue[0]", "x")],
            [("cmisaction", "move"), ("targetFolderId", folder)],
        ]
        for fields in changes {
            let response = try await harness.post(
                "\(base)/root?objectId=\(id)", user: "bob", fields: fields, headers: [("X-CSRF-Token", bobToken)])
            #expect(response.status == 404, "\(fields[0].1)")
            #expect(exception(response) == "objectNotFound", "\(fields[0].1)")
        }
        // Still there, untouched, for alice.
        let still = try await alice.object(id: id, useCache: false)
        #expect(still.name == "secret.txt")
    }

    @Test("getObjectParents gives the relative path segment only when includeRelativePathSegment is set")
    func parentsPathSegment() async throws {
        let harness = try await Self.server.value
        let session = try await Self.session(harness, user: "alice")
        let home = try #require(session.myDocumentsFolderId)
        let document = try await session.createDocument(
            named: "segment.txt", in: home, content: .data(Data("x".utf8), filename: "segment.txt"))
        let id = try #require(document.id)
        let base = "/mcm/b/json/mydocs-alice/root?objectId=\(id)&cmisselector=parents"
        for (query, expected) in [("", nil), ("&includeRelativePathSegment=true", "segment.txt")] {
            let response = try await harness.send(.get, base + query, user: "alice")
            #expect(response.status == 200)
            let parents = try BrowserParser.parents(response.body)
            #expect(parents.map(\.object.id) == [home])
            #expect(parents.first?.relativePathSegment == expected, "\(query)")
        }
        try await session.delete(id)
    }
}
