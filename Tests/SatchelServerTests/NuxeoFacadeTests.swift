import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelJSON
import SatchelNuxeo
import SatchelServer
import Synchronization
import Testing

/// Satchel's Nuxeo client against the Nuxeo REST API of `satchel serve`: what CMIS created is read over Nuxeo
/// (documents by path and id, children page by page, blobs described as Nuxeo does, login), and errors come back as
/// Nuxeo's exception entity.
@Suite("Nuxeo REST facade with NuxeoSession", .serialized)
struct NuxeoFacadeTests {
    static let server = Task { try await ServerHarness.start() }

    static func nuxeo(
        _ harness: ServerHarness, user: String, password: String? = nil, repository: String? = "default"
    )
        -> NuxeoSession
    {
        NuxeoSession(
            configuration: .init(
                serverURL: harness.url("/nuxeo"), repository: repository,
                http: HTTPClient.Configuration(retry: .never),
                auth: [BasicAuth(user: user, password: password ?? "pw-\(user)")]))
    }

    @Test("documents created over CMIS, read over Nuxeo REST")
    func createdOverCMIS() async throws {
        let harness = try await Self.server.value
        let cmis = try await CMISSession.connect(
            SessionParameters(
                url: harness.url("/cmis/browser"), repositoryId: "shared",
                auth: [BasicAuth(user: "admin", password: "pw-admin")]))
        let root = cmis.repositoryInfo.rootFolderId
        let folder = try await cmis.createFolder(named: "NuxeoTest", in: root)
        let folderID = try #require(folder.id)
        var sizes: [String: Int64] = [:]
        for index in 0..<3 {
            let bytes = Data("nuxeo \(index) ".utf8 + (0..<(100 * index)).map { _ in UInt8(65) })
            let created = try await cmis.createDocument(
                named: "doc-\(index).txt", in: folderID,
                content: .data(bytes, filename: "doc-\(index).txt", mimeType: "text/plain"))
            sizes[created.id ?? ""] = Int64(bytes.count)
        }

        let nuxeo = Self.nuxeo(harness, user: "admin")
        let read = try await nuxeo.document(path: "/NuxeoTest")
        #expect(read.uid == folderID && read.type == "Folder" && read.title == "NuxeoTest")
        #expect(read.path == "/NuxeoTest" && read.facets.contains("Folderish"))

        var children: [NuxeoDocument] = []
        for try await child in nuxeo.children(ofPath: "/NuxeoTest", pageSize: 2) { children.append(child) }
        #expect(children.count == 3, "two pages of two")
        for child in children {
            #expect(child.type == "File" && child.path == "/NuxeoTest/" + (child.title ?? ""))
            #expect(child.blob?.length == sizes[child.uid] && child.blob?.mimeType == "text/plain")
            #expect(child.lastModified != nil && child[string: "dc:creator"] == "admin")
        }
        let first = try #require(children.first)
        let byID = try await nuxeo.document(id: first.uid)
        #expect(byID.path == first.path && byID.changeToken == first.changeToken)
        // Without `repo/default/` too.
        #expect(try await Self.nuxeo(harness, user: "admin", repository: nil).document(id: first.uid).uid == first.uid)

        // NXQL, translated to the repository's query engine, paged.
        var found: [String] = []
        for try await document in nuxeo.query(
            "SELECT * FROM Document WHERE ecm:parentId = '\(folderID)' AND ecm:isTrashed = 0 ORDER BY dc:title DESC",
            pageSize: 2)
        {
            found.append(document.title ?? "")
        }
        #expect(found == ["doc-2.txt", "doc-1.txt", "doc-0.txt"])
        var under: [String] = []
        for try await document in nuxeo.query(
            "SELECT * FROM File WHERE ecm:path STARTSWITH '/NuxeoTest' AND dc:title LIKE 'doc-1%'")
        {
            under.append(document.path ?? "")
        }
        #expect(under == ["/NuxeoTest/doc-1.txt"])
        // `&`, `+` and `=` inside NXQL arrive as written (the old SDK broke them).
        _ = try await nuxeo.create(in: "/NuxeoTest", type: "File", name: "R&D + QA = 1")
        var odd: [String] = []
        for try await document in nuxeo.query("SELECT * FROM File WHERE dc:title = 'R&D + QA = 1'") {
            odd.append(document.title ?? "")
        }
        #expect(odd == ["R&D + QA = 1"])
        let untranslated = await #expect(throws: NuxeoError.self) {
            for try await _ in nuxeo.query("SELECT * FROM Document WHERE dc:title = 'a' OR dc:title = 'b'") {}
        }
        #expect(
            untranslated?.status == 400 && untranslated?.message.contains("OR") == true,
            "\(String(describing: untranslated))")

        let login = try await nuxeo.login()
        #expect(login.username == "admin" && login.isAdministrator)
    }

    @Test("errors are Nuxeo's exception entity: missing documents, wrong passwords, another user's space")
    func errors() async throws {
        let harness = try await Self.server.value
        let missing = await #expect(throws: NuxeoError.self) {
            try await Self.nuxeo(harness, user: "alice").document(path: "/no/such/thing")
        }
        #expect(missing?.status == 404 && missing?.code == .server, "\(String(describing: missing))")
        let refused = await #expect(throws: NuxeoError.self) {
            try await Self.nuxeo(harness, user: "alice", password: "wrong").login()
        }
        #expect(refused?.status == 401, "\(String(describing: refused))")
        let alice = try await CMISSession.connect(
            SessionParameters(
                url: harness.url("/cmis/browser"), preferMyDocuments: true,
                auth: [BasicAuth(user: "alice", password: "pw-alice")],
                tokenHeader: "X-CSRF-Token"))
        let home = try #require(alice.myDocumentsFolderId)
        let secret = try await alice.createDocument(
            named: "secret.txt", in: home,
            content: .data(Data("x".utf8), filename: "secret.txt", mimeType: "text/plain"))
        let bobTries = await #expect(throws: NuxeoError.self) {
            try await Self.nuxeo(harness, user: "bob", repository: "mydocs-alice").document(id: secret.id ?? "")
        }
        #expect([403, 404].contains(bobTries?.status ?? 0), "\(String(describing: bobTries))")
        #expect(
            try await Self.nuxeo(harness, user: "alice", repository: "mydocs-alice").document(id: secret.id ?? "").title
                == "secret.txt")
    }

    @Test("create, update and delete over Nuxeo, seen over CMIS; content written over CMIS downloaded over Nuxeo")
    func writes() async throws {
        let harness = try await Self.server.value
        let nuxeo = Self.nuxeo(harness, user: "admin")
        let folder = try await nuxeo.create(
            in: "/", type: "Workspace", name: "FromNuxeo", properties: ["dc:description": "made over REST"])
        #expect(folder.type == "Workspace" && folder.path == "/FromNuxeo" && folder.title == "FromNuxeo")
        let note = try await nuxeo.create(in: "/FromNuxeo", type: "File", name: "note.txt")
        #expect(note.path == "/FromNuxeo/note.txt" && note.blob == nil && note.type == "File")

        let cmis = try await CMISSession.connect(
            SessionParameters(
                url: harness.url("/cmis/browser"), repositoryId: "shared",
                auth: [BasicAuth(user: "admin", password: "pw-admin")]))
        let seen = try await cmis.object(at: "/FromNuxeo", useCache: false)
        #expect(seen.id == folder.uid && seen.objectDescription == "made over REST")

        // Retitled over Nuxeo: the title changes, the name (the path's last segment) stays, as on a Nuxeo server;
        // CMIS sees the title as dc:title. A stale change token is refused (409).
        let renamed = try await nuxeo.update(note, properties: ["dc:title": "Renamed note"])
        #expect(renamed.path == "/FromNuxeo/note.txt" && renamed.title == "Renamed note")
        let retitled = try await cmis.object(id: note.uid, useCache: false)
        #expect(retitled.name == "note.txt" && retitled.objectTypeId == "File")
        #expect(retitled.properties["dc:title"]?.stringValue == "Renamed note")
        let stale = await #expect(throws: NuxeoError.self) {
            try await nuxeo.update(note, properties: ["dc:title": "again.txt"])
        }
        #expect(stale?.status == 409, "\(String(describing: stale))")

        // Content written over CMIS, downloaded over Nuxeo.
        let bytes = Data((0..<50_000).map { UInt8($0 % 251) })
        _ = try await cmis.setContent(
            of: note.uid, to: .data(bytes, filename: "renamed.txt", mimeType: "application/octet-stream"))
        let file = harness.dataDirectory.appendingPathComponent("downloaded.bin")
        try await nuxeo.downloadBlob(id: note.uid, to: file)
        #expect(try Data(contentsOf: file) == bytes)
        let blob = try #require(try await nuxeo.document(id: note.uid).blob)
        #expect(blob.length == Int64(bytes.count))

        try await nuxeo.delete(id: folder.uid)
        await #expect(throws: CMISError.self) { try await cmis.object(at: "/FromNuxeo", useCache: false) }
        let gone = await #expect(throws: NuxeoError.self) { try await nuxeo.document(id: note.uid) }
        #expect(gone?.status == 404)
    }

    @Test("a Note stays a Note with its own title; NXQL finds notes by type and title; an unknown type is refused")
    func typesAndTitles() async throws {
        let harness = try await Self.server.value
        let nuxeo = Self.nuxeo(harness, user: "admin")
        let folder = try await nuxeo.create(in: "/", type: "Folder", name: "Typed")
        #expect(folder.type == "Folder")
        let note = try await nuxeo.create(
            in: "/Typed", type: "Note", name: "monday", properties: ["dc:title": "Monday minutes"])
        #expect(note.type == "Note" && note.title == "Monday minutes" && note.path == "/Typed/monday")
        #expect(note[string: "dc:title"] == "Monday minutes")
        let file = try await nuxeo.create(in: "/Typed", type: "File", name: "agenda.txt")
        #expect(file.type == "File" && file.title == "agenda.txt", "without a title, the name stands for it")
        let read = try await nuxeo.document(path: "/Typed/monday")
        #expect(read.type == "Note" && read.title == "Monday minutes")

        var notes: [NuxeoDocument] = []
        for try await found in nuxeo.query("SELECT * FROM Note WHERE ecm:path STARTSWITH '/Typed'") {
            notes.append(found)
        }
        #expect(notes.map(\.uid) == [note.uid], "FROM Note finds the note and not the file")
        var titled: [String] = []
        for try await found in nuxeo.query("SELECT * FROM Note WHERE dc:title = 'Monday minutes'") {
            titled.append(found.uid)
        }
        #expect(titled == [note.uid], "dc:title is the note's own title, not its name")

        let unknown = await #expect(throws: NuxeoError.self) {
            _ = try await nuxeo.create(in: "/Typed", type: "Spaceship", name: "x")
        }
        #expect(unknown?.status == 400 && String(describing: unknown).contains("no document type Spaceship"))
        try await nuxeo.delete(id: folder.uid)
    }

    @Test("Automation: the registry and the common document operations")
    func automation() async throws {
        let harness = try await Self.server.value
        let nuxeo = Self.nuxeo(harness, user: "admin")
        let registry = try await nuxeo.send(NuxeoRequest.resource("automation"))
        #expect(String(decoding: registry.body, as: UTF8.self).contains("\"Document.Fetch\""))

        _ = try await nuxeo.create(in: "/", type: "Folder", name: "Ops")
        _ = try await nuxeo.create(in: "/", type: "Folder", name: "OpsTarget")
        guard
            case .document(let created)? = try await nuxeo.execute(
                "Document.Create", input: "/Ops",
                params: ["type": "File", "name": "a.txt", "properties": "dc:description=first"])
        else {
            Issue.record("Document.Create answered no document")
            return
        }
        #expect(created.path == "/Ops/a.txt")
        guard case .document(let fetched)? = try await nuxeo.execute("Document.Fetch", params: ["value": "/Ops/a.txt"])
        else {
            Issue.record("Document.Fetch answered no document")
            return
        }
        #expect(fetched.uid == created.uid && fetched[string: "dc:description"] == "first")
        guard
            case .document(let updated)? = try await nuxeo.execute(
                "Document.Update", input: created.uid, params: ["properties": "dc:title=b.txt"])
        else { return }
        // As on a Nuxeo server: dc:title is the title; the name, and so the path, stays.
        #expect(updated.path == "/Ops/a.txt" && updated.title == "b.txt")
        guard case .documents(let children)? = try await nuxeo.execute("Document.GetChildren", input: "/Ops") else {
            Issue.record("Document.GetChildren answered no documents")
            return
        }
        #expect(children.entries.map(\.title) == ["b.txt"])
        guard
            case .document(let copied)? = try await nuxeo.execute(
                "Document.Copy", input: created.uid, params: ["target": "/OpsTarget", "name": "copy.txt"])
        else { return }
        #expect(copied.path == "/OpsTarget/copy.txt" && copied.uid != created.uid)
        guard
            case .document(let moved)? = try await nuxeo.execute(
                "Document.Move", input: created.uid, params: ["target": "/OpsTarget"])
        else { return }
        #expect(moved.path == "/OpsTarget/a.txt" && moved.title == "b.txt")
        guard
            case .documents(let found)? = try await nuxeo.execute(
                "Repository.Query",
                params: ["query": "SELECT * FROM File WHERE ecm:path STARTSWITH '/OpsTarget' ORDER BY dc:title"])
        else { return }
        // Ordered by name (dc:title on File stands for the name of what CMIS made); each shows its own title.
        #expect(found.entries.map(\.path) == ["/OpsTarget/a.txt", "/OpsTarget/copy.txt"])
        #expect(found.entries.first?.title == "b.txt", "a query on File reads the title the base type leaves out")
        #expect(try await nuxeo.execute("Document.Delete", input: "/OpsTarget") == nil)
        await #expect(throws: NuxeoError.self) { try await nuxeo.document(path: "/OpsTarget") }
        let unknown = await #expect(throws: NuxeoError.self) {
            try await nuxeo.execute("Workflow.Start", input: "/Ops")
        }
        #expect(unknown?.message.contains("Workflow.Start") == true)
        let missing = await #expect(throws: NuxeoError.self) { try await nuxeo.execute("Document.Fetch") }
        #expect(missing?.status == 400 && missing?.message.contains("value") == true)
    }

    @Test("batch upload: whole and chunked, resumed from the server's own state (308), attached, downloaded")
    func batchUpload() async throws {
        let harness = try await Self.server.value
        let nuxeo = Self.nuxeo(harness, user: "admin")
        _ = try await nuxeo.create(in: "/", type: "Folder", name: "Up")
        let target = try await nuxeo.create(in: "/Up", type: "File", name: "file.bin")
        let folder = harness.dataDirectory.appendingPathComponent("uploads-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)

        // Whole.
        let small = folder.appendingPathComponent("small.txt")
        try Data("a small file\n".utf8).write(to: small)
        let whole = try await nuxeo.upload(file: small, mimeType: "text/plain")
        let attached = try await nuxeo.attach(whole, to: "/Up/file.bin")
        #expect(attached.blob?.length == 13 && attached.blob?.mimeType == "text/plain")
        // FileManager.Import: a new document named after the file, with it as content.
        let imported = try await nuxeo.importFile(
            try await nuxeo.upload(file: small, mimeType: "text/plain"), into: "/Up")
        #expect(imported.path == "/Up/small.txt" && imported.blob?.length == 13 && imported.type == "File")
        let direct = await #expect(throws: NuxeoError.self) {
            try await nuxeo.execute("FileManager.Import", input: "/Up", context: ["currentDocument": "/Up"])
        }
        #expect(direct?.status == 400, "without a blob")

        // Chunked: two of four chunks arrive, the connection is "lost"; the next call sends only the others.
        let bytes = Data((0..<200_000).map { UInt8($0 % 253) })
        let large = folder.appendingPathComponent("large.bin")
        try bytes.write(to: large)
        let batch = try JSONValue(parsing: try await nuxeo.send(NuxeoRequest.resource("upload").method(.post)).body)
        let batchID = try #require(batch["batchId"]?.stringValue)
        for chunk in [0, 2] {
            let part = bytes[(chunk * 65_536)..<min(bytes.count, (chunk + 1) * 65_536)]
            let request = NuxeoRequest.resource("upload", batchID, "0").method(.post)
                .header("X-File-Name", "large.bin").header("X-File-Size", String(bytes.count))
                .header("X-Upload-Type", "chunked").header("X-Upload-Chunk-Count", "4")
                .header("X-Upload-Chunk-Index", String(chunk))
            let answer = await #expect(throws: NuxeoError.self) {
                try await nuxeo.send(request, body: .data(Data(part), contentType: "application/octet-stream"))
            }
            #expect(answer?.status == 308, "not complete yet: 308, which the plain send does not accept")
        }
        let premature = await #expect(throws: NuxeoError.self) {
            try await nuxeo.attach(NuxeoUpload(batchID: batchID, fileIndex: 0), to: target.uid)
        }
        #expect(premature?.status == 409, "\(String(describing: premature))")
        // Someone else's batch is not found.
        let bob = Self.nuxeo(harness, user: "bob")
        let foreign = await #expect(throws: NuxeoError.self) {
            try await bob.send(NuxeoRequest.resource("upload", batchID))
        }
        #expect(foreign?.status == 404)
        let resumed = try await nuxeo.upload(
            file: large, chunkSize: 65_536, batchID: batchID, fileIndex: 0)
        _ = try await nuxeo.attach(resumed, to: target.uid)
        let downloaded = folder.appendingPathComponent("downloaded.bin")
        try await nuxeo.downloadBlob(id: target.uid, to: downloaded)
        #expect(try Data(contentsOf: downloaded) == bytes)

        // A fresh chunked upload end to end.
        let other = try await nuxeo.upload(file: large, chunkSize: 50_000)
        #expect(other.batchID != batchID)
        let copy = try await nuxeo.create(in: "/Up", type: "File", name: "copy.bin")
        #expect(try await nuxeo.attach(other, to: copy.uid).blob?.length == Int64(bytes.count))
    }

    @Test("attacks: a page index that would overflow, a cross-site form, a missing XSRF token, NXQL escaping, uploads")
    func attacks() async throws {
        let harness = try await Self.server.value
        // An offset that overflows pageSize × index: answered, the server lives on.
        let deep = try await harness.send(
            .get, "/nuxeo/api/v1/path/@children?currentPageIndex=9223372036854775807&pageSize=1000", user: "admin")
        #expect(deep.status == 200)
        #expect(try await harness.send(.get, "/nuxeo/api/v1/path/", user: "admin").status == 200)

        // A signed-in browser's cookie session: a change without the session's token is refused (another site
        // could make the browser send it), and a text/plain body is no document entity anyway.
        let login = try await harness.post("/login", user: nil, fields: [("user", "admin"), ("password", "pw-admin")])
        let cookie = String(try #require(login.headers["Set-Cookie"]).split(separator: ";")[0])
        let forged = try await harness.send(
            .post, "/nuxeo/site/automation/Document.Create", user: nil,
            headers: [("Cookie", cookie), ("Content-Type", "text/plain")],
            body: .text(#"{"input":"doc:/","params":{"type":"Folder","name":"forged"}}"#))
        #expect(forged.status == 403, "\(forged.status) \(String(decoding: forged.body, as: UTF8.self))")
        // With Basic credentials but on MyDocuments, the token is needed too.
        let mine = try await harness.send(
            .post, "/nuxeo/api/v1/repo/mydocs-alice/path/", user: "alice",
            headers: [("Content-Type", "application/json")],
            body: .text(#"{"entity-type":"document","type":"Folder","name":"x"}"#))
        #expect(mine.status == 403)
        let notJSON = try await harness.send(
            .post, "/nuxeo/api/v1/path/", user: "admin", headers: [("Content-Type", "text/plain")],
            body: .text(#"{"entity-type":"document","type":"Folder","name":"y"}"#))
        #expect(notJSON.status == 400)

        // NXQL literals cannot break out of their quotes: a trailing backslash, a quote, CMIS QL inside one.
        let nuxeo = Self.nuxeo(harness, user: "admin")
        for title in [#"a\"#, "it's", "x' OR cmis:name LIKE '%"] {
            let escaped = title.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "'", with: "\\'")
            var found = 0
            for try await _ in nuxeo.query("SELECT * FROM Document WHERE dc:title = '\(escaped)'") { found += 1 }
            #expect(found == 0, "\(title)")
        }
        let unterminated = await #expect(throws: NuxeoError.self) {
            for try await _ in nuxeo.query(#"SELECT * FROM Document WHERE dc:title = 'a\'"#) {}
        }
        #expect(unterminated?.status == 400)

        // Uploads: out-of-range chunks are refused; deleting a file by a bad index leaves the batch alone.
        let batch = try JSONValue(parsing: try await nuxeo.send(NuxeoRequest.resource("upload").method(.post)).body)
        let batchID = try #require(batch["batchId"]?.stringValue)
        let tooMany = await #expect(throws: NuxeoError.self) {
            try await nuxeo.send(
                NuxeoRequest.resource("upload", batchID, "0").method(.post).header("X-Upload-Type", "chunked")
                    .header("X-Upload-Chunk-Count", "10000000").header("X-Upload-Chunk-Index", "0"),
                body: .data(Data("x".utf8), contentType: "application/octet-stream"))
        }
        #expect(tooMany?.status == 400)
        let badIndex = await #expect(throws: NuxeoError.self) {
            try await nuxeo.send(NuxeoRequest.resource("upload", batchID, "abc").method(.delete))
        }
        #expect(badIndex?.status == 404)
        #expect(
            try await nuxeo.send(NuxeoRequest.resource("upload", batchID)).status == 200, "the batch is still there")
    }

    @Test("who I am, the server, permissions granted and taken back, move and copy")
    func principalsPermissionsMoves() async throws {
        let harness = try await Self.server.value
        let alice = Self.nuxeo(harness, user: "alice")
        let me = try await alice.currentUser()
        #expect(me.id == "alice" && !me.isAdministrator && me.properties["username"]?.stringValue == "alice")
        let info = try await alice.serverInfo()
        #expect(info["default"]?["productName"]?.stringValue?.isEmpty == false)
        #expect(info["default"]?["productVersion"]?.stringValue == NuxeoRoutes.apiLevel)
        let bob = Self.nuxeo(harness, user: "bob")
        let other = await #expect(throws: NuxeoError.self) {
            try await bob.send(NuxeoRequest.resource("user", "alice"))
        }
        #expect(other?.status == 404, "another user's details are not shown")

        let folder = try await alice.create(in: "/", type: "Folder", name: "acl-\(UUID().uuidString.prefix(8))")
        let note = try await alice.create(in: folder.path ?? "/", type: "Note", name: "n")
        // (The shared repository lets every member read and write; what a grant adds shows in the ACLs.)
        try await alice.addPermission("Read", to: "bob", on: folder.uid)
        let acp = try await alice.acl(of: folder.uid)
        let local = try #require(acp.acls.first { $0.name == "local" })
        #expect(local.aces.contains { $0.username == "bob" && $0.permission == "Read" })
        let inherited = try await alice.acl(of: note.uid)
        #expect(inherited.acls.first { $0.name == "inherited" }?.aces.contains { $0.username == "bob" } == true)
        // Only who may change the ACL grants; only known permissions.
        let escalation = await #expect(throws: NuxeoError.self) {
            try await bob.addPermission("Everything", to: "bob", on: folder.uid)
        }
        #expect(escalation?.status == 403)
        #expect(
            try await alice.acl(of: folder.uid).acls.allSatisfy { acl in
                !acl.aces.contains { $0.permission == "Everything" && $0.username == "bob" }
            })
        let unknown = await #expect(throws: NuxeoError.self) {
            try await alice.addPermission("Owner", to: "bob", on: folder.uid)
        }
        #expect(unknown?.status == 400)
        try await alice.removePermissions(of: "bob", on: folder.uid)
        #expect(
            try await alice.acl(of: folder.uid).acls.first { $0.name == "local" }?.aces.contains {
                $0.username == "bob"
            }
                == false)

        // Enricher: the ACLs in the document's contextParameters.
        let enriched = try JSONValue(
            parsing: try await alice.send(NuxeoRequest.id(folder.uid).header("enrichers-document", "acls")).body)
        #expect(enriched["contextParameters"]?["acls"]?.arrayValue?.count == 2)

        let target = try await alice.create(in: "/", type: "Folder", name: "target-\(UUID().uuidString.prefix(8))")
        let moved = try await alice.move(note.uid, to: target.path ?? "/", name: "moved")
        #expect(moved.path == (target.path ?? "") + "/moved")
        let copied = try await alice.copy(moved.uid, to: folder.uid, name: "copy")
        #expect(copied.uid != moved.uid && copied.path == (folder.path ?? "") + "/copy")
    }

    @Test("a search of several pages asks for each page once, the next one while this one is read, none past the end")
    func pagesAreAskedOnce() async throws {
        let harness = try await Self.server.value
        let alice = Self.nuxeo(harness, user: "alice")
        let folder = try await alice.create(in: "/", type: "Folder", name: "pages-\(UUID().uuidString.prefix(8))")
        for index in 0..<25 { _ = try await alice.create(in: folder.path ?? "/", type: "Note", name: "n\(index)") }
        let counting = CountingTransport(HTTPClient.defaultTransport())
        let session = NuxeoSession(
            configuration: .init(
                serverURL: harness.url("/nuxeo"), repository: "default",
                http: HTTPClient.Configuration(retry: .never), auth: [BasicAuth(user: "alice", password: "pw-alice")]),
            transport: counting)
        var titles: [String] = []
        for try await document in session.query(
            "SELECT * FROM Note WHERE ecm:parentId = '\(folder.uid)' ORDER BY dc:title", pageSize: 10)
        {
            titles.append(document.title ?? "")
        }
        #expect(titles == (0..<25).map { "n\($0)" }.sorted())
        #expect(counting.pageIndexes.sorted() == ["0", "1", "2"])
    }

    @Test("locks keep others out until unlocked; the trash hides documents from children and live searches")
    func locksAndTrash() async throws {
        let harness = try await Self.server.value
        let alice = Self.nuxeo(harness, user: "alice")
        let bob = Self.nuxeo(harness, user: "bob")
        let folder = try await alice.create(in: "/", type: "Folder", name: "locks-\(UUID().uuidString.prefix(8))")
        let base = try #require(folder.path)
        var notes: [NuxeoDocument] = []
        for index in 0..<5 { notes.append(try await alice.create(in: base, type: "Note", name: "n\(index)")) }
        let note = notes[2]

        #expect(try await alice.lockStatus(of: note.uid) == nil)
        let locked = try await alice.lock(note.uid)
        #expect(locked.lockOwner == "alice")
        #expect(try await bob.lockStatus(of: note.uid)?.owner == "alice")
        // Bob, who may write the shared repository, may not change what Alice locked, nor lock it himself.
        for attempt in [
            { _ = try await bob.update(note, properties: ["dc:title": "bob's"]) },
            { try await bob.delete(id: note.uid) },
            { _ = try await bob.trash(note.uid) },
            { _ = try await bob.move(note.uid, to: "/") },
            { _ = try await bob.lock(note.uid) },
            { try await bob.delete(id: folder.uid) },
        ] as [@Sendable () async throws -> Void] {
            let refused = await #expect(throws: NuxeoError.self) { try await attempt() }
            #expect(
                refused?.status == 409 && refused?.message.contains("alice") == true, "\(String(describing: refused))")
        }
        let unlock = await #expect(throws: NuxeoError.self) { try await bob.unlock(note.uid) }
        #expect(unlock?.status == 403)
        #expect(try await alice.document(id: note.uid).title == "n2", "nothing Bob tried changed it")
        // The owner changes it; an administrator may unlock it.
        let renamed = try await alice.update(try await alice.document(id: note.uid), properties: ["dc:title": "n2b"])
        #expect(renamed.title == "n2b")
        try await Self.nuxeo(harness, user: "admin").unlock(note.uid)
        #expect(try await alice.lockStatus(of: note.uid) == nil)
        _ = try await bob.update(renamed, properties: ["dc:title": "n2"])

        // The trash: out of @children (pages stay whole) and live searches, found by ecm:isTrashed = 1, restorable.
        let trashed = try await bob.trash(note.uid)
        #expect(trashed.isTrashed == true)
        #expect(try await alice.document(id: note.uid).isTrashed == true, "still readable by id")
        var listed: [String] = []
        for try await child in alice.children(ofPath: base, pageSize: 2) { listed.append(child.title ?? "") }
        #expect(listed.sorted() == ["n0", "n1", "n3", "n4"])
        let page = try JSONValue(
            parsing: try await alice.send(
                NuxeoRequest.path(base).adapter("children").query("pageSize", "3").query("currentPageIndex", "1")
            ).body)
        #expect(page["entries"]?.arrayValue?.count == 1 && page["isNextPageAvailable"]?.boolValue == false)
        #expect(page["totalSize"]?.int64Value == 4)
        var live: [String] = []
        for try await document in alice.query(
            "SELECT * FROM Document WHERE ecm:parentId = '\(folder.uid)' AND ecm:isTrashed = 0")
        {
            live.append(document.title ?? "")
        }
        #expect(live.sorted() == ["n0", "n1", "n3", "n4"])
        var inTrash: [String] = []
        for try await document in alice.query(
            "SELECT * FROM Document WHERE ecm:parentId = '\(folder.uid)' AND ecm:isTrashed = 1")
        {
            inTrash.append(document.uid)
        }
        #expect(inTrash == [note.uid])
        guard case .documents(let viaAutomation)? = try await alice.execute("Document.GetChildren", input: folder.uid)
        else {
            Issue.record("Document.GetChildren answered no documents")
            return
        }
        #expect(viaAutomation.entries.count == 4)
        let restored = try await alice.untrash(note.uid)
        #expect(restored.isTrashed == false)
        listed = []
        for try await child in alice.children(ofPath: base) { listed.append(child.title ?? "") }
        #expect(listed.count == 5)
        // Locks are kept in the metadata store (nothing beside it), and its owner may delete a locked document.
        _ = try await alice.lock(notes[0].uid)
        #expect(
            !FileManager.default.fileExists(
                atPath: harness.dataDirectory.appendingPathComponent("nuxeo-documents.json").path))
        try await alice.delete(id: notes[0].uid)
        await #expect(throws: NuxeoError.self) { _ = try await alice.lockStatus(of: notes[0].uid) }
    }

    @Test("versions keep the uid; permissions name what the caller may do; the registry checks calls before sending")
    func versionsPermissionsRegistry() async throws {
        let harness = try await Self.server.value
        let alice = Self.nuxeo(harness, user: "alice")
        let folder = try await alice.create(in: "/", type: "Folder", name: "versions-\(UUID().uuidString.prefix(8))")
        let note = try await alice.create(in: folder.path ?? "/", type: "Note", name: "v")
        let first = note.versionLabel
        let major = try await alice.update(note, properties: ["dc:title": "v2"], versioning: .major)
        #expect(major.uid == note.uid && major.title == "v2" && major.isVersion == false)
        #expect(major.versionLabel != nil && major.versionLabel != first)
        let minor = try await alice.checkIn(note.uid, major: false, comment: "a minor one")
        #expect(minor.uid == note.uid && minor.versionLabel != major.versionLabel)
        let read = try await alice.document(id: note.uid)
        #expect(read.versionLabel == minor.versionLabel && read.title == "v2", "the uid names the latest version")
        let bad = await #expect(throws: NuxeoError.self) {
            _ = try await alice.update(read, properties: ["dc:title": "v3"], versioning: nil)
            _ = try await alice.send(
                NuxeoRequest.id(note.uid).method(.put).header("X-Versioning-Option", "SIDEWAYS"),
                body: .json(["entity-type": "document", "properties": ["dc:title": "v4"]]))
        }
        #expect(bad?.status == 400)
        #expect(try await alice.document(id: note.uid).title == "v3", "a refused option changes nothing")

        let permissions = try await alice.permissions(of: folder.uid)
        #expect(permissions.isSuperset(of: ["Read", "Write", "Remove", "AddChildren"]))
        #expect(try await Self.nuxeo(harness, user: "admin").permissions(of: folder.uid).contains("Everything"))

        var configuration = alice.configuration
        configuration.checksOperations = true
        let checked = NuxeoSession(configuration: configuration)
        let registry = try await checked.operations()
        #expect(
            registry["Document.Lock"] != nil && registry["Document.Move"]?.parameters.contains { $0.isRequired } == true
        )
        for (operation, params, words) in [
            ("Document.Nope", [:], "no operation"), ("Document.Move", [:], "needs the parameter target"),
            ("Document.Lock", ["bogus": JSONValue.bool(true)], "no parameter bogus"),
        ] as [(String, [String: JSONValue], String)] {
            let refused = await #expect(throws: NuxeoError.self) {
                try await checked.execute(operation, input: note.uid, params: params)
            }
            #expect(refused?.code == .invalidArgument && refused?.message.contains(words) == true)
        }
        #expect(try await checked.lock(note.uid).lockOwner == "alice")
        try await checked.unlock(note.uid)
    }

    @Test("Automation inputs: a docs: list runs the operation on each; a file goes with the call as multipart/related")
    func automationInputs() async throws {
        let harness = try await Self.server.value
        let alice = Self.nuxeo(harness, user: "alice")
        let folder = try await alice.create(in: "/", type: "Folder", name: "inputs-\(UUID().uuidString.prefix(8))")
        let base = try #require(folder.path)
        var uids: [String] = []
        for index in 0..<3 { uids.append(try await alice.create(in: base, type: "Note", name: "i\(index)").uid) }

        guard case .documents(let locked)? = try await alice.execute("Document.Lock", documents: uids) else {
            Issue.record("Document.Lock on a list answered no documents")
            return
        }
        #expect(locked.entries.map(\.uid) == uids && locked.entries.allSatisfy { $0.lockOwner == "alice" })
        _ = try await alice.execute("Document.Unlock", documents: uids)
        #expect(try await alice.lockStatus(of: uids[1]) == nil)
        #expect(try await alice.execute("Document.Delete", documents: Array(uids.prefix(2))) == nil)
        let gone = await #expect(throws: NuxeoError.self) { try await alice.document(id: uids[0]) }
        #expect(gone?.status == 404)
        await #expect(throws: NuxeoError.self) { try await alice.execute("Document.Lock", documents: ["a,b"]) }

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("related-\(UUID().uuidString).txt")
        try Data("sent with the call\n".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        guard
            case .document(let imported)? = try await alice.execute(
                "FileManager.Import", file: file, fileName: "imported.txt", mimeType: "text/plain",
                context: ["currentDocument": .string(base)])
        else {
            Issue.record("FileManager.Import answered no document")
            return
        }
        #expect(imported.path == base + "/imported.txt" && imported.blob?.mimeType == "text/plain")
        let downloaded = FileManager.default.temporaryDirectory.appendingPathComponent("dl-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: downloaded) }
        try await alice.downloadBlob(id: imported.uid, to: downloaded)
        #expect(try Data(contentsOf: downloaded) == Data("sent with the call\n".utf8))
        guard
            case .document(let attached)? = try await alice.execute(
                "Blob.AttachOnDocument", file: file, fileName: "note.txt", params: ["document": .string(uids[2])])
        else {
            Issue.record("Blob.AttachOnDocument answered no document")
            return
        }
        #expect(attached.uid == uids[2] && attached.blob?.length == 19)

        // Refused before any content is stored: a target that does not exist; a form another site could post.
        let missing = await #expect(throws: NuxeoError.self) {
            try await alice.execute(
                "FileManager.Import", file: file, context: ["currentDocument": .string(base + "/no-such-folder")])
        }
        #expect(missing?.status == 404)
        var form = MultipartFormData()
        form.addField("params", "{}")
        try form.addData("input", data: Data("x".utf8), filename: "x.txt", contentType: "text/plain")
        let forged = await #expect(throws: NuxeoError.self) {
            try await alice.send(
                NuxeoRequest.resource("automation", "FileManager.Import").method(.post), body: .multipart(form))
        }
        #expect(forged?.status == 400)
    }

    @Test(
        "review cases: marks follow a document across its versions, versioned updates change nothing when refused, lists run once per document, working copies read by uid"
    )
    func marksAcrossVersions() async throws {
        let harness = try await Self.server.value
        let alice = Self.nuxeo(harness, user: "alice")
        let bob = Self.nuxeo(harness, user: "bob")
        let folder = try await alice.create(in: "/", type: "Folder", name: "series-\(UUID().uuidString.prefix(8))")
        let base = try #require(folder.path)
        let note = try await alice.create(in: base, type: "Note", name: "s")
        _ = try await alice.update(note, properties: ["dc:title": "s2"], versioning: .major)
        _ = try await alice.checkIn(note.uid, major: true)
        let cmis = try await CMISSession.connect(
            SessionParameters(
                url: harness.url("/cmis/browser"), repositoryId: "shared",
                auth: [BasicAuth(user: "alice", password: "pw-alice")]))
        let versions = try await cmis.allVersions(of: note.uid)
        #expect(versions.count >= 3)
        let older = try #require(versions.first { $0.id != note.uid && $0.isLatestVersion == false }?.id)

        // A lock holds for every version: deleting the series by an older version's id is refused too.
        _ = try await alice.lock(note.uid)
        for attempt in [
            { try await bob.delete(id: older) },
            { _ = try await bob.execute("Document.Delete", input: older) },
            { try await bob.addPermission("Read", to: "bob", on: note.uid) },
        ] as [@Sendable () async throws -> Void] {
            let refused = await #expect(throws: NuxeoError.self) { try await attempt() }
            #expect(refused?.status == 409, "\(String(describing: refused))")
        }
        #expect(try await alice.document(id: note.uid).title == "s2")
        try await alice.unlock(note.uid)

        // The trash holds for every version: a versioned document leaves children and live searches.
        _ = try await alice.trash(note.uid)
        var listed: [String] = []
        for try await child in alice.children(ofPath: base) { listed.append(child.uid) }
        #expect(!listed.contains(note.uid))
        var live: [String] = []
        for try await document in alice.query(
            "SELECT * FROM Document WHERE ecm:parentId = '\(folder.uid)' AND ecm:isTrashed = 0")
        {
            live.append(document.uid)
        }
        #expect(live.isEmpty)
        var trashed: [String] = []
        for try await document in alice.query(
            "SELECT * FROM Document WHERE ecm:parentId = '\(folder.uid)' AND ecm:isTrashed = 1")
        {
            trashed.append(document.uid)
        }
        #expect(trashed == [note.uid])
        _ = try await alice.untrash(note.uid)

        // A versioned update that cannot be made changes nothing.
        let refused = await #expect(throws: NuxeoError.self) {
            try await alice.update(folder, properties: ["dc:title": "renamed"], versioning: .major)
        }
        #expect(refused?.status == 400)
        #expect(try await alice.document(id: folder.uid).title == folder.title)

        // A list names a document twice: it runs once.
        guard case .documents(let once)? = try await alice.execute("Document.Lock", documents: [note.uid, note.uid])
        else {
            Issue.record("Document.Lock on a list answered no documents")
            return
        }
        #expect(once.entries.count == 1)
        try await alice.unlock(note.uid)

        // A document created checked out over CMIS (its working copy's id is its series) reads by that id.
        let created = try await harness.post(
            "/cmis/browser/shared/root",
            fields: [
                ("cmisaction", "createDocument"), ("propertyId[0]", "cmis:name"),
                ("propertyValue[0]", "pwc-\(UUID().uuidString.prefix(8))"), ("propertyId[1]", "cmis:objectTypeId"),
                ("propertyValue[1]", "cmis:document"), ("versioningState", "checkedout"), ("succinct", "true"),
            ])
        #expect(created.status == 201, "\(String(decoding: created.body, as: UTF8.self))")
        let pwc = try #require(try created.json()["succinctProperties"]?["cmis:objectId"]?.stringValue)
        #expect(try await alice.document(id: pwc).uid == pwc)

        // A file name with a line break cannot add a header to the multipart call.
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("lf-\(UUID().uuidString)")
        try Data("x".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        guard
            case .document(let imported)? = try await alice.execute(
                "FileManager.Import", file: file, fileName: "a\nX-Injected: 1\rb.txt",
                mimeType: "text/plain\r\nX-Other: 2",
                context: ["currentDocument": .string(base)])
        else {
            Issue.record("FileManager.Import answered no document")
            return
        }
        #expect(imported.title == "a_X-Injected: 1_b.txt")
        #expect(imported.blob?.mimeType == "application/octet-stream")

        // A read-only token locks, trashes and versions nothing.
        let token = try await alice.acquireToken(application: "review", device: "d1", permission: .read)
        var configuration = alice.configuration
        configuration.auth = [NuxeoSession.tokenAuth(token)]
        let reader = NuxeoSession(configuration: configuration)
        for operation in ["Document.Lock", "Document.Trash", "Document.Unlock", "Document.Untrash"] {
            let denied = await #expect(throws: NuxeoError.self) {
                try await reader.execute(operation, input: note.uid)
            }
            #expect(denied?.status == 403, "\(operation)")
        }
        let checkIn = await #expect(throws: NuxeoError.self) { try await reader.checkIn(note.uid, major: true) }
        #expect(checkIn?.status == 403)
    }
}

/// A transport that notes the `currentPageIndex` of every request it carries.
final class CountingTransport: HTTPTransport {
    let inner: any HTTPTransport
    private let seen = Mutex<[String]>([])

    init(_ inner: any HTTPTransport) { self.inner = inner }

    var pageIndexes: [String] { seen.withLock { $0 } }

    func perform(_ request: TransportRequest) async throws -> TransportResponse {
        let index = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.queryItems?
            .first { $0.name == "currentPageIndex" }?.value
        if let index { seen.withLock { $0.append(index) } }
        return try await inner.perform(request)
    }
}
