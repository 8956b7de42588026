import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServer
import Testing
import SatchelJSON

/// Every selector and the main actions of the Browser binding against the real engine, read back with the
/// client's parser.
@Suite("Browser selectors and actions on the engine", .serialized)
struct SelectorTests {
    static let server = Task { try await ServerHarness.start() }
    static let base = "/cmis/browser/shared"

    /// A folder with one document, created once.
    static let fixture = Task { () throws -> (folder: String, document: String) in
        let harness = try await server.value
        let folder = try await harness.post(
            "\(base)/root",
            fields: [
                ("cmisaction", "createFolder"), ("propertyId[0]", "cmis:name"), ("propertyValue[0]", "selectors"),
                ("propertyId[1]", "cmis:objectTypeId"), ("propertyValue[1]", "cmis:folder"),
            ])
        let folderId = try #require(try BrowserParser.object(folder.body).id)
        var form = MultipartFormData(boundary: "fixture")
        try form.addData("content", data: Data("alpha beta".utf8), filename: "a.txt", contentType: "text/plain")
        form.addField("cmisaction", "createDocument")
        form.addField("propertyId[0]", "cmis:name")
        form.addField("propertyValue[0]", "a.txt")
        form.addField("propertyId[1]", "cmis:objectTypeId")
        form.addField("propertyValue[1]", "cmis:document")
        let document = try await harness.send(.post, "\(base)/root?objectId=\(folderId)", body: .multipart(form))
        #expect(document.status == 201)
        return (folderId, try #require(try BrowserParser.object(document.body).id))
    }

    enum Target: String, CaseIterable { case repository, folder, document }

    static let cases: [(Target, String, @Sendable (Data) throws -> Void)] = [
        (.repository, "repositoryInfo", { _ = try BrowserParser.repositoryInfo($0) }),
        (.repository, "typeChildren", { _ = try BrowserParser.typeDefinitionList($0) }),
        (.repository, "typeDescendants&depth=2", { _ = try BrowserParser.typeDescendants($0) }),
        (.repository, "typeDefinition&typeId=cmis:folder", { _ = try BrowserParser.typeDefinition($0) }),
        (.repository, "checkedOut", { _ = try BrowserParser.objectList($0) }),
        (.repository, "contentChanges", { _ = try BrowserParser.contentChanges($0) }),
        (.repository, "query&q=SELECT%20*%20FROM%20cmis%3Adocument", { _ = try BrowserParser.queryResults($0) }),
        (.folder, "object", { _ = try BrowserParser.object($0) }),
        (.folder, "children", { _ = try BrowserParser.children($0) }),
        (.folder, "descendants", { _ = try BrowserParser.descendants($0) }),
        (.folder, "folderTree", { _ = try BrowserParser.descendants($0) }),
        (.folder, "parent", { _ = try BrowserParser.object($0) }),
        (.document, "parents", { _ = try BrowserParser.parents($0) }),
        (.document, "allowableActions", { _ = try BrowserParser.allowableActions($0) }),
        (.document, "acl", { _ = try BrowserParser.acl($0) }),
        (.document, "policies", { _ = try BrowserParser.objectList($0) }),
        (.document, "versions", { _ = try BrowserParser.objectList($0) }),
        (.document, "renditions", { _ = try BrowserParser.renditions($0) }),
        (.document, "relationships", { _ = try BrowserParser.objectList($0) }),
        (
            .document, "object&includeAllowableActions=true&includeACL=true&succinct=true",
            {
                _ = try BrowserParser.object($0)
            }
        ),
    ]

    @Test("each selector answers 200 with a body the client parses", arguments: 0..<cases.count)
    func selector(index: Int) async throws {
        let harness = try await Self.server.value
        let (folder, document) = try await Self.fixture.value
        let (target, selector, parse) = Self.cases[index]
        let path: String
        switch target {
        case .repository: path = "\(Self.base)?cmisselector=\(selector)"
        case .folder: path = "\(Self.base)/root?objectId=\(folder)&cmisselector=\(selector)"
        case .document: path = "\(Self.base)/root?objectId=\(document)&cmisselector=\(selector)"
        }
        let response = try await harness.send(.get, path)
        #expect(response.status == 200, "\(selector): \(response.text.prefix(300))")
        #expect(throws: Never.self, "\(selector)") { try parse(response.body) }
    }

    @Test("no selector: a folder path lists children, a document path returns content")
    func defaults() async throws {
        let harness = try await Self.server.value
        _ = try await Self.fixture.value
        let listing = try await harness.send(.get, "\(Self.base)/root/selectors")
        #expect(try BrowserParser.children(listing.body).objects.map(\.object.name) == ["a.txt"])
        let content = try await harness.send(.get, "\(Self.base)/root/selectors/a.txt")
        #expect(content.text == "alpha beta")
    }

    @Test("move, check out and in, set and delete content, delete tree")
    func actions() async throws {
        let harness = try await Self.server.value
        let (folder, _) = try await Self.fixture.value
        let target = try await harness.post(
            "\(Self.base)/root",
            fields: [("cmisaction", "createFolder"), ("propertyId[0]", "cmis:name"), ("propertyValue[0]", "target")])
        let targetId = try #require(try BrowserParser.object(target.body).id)
        let created = try await harness.post(
            "\(Self.base)/root?objectId=\(folder)",
            fields: [("cmisaction", "createDocument"), ("propertyId[0]", "cmis:name"), ("propertyValue[0]", "b.txt")])
        #expect(created.status == 201)
        let id = try #require(try BrowserParser.object(created.body).id)

        let moved = try await harness.post(
            "\(Self.base)/root?objectId=\(id)",
            fields: [("cmisaction", "move"), ("targetFolderId", targetId), ("sourceFolderId", folder)])
        #expect(moved.status == 201)
        let atTarget = try await harness.send(.get, "\(Self.base)/root/target/b.txt?cmisselector=object")
        #expect(atTarget.status == 200)

        var form = MultipartFormData(boundary: "set")
        form.addField("cmisaction", "setContent")
        try form.addData("content", data: Data("new text".utf8), filename: "b.txt", contentType: "text/plain")
        let set = try await harness.send(.post, "\(Self.base)/root?objectId=\(id)", body: .multipart(form))
        #expect(set.status == 201, "\(set.text.prefix(200))")
        let content = try await harness.send(.get, "\(Self.base)/root?objectId=\(id)&cmisselector=content")
        #expect(content.text == "new text")

        let removed = try await harness.post(
            "\(Self.base)/root?objectId=\(id)", fields: [("cmisaction", "deleteContent")])
        #expect(removed.status == 200, "\(removed.text.prefix(200))")

        let checkedOut = try await harness.post(
            "\(Self.base)/root?objectId=\(id)", fields: [("cmisaction", "checkOut")])
        #expect(checkedOut.status == 201, "\(checkedOut.text.prefix(200))")
        if let pwc = try? BrowserParser.object(checkedOut.body).id {
            let checkedIn = try await harness.post(
                "\(Self.base)/root?objectId=\(pwc)",
                fields: [("cmisaction", "checkIn"), ("major", "true"), ("checkinComment", "v2")])
            #expect(checkedIn.status == 201, "\(checkedIn.text.prefix(200))")
        }

        let tree = try await harness.post(
            "\(Self.base)/root?objectId=\(targetId)", fields: [("cmisaction", "deleteTree")])
        #expect(tree.status == 200, "\(tree.text.prefix(200))")
        let gone = try await harness.send(.get, "\(Self.base)/root/target?cmisselector=object")
        #expect(gone.status == 404)
    }

    @Test(
        "engine errors keep their CMIS status",
        arguments: [
            ("createFolder-duplicate", 409), ("update-bad-change-token", 409), ("bad-type", 409),
        ])
    func errors(name: String, status: Int) async throws {
        let harness = try await Self.server.value
        let (folder, document) = try await Self.fixture.value
        let response: HTTPClient.Response
        switch name {
        case "createFolder-duplicate":
            response = try await harness.post(
                "\(Self.base)/root",
                fields: [
                    ("cmisaction", "createFolder"), ("propertyId[0]", "cmis:name"), ("propertyValue[0]", "selectors"),
                ])
        case "update-bad-change-token":
            response = try await harness.post(
                "\(Self.base)/root?objectId=\(document)",
                fields: [
                    ("cmisaction", "update"), ("changeToken", "stale-token"), ("propertyId[0]", "cmis:description"),
                    ("propertyValue[0]", "x"),
                ])
        default:
            response = try await harness.post(
                "\(Self.base)/root?objectId=\(folder)",
                fields: [
                    ("cmisaction", "createDocument"), ("propertyId[0]", "cmis:name"), ("propertyValue[0]", "t"),
                    ("propertyId[1]", "cmis:objectTypeId"), ("propertyValue[1]", "no:such:type"),
                ])
        }
        #expect(response.status == status, "\(name): \(response.text.prefix(200))")
        #expect(exception(response) != nil)
    }

    @Test("depth is read alike by both bindings: -1 is every level (not the default 2), 0 and junk are refused")
    func depthAcrossBindings() async throws {
        let harness = try await Self.server.value
        var parent = try await Self.fixture.value.folder
        var chain: [String] = []
        for level in 1...4 {
            let created = try await harness.post(
                "\(Self.base)/root?objectId=\(parent)",
                fields: [
                    ("cmisaction", "createFolder"), ("propertyId[0]", "cmis:name"),
                    ("propertyValue[0]", "deep-\(level)-\(UUID().uuidString.prefix(6))"),
                    ("propertyId[1]", "cmis:objectTypeId"), ("propertyValue[1]", "cmis:folder"),
                ])
            parent = try #require(try BrowserParser.object(created.body).id)
            chain.append(parent)
        }
        let top = try #require(chain.first)
        let all = try await harness.send(.get, "\(Self.base)/root?objectId=\(top)&cmisselector=descendants&depth=-1")
        #expect(all.status == 200)
        let text = String(decoding: all.body, as: UTF8.self)
        #expect(chain.dropFirst().allSatisfy { text.contains($0) }, "every level below the top")
        let two = try await harness.send(.get, "\(Self.base)/root?objectId=\(top)&cmisselector=descendants")
        #expect(!String(decoding: two.body, as: UTF8.self).contains(chain[3]), "the default stops at 2 levels")
        for bad in ["0", "-2", "x"] {
            let browser = try await harness.send(
                .get, "\(Self.base)/root?objectId=\(top)&cmisselector=descendants&depth=\(bad)")
            #expect(browser.status == 400, "Browser depth=\(bad)")
            let atom = try await harness.send(.get, "/cmis/atom/shared/descendants?id=\(top)&depth=\(bad)")
            #expect(atom.status == 400, "AtomPub depth=\(bad)")
        }
        let atomAll = try await harness.send(.get, "/cmis/atom/shared/descendants?id=\(top)&depth=-1")
        #expect(atomAll.status == 200)
        #expect(String(decoding: atomAll.body, as: UTF8.self).contains(chain[3]))
    }

    @Test("one failure table: Browser, AtomPub and Nuxeo answer a failure with the same status and exception")
    func failuresAlike() async throws {
        let harness = try await Self.server.value
        let cases: [(browser: String, atom: String, nuxeo: String, status: Int, exception: String)] = [
            (
                "\(Self.base)/root?objectId=no-such&cmisselector=object", "/cmis/atom/shared/entry?id=no-such",
                "/nuxeo/api/v1/id/no-such", 404, "objectNotFound"
            ),
            (
                "\(Self.base)/root?cmisselector=children&maxItems=x", "/cmis/atom/shared/children?id=x&maxItems=x",
                "/nuxeo/api/v1/query/NXQL?query=DELETE", 400, "invalidArgument"
            ),
        ]
        for (browser, atom, nuxeo, status, name) in cases {
            let viaBrowser = try await harness.send(.get, browser)
            #expect(viaBrowser.status == status && exception(viaBrowser) == name, "\(browser)")
            let viaAtom = try await harness.send(.get, atom)
            #expect(viaAtom.status == status, "\(atom)")
            #expect(String(decoding: viaAtom.body, as: UTF8.self).contains("<!--exception-->\(name)<!--/exception-->"))
            let viaNuxeo = try await harness.send(.get, nuxeo)
            #expect(viaNuxeo.status == status, "\(nuxeo)")
            #expect((try? viaNuxeo.json())?["entity-type"]?.stringValue == "exception")
        }
    }
}
