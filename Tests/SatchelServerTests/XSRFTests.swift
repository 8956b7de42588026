import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServer
import Testing
import SatchelJSON

@Suite("XSRF")
struct XSRFTests {
    /// The repository engine, as every test of the bindings runs on.
    static let standard = Task { try await ServerHarness.start() }
    static let strict = Task { try await ServerHarness.start(xsrf: .strict) }

    static func createFolder(name: String) -> [(String, String)] {
        [
            ("cmisaction", "createFolder"), ("propertyId[0]", "cmis:name"), ("propertyValue[0]", name),
            ("propertyId[1]", "cmis:objectTypeId"), ("propertyValue[1]", "cmis:folder"), ("succinct", "true"),
        ]
    }

    @Test("a MyDocuments change without the token is a 403 CMIS error")
    func myDocumentsWithoutToken() async throws {
        let harness = try await Self.standard.value
        let response = try await harness.post(
            "/mcm/b/json/mydocs-alice/root", fields: Self.createFolder(name: "a"))
        #expect(response.status == 403)
        #expect(exception(response) == "permissionDenied")
    }

    @Test("a MyDocuments change with a wrong token is refused")
    func myDocumentsWrongToken() async throws {
        let harness = try await Self.standard.value
        let response = try await harness.post(
            "/mcm/b/json/mydocs-alice/root", fields: Self.createFolder(name: "a"),
            headers: [("X-CSRF-Token", "forged")])
        #expect(response.status == 403)
    }

    @Test("the token in the header or in the form field lets the change through", arguments: [true, false])
    func myDocumentsWithToken(inHeader: Bool) async throws {
        let harness = try await Self.standard.value
        let token = try #require(try await harness.token(for: "alice"))
        var fields = Self.createFolder(name: "with-token-\(inHeader)")
        if !inHeader { fields.append(("token", token)) }
        let response = try await harness.post(
            "/mcm/b/json/mydocs-alice/root", fields: fields,
            headers: inHeader ? [("X-CSRF-Token", token)] : [])
        #expect(response.status == 201, "\(response.text)")
        let folder = try BrowserParser.object(response.body)
        #expect(folder.name == "with-token-\(inHeader)")
        #expect(response.headers["Location"]?.contains("/mcm/b/json/mydocs-alice/root?objectId=") == true)
    }

    @Test("Basic on the shared repository needs no token under .standard")
    func sharedStandard() async throws {
        let harness = try await Self.standard.value
        let response = try await harness.post("/cmis/browser/shared/root", fields: Self.createFolder(name: "s"))
        #expect(response.status == 201)
    }

    @Test("Basic on the shared repository needs the token under .strict")
    func sharedStrict() async throws {
        let harness = try await Self.strict.value
        let refused = try await harness.post("/cmis/browser/shared/root", fields: Self.createFolder(name: "s"))
        #expect(refused.status == 403)
        #expect(exception(refused) == "permissionDenied")
        let token = try #require(try await harness.token(for: "alice"))
        let accepted = try await harness.post(
            "/cmis/browser/shared/root", fields: Self.createFolder(name: "s2"), headers: [("X-CSRF-Token", token)])
        #expect(accepted.status == 201)
    }

    @Test("a cookie session needs the token even on the shared repository")
    func cookieSession() async throws {
        let harness = try await Self.standard.value
        let login = try await harness.post("/login", user: nil, fields: [("user", "alice"), ("password", "pw-alice")])
        let cookie = String(try #require(login.headers["Set-Cookie"]).split(separator: ";")[0])
        let token = try #require(try login.json()["token"]?.stringValue)
        let refused = try await harness.post(
            "/cmis/browser/shared/root", user: nil, fields: Self.createFolder(name: "c"), headers: [("Cookie", cookie)])
        #expect(refused.status == 403)
        let accepted = try await harness.post(
            "/cmis/browser/shared/root", user: nil, fields: Self.createFolder(name: "c") + [("token", token)],
            headers: [("Cookie", cookie)])
        #expect(accepted.status == 201)
    }

    @Test("reads never need the token")
    func reads() async throws {
        let harness = try await Self.strict.value
        let response = try await harness.send(.get, "/cmis/browser/shared/root?cmisselector=children")
        #expect(response.status == 200)
    }

    static let engine = Task { try await ServerHarness.start() }

    @Test("every binding asks the same question: a MyDocuments change needs the token over Browser, AtomPub and Nuxeo")
    func everyBindingAlike() async throws {
        let harness = try await Self.engine.value
        let token = try #require(try await harness.token(for: "alice"))
        let root = try BrowserParser.repositoryInfo(
            try await harness.send(.get, "/mcm/b/json/mydocs-alice?cmisselector=repositoryInfo").body
        ).rootFolderId
        let entry = """
            <?xml version="1.0" encoding="UTF-8"?>
            <atom:entry xmlns:atom="http://www.w3.org/2005/Atom" \
            xmlns:cmisra="http://docs.oasis-open.org/ns/cmis/restatom/200908/" \
            xmlns:cmis="http://docs.oasis-open.org/ns/cmis/core/200908/"><atom:title>x</atom:title><cmisra:object>\
            <cmis:properties><cmis:propertyId propertyDefinitionId="cmis:objectTypeId"><cmis:value>cmis:folder\
            </cmis:value></cmis:propertyId><cmis:propertyString propertyDefinitionId="cmis:name"><cmis:value>NAME\
            </cmis:value></cmis:propertyString></cmis:properties></cmisra:object></atom:entry>
            """
        func changes(_ headers: [(String, String)], _ name: String) async throws -> [Int] {
            let browser = try await harness.post(
                "/mcm/b/json/mydocs-alice/root?objectId=\(root)", fields: Self.createFolder(name: "b-" + name),
                headers: headers)
            let atom = try await harness.send(
                .post, "/mcm/b/atom/mydocs-alice/children?id=\(root)", headers: headers,
                body: .data(
                    Data(entry.replacingOccurrences(of: "NAME", with: "a-" + name).utf8),
                    contentType: "application/atom+xml;type=entry"))
            let nuxeo = try await harness.send(
                .post, "/nuxeo/api/v1/repo/mydocs-alice/path/", headers: headers,
                body: .json(["entity-type": "document", "type": "Folder", "name": .string("n-" + name)]))
            return [browser.status, atom.status, nuxeo.status]
        }
        #expect(try await changes([], "refused") == [403, 403, 403])
        #expect(try await changes([("X-CSRF-Token", token)], "allowed") == [201, 201, 201])
    }
}
