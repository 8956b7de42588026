import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServerTestSupport
import SatchelTestSupport
import Testing

/// The session against `satchel serve` (alice's MyDocuments, over the Browser binding), requests recorded.
@Suite("CMIS session over the Browser binding")
struct SessionTests {
    @Test("connect: repository info, MyDocuments and its XSRF token")
    func connect() async throws {
        try await withCMISSession { _, _, session in
            #expect(session.repositoryId == "mydocs-alice")
            #expect(!session.repositoryInfo.rootFolderId.isEmpty)
            #expect(session.repositoryInfo.cmisVersionSupported == "1.1")
            #expect(session.myDocumentsFolderId == session.repositoryInfo.rootFolderId)
            #expect(session.xsrfToken?.isEmpty == false)
            #expect(
                Set(try await CMISSession.repositories(session.parameters).map(\.id)) == ["mydocs-alice", "shared"])
            let root = try await session.rootFolder()
            #expect(root.baseType == .folder && root.path == "/")
        }
    }

    @Test("create a folder and documents from Data and from a file; read them by id and by path")
    func createAndRead() async throws {
        try await withCMISSession { _, recorder, session in
            let root = session.repositoryInfo.rootFolderId
            let folder = try await session.createFolder(named: "Reports", in: root)
            let folderId = try #require(folder.id)
            #expect(folder.path == "/Reports" && folder.parentId == root)

            let note = try await session.createDocument(
                named: "my note.txt", in: folderId,
                content: .data(Data("hello CMIS".utf8), filename: "my note.txt", mimeType: "text/plain"))
            #expect(note.contentStreamLength == 10 && note.contentStreamMimeType == "text/plain")

            let file = temporaryFile("big.bin")
            defer { try? FileManager.default.removeItem(at: file) }
            try Data((0..<1_500_000).map { UInt8($0 % 251) }).write(to: file)
            let progress = Collector<TransferProgress>()
            let big = try await session.createDocument(
                named: "big.bin", in: folderId, content: .file(file, filename: "big.bin")
            ) { progress.add($0) }
            #expect(big.contentStreamLength == 1_500_000 && big.contentStreamFileName == "big.bin")
            let uploads = progress.values.filter { $0.direction == .upload }
            #expect(uploads.count >= 2)
            // Only the content going out is counted: the server's answer is not part of the upload's progress.
            #expect(uploads.count == progress.values.count, "\(progress.values)")
            #expect(uploads.last.map { $0.bytesDone == $0.totalBytes && $0.bytesDone > 1_500_000 } == true)

            let byId = try await session.object(id: try #require(note.id), useCache: false)
            let byPath = try await session.object(at: "/Reports/my note.txt")
            #expect(byId == byPath)
            #expect(byId.name == "my note.txt" && byId.baseType == .document)
            // Typed through the cached type definitions: one request per type, not per object.
            #expect(byId.properties["cmis:creationDate"]?.type == .datetime && byId.creationDate != nil)
            #expect(byId.properties["cmis:contentStreamLength"]?.type == .integer)
            #expect(recorder.selectorCount("typeDefinition") == 2, "\(recorder.selectorCount("typeDefinition"))")
        }
    }

    @Test("names and file names beyond ASCII survive a multipart upload: parts say UTF-8, the file name is RFC 5987's")
    func nonASCIIUpload() async throws {
        try await withCMISSession { _, _, session in
            let root = session.repositoryInfo.rootFolderId
            let name = "Schriftstück – Ærø 1.txt"
            let document = try await session.createDocument(
                named: name, in: root,
                content: .data(Data("Grüße".utf8), filename: name, mimeType: "text/plain; charset=utf-8"))
            let read = try await session.object(id: try #require(document.id), useCache: false)
            #expect(read.name == name)
            #expect(read.contentStreamFileName == name)
            #expect(try await session.content(of: try #require(document.id)) == Data("Grüße".utf8))
        }
    }

    @Test("children page lazily through the AsyncSequence and explicitly with hasMoreItems/numItems")
    func childrenPaging() async throws {
        try await withCMISSession(pageSize: 10) { _, recorder, session in
            let root = session.repositoryInfo.rootFolderId
            let folderId = try #require(try await session.createFolder(named: "Many", in: root).id)
            for index in 0..<25 {
                _ = try await session.createDocument(
                    named: Self.name(index), in: folderId, content: .data(Data([UInt8(index)]), filename: "d"))
            }
            var names: [String] = []
            for try await child in session.children(of: folderId) { names.append(child.pathSegment ?? "") }
            #expect(names == (0..<25).map(Self.name), "in name order, as the server lists them")
            #expect(recorder.selectorCount("children") == 3)

            var pages: [ObjectInFolderList] = []
            for try await page in session.children(of: folderId).pages { pages.append(page) }
            #expect(pages.map(\.objects.count) == [10, 10, 5])
            #expect(pages.map(\.hasMoreItems) == [true, true, false])
            #expect(pages.allSatisfy { $0.numItems == 25 })

            let last = try await session.childrenPage(of: folderId, skipCount: 20)
            #expect(last.objects.count == 5 && !last.hasMoreItems && last.numItems == 25)
        }
    }

    /// `doc-07.txt`: names whose order is their number's.
    static func name(_ index: Int) -> String { "doc-" + (index < 10 ? "0" : "") + "\(index).txt" }

    static let contentCases: [(ByteRange?, Range<Int>)] = [(nil, 0..<300_000), (.bytes(1000...1999), 1000..<2000)]

    @Test("content into memory and into a file, whole or a byte range", arguments: contentCases)
    func content(range: ByteRange?, expected: Range<Int>) async throws {
        try await withCMISSession { _, _, session in
            let bytes = Data((0..<300_000).map { UInt8($0 % 251) })
            let document = try await session.createDocument(
                named: "data.bin", in: session.repositoryInfo.rootFolderId, content: .data(bytes, filename: "data.bin"))
            let id = try #require(document.id)
            #expect(try await session.content(of: id, range: range) == bytes.subdata(in: expected))

            let file = temporaryFile("download.bin")
            defer { try? FileManager.default.removeItem(at: file) }
            let progress = Collector<TransferProgress>()
            try await session.downloadContent(of: id, to: file, range: range) { progress.add($0) }
            #expect(try Data(contentsOf: file) == bytes.subdata(in: expected))
            #expect(progress.values.last?.bytesDone == Int64(expected.count))
        }
    }

    @Test("rename, query and delete")
    func updateQueryDelete() async throws {
        try await withCMISSession { _, _, session in
            let root = session.repositoryInfo.rootFolderId
            let folderId = try #require(try await session.createFolder(named: "Q", in: root).id)
            let first = try await session.createDocument(named: "a.txt", in: folderId)
            _ = try await session.createDocument(named: "b.txt", in: folderId)
            _ = try await session.createDocument(named: "elsewhere.txt", in: root)
            let id = try #require(first.id)
            _ = try await session.object(id: id)  // now cached

            let renamed = try await session.rename(id, to: "renamed.txt")
            #expect(renamed.name == "renamed.txt")
            #expect(try await session.object(id: id).name == "renamed.txt")
            #expect(try await session.object(at: "/Q/renamed.txt").id == id)

            var statement = QueryStatement("SELECT * FROM cmis:document WHERE IN_FOLDER(?)")
            statement.set(1, id: folderId)
            let results = try await session.query(statement)
            #expect(results.objects.compactMap(\.name).sorted() == ["b.txt", "renamed.txt"])
            #expect(results.numItems == 2 && !results.hasMoreItems)
            let page = try await session.query("SELECT * FROM cmis:document", maxItems: 2)
            #expect(page.objects.count == 2 && page.hasMoreItems && page.numItems == 3)

            try await session.delete(id)
            let error = await #expect(throws: CMISError.self) { try await session.object(id: id) }
            #expect(error?.code == .objectNotFound)
        }
    }

    enum Failure: String, CaseIterable { case missingPath, duplicateName, badQuery, noContent }

    @Test("refusals carry the server's exception and message", arguments: Failure.allCases)
    func errors(_ failure: Failure) async throws {
        try await withCMISSession { _, _, session in
            let root = session.repositoryInfo.rootFolderId
            let taken = try #require(try await session.createFolder(named: "Taken", in: root).id)
            let error = await #expect(throws: CMISError.self) {
                switch failure {
                case .missingPath: _ = try await session.object(at: "/Nowhere/x.txt")
                case .duplicateName: _ = try await session.createFolder(named: "Taken", in: root)
                case .badQuery: _ = try await session.query("DELETE FROM everything")
                case .noContent: try await session.downloadContent(of: taken, to: temporaryFile())
                }
            }
            // The server's own code, status and message (which names what was refused).
            let expected: (CMISError.Code, Int, String) =
                switch failure {
                case .missingPath: (.objectNotFound, 404, "Nowhere")
                case .duplicateName: (.nameConstraintViolation, 409, "Taken")
                case .badQuery: (.invalidArgument, 400, "DELETE")
                case .noContent: (.constraint, 409, "content")
                }
            #expect(error?.code == expected.0)
            #expect(error?.status == expected.1)
            #expect(error?.serverException == expected.0.name)
            #expect(error?.message.contains(expected.2) == true, "\(String(describing: error?.message))")
        }
    }

    @Test(
        "the repository token goes back on POSTs; after a server restart the stale one is refused until the info is read again",
        arguments: [true, false])
    func token(sentAsHeaderToo: Bool) async throws {
        try await withCMISSession(tokenHeader: sentAsHeaderToo ? "X-CSRF-Token" : nil, sqlite: true) {
            server, recorder, session in
            let root = session.repositoryInfo.rootFolderId
            _ = try await session.createFolder(named: "first", in: root)
            let withHeader = recorder.count { $0.method == .post && $0.headers["X-CSRF-Token"] != nil }
            #expect((withHeader == 1) == sentAsHeaderToo)
            let before = session.xsrfToken
            // A restart under a new secret (`--new-xsrf-secret`), so the token the session holds is stale.
            try await server.restart(newXSRFSecret: true)
            let error = await #expect(throws: CMISError.self) {
                _ = try await session.createFolder(named: "second", in: root)
            }
            #expect(error?.code == .permissionDenied && error?.message.contains("XSRF token") == true)

            try await session.refreshRepositoryInfo()
            #expect(session.xsrfToken != nil && session.xsrfToken != before)
            #expect(try await session.createFolder(named: "second", in: root).name == "second")
        }
    }

    @Test("a wrong password is unauthorized")
    func wrongPassword() async throws {
        let server = try await LiveServer.start(users: ["alice"])
        let parameters = SessionParameters(
            url: server.baseURL.appendingPathComponent("cmis/browser"),
            auth: [BasicAuth(user: "alice", password: "nope")])
        let error = await #expect(throws: CMISError.self) { _ = try await CMISSession.connect(parameters) }
        #expect(error?.code == .unauthorized && error?.status == 401)
        await server.stop()
    }
}
