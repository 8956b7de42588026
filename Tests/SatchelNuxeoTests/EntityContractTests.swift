import Foundation
import SatchelJSON
import Testing

@testable import SatchelNuxeo
import SatchelText

/// Reads a file from Fixtures/ (Nuxeo REST shapes from the documentation and the server's writers: see its README).
func fixture(_ name: String) throws -> Data {
    let url = try #require(Bundle.module.url(forResource: name, withExtension: nil, subdirectory: "Fixtures"))
    return try Data(contentsOf: url)
}

/// The wire shapes of older and newer Nuxeo servers, pinned: every fixture reads into the entity it is.
@Suite("Nuxeo entities (contract)")
struct EntityContractTests {
    @Test("a File document: blob length as a string, three-digit dates, null description, schemas")
    func fileDocument() throws {
        guard case .document(let document) = try NuxeoEntity(json: try fixture("synth_document_file_lts2023plus.json"))
        else {
            Issue.record("not a document")
            return
        }
        #expect(document.uid == "5e6a3f3c-6b1e-4c47-9b2e-2f3c1f0a9d10" && document.type == "File")
        #expect(document.path == "/default-domain/workspaces/ws/hello.txt")
        #expect(document.changeToken == "1-0" && document.isTrashed == false)
        #expect(document.lastModified == ISO8601Timestamp.date(from: "2024-01-15T10:20:30.123Z"))
        #expect(document[string: "dc:title"] == "hello.txt" && document.properties["dc:description"] == .null)
        let blob = try #require(document.blob)
        #expect(blob.length == 5 && blob.digest == "5d41402abc4b2a76b9719d911017c592" && blob.mimeType == "text/plain")
        #expect(blob.data?.hasPrefix("http://localhost:8080/nuxeo/nxfile/") == true)
        #expect(document.facets.contains("Versionable"))
    }

    @Test("older documents: two-digit fractions, no changeToken, a relative blob URL")
    func olderDocuments() throws {
        guard case .document(let domain) = try NuxeoEntity(json: try fixture("document_domain_doc2014.json")) else {
            Issue.record("not a document")
            return
        }
        #expect(domain.type == "Domain" && domain.lastModified != nil)
        guard case .document(let file) = try NuxeoEntity(json: try fixture("document_file_automation_doc.json")) else {
            Issue.record("not a document")
            return
        }
        let blob = try #require(file.blob)
        #expect(blob.data?.hasPrefix("http") == false, "relative on that server")
    }

    @Test("pages of documents: the 2016 children shape, the 2014 search shape, the 2013 page provider")
    func pages() throws {
        for (name, count, index) in [
            ("documents_children_doc2016.json", nil as Int?, nil as Int?),
            ("documents_search_page1_doc.json", 2, 1), ("documents_pageprovider_tck2013.json", nil, 0),
        ] {
            guard case .documents(let page) = try NuxeoEntity(json: try fixture(name)) else {
                Issue.record("\(name): not documents")
                continue
            }
            #expect(!page.entries.isEmpty, "\(name)")
            if let count { #expect(page.entries.count == count, "\(name)") }
            if let index { #expect(page.pageIndex == index, "\(name)") }
        }
        guard case .documents(let search) = try NuxeoEntity(json: try fixture("documents_search_page1_doc.json")) else {
            return
        }
        #expect(search.totalSize == 39 && search.pageCount == 20 && search.isNextPageAvailable)
        guard case .documents(let old) = try NuxeoEntity(json: try fixture("documents_pageprovider_tck2013.json"))
        else { return }
        #expect(old.totalSize == 3 && old.pageCount == 2 && old.isNextPageAvailable, "derived from the counts")
    }

    @Test("exceptions become errors with the server's status and message")
    func exceptions() throws {
        for (name, status) in [("exception_simple_doc.json", 404), ("exception_409_pyclient.json", 409)] {
            guard case .exception(let error) = try NuxeoEntity(json: try fixture(name)) else {
                Issue.record("\(name): not an exception")
                continue
            }
            #expect(error.status == status && error.code == .server && !error.message.isEmpty)
        }
    }

    @Test("logins, legacy and current")
    func logins() throws {
        guard case .login(let current) = try NuxeoEntity(json: try fixture("synth_login_lts2025.json")),
            case .login(let legacy) = try NuxeoEntity(json: try fixture("synth_login_legacy.json"))
        else {
            Issue.record("not logins")
            return
        }
        #expect(current.username == "Administrator" && current.isAdministrator && current.id != nil)
        #expect(legacy.groups == ["administrators"] && legacy.id == nil)
    }

    @Test("hostile answers: a login page, truncated JSON, no entity type, an unknown one")
    func hostile() throws {
        let page = #expect(throws: NuxeoError.self) {
            try NuxeoEntity(json: Data("<!DOCTYPE html><html><body>Login</body></html>".utf8))
        }
        #expect(page?.message.contains("page") == true && page?.code == .invalidResponse)
        #expect(throws: NuxeoError.self) { try NuxeoEntity(json: Data(#"{"entity-type":"document","uid":"#.utf8)) }
        #expect(throws: NuxeoError.self) { try NuxeoEntity(json: Data(#"{"uid":"x"}"#.utf8)) }
        let missing = #expect(throws: NuxeoError.self) {
            try NuxeoEntity(json: Data(#"{"entity-type":"documents","entries":[{"entity-type":"document"}]}"#.utf8))
        }
        #expect(missing?.message.contains("entries[0]") == true)
        guard case .other(let type, _) = try NuxeoEntity(json: Data(#"{"entity-type":"workflow","id":"1"}"#.utf8))
        else {
            Issue.record("an unknown entity type is kept as it came")
            return
        }
        #expect(type == "workflow")
    }

    @Test("dates with no, two, three and six fraction digits, Z or an offset")
    func dates() {
        let base = NuxeoDate.parse("2024-01-15T10:20:30Z")
        #expect(base != nil)
        #expect(NuxeoDate.parse("2024-01-15T10:20:30.46Z")?.timeIntervalSince(base!) ?? 0 > 0.45)
        #expect(NuxeoDate.parse("2024-01-15T10:20:30.123456Z") != nil)
        #expect(NuxeoDate.parse("2024-01-15T11:20:30+01:00") == base)
        #expect(NuxeoDate.parse("yesterday") == nil)
    }
}

/// The request builder: every part encoded where it goes.
@Suite("Nuxeo requests")
struct RequestTests {
    let server = URL(string: "http://127.0.0.1:8080/nuxeo")!

    @Test("NXQL with &, + and = arrives as written; paths keep their slashes and encode the rest")
    func encoding() throws {
        let nxql = "SELECT * FROM Document WHERE dc:title = 'R&D + QA' AND ecm:path STARTSWITH '/a b'"
        let search = NuxeoRequest.search(nxql: nxql).query("pageSize", "2")
        let url = search.url(server: server, repository: "default")
        #expect(
            url.absoluteString.hasPrefix(
                "http://127.0.0.1:8080/nuxeo/api/v1/repo/default/search/lang/NXQL/execute?query="))
        let components = try #require(URLComponents(url: url, resolvingAgainstBaseURL: false))
        #expect(components.queryItems?.first { $0.name == "query" }?.value == nxql)
        #expect(!url.absoluteString.contains("&D") && !url.absoluteString.contains("+"))

        let children = NuxeoRequest.path("/default-domain/work spaces/é").adapter("children")
        #expect(
            children.url(server: server).absoluteString
                == "http://127.0.0.1:8080/nuxeo/api/v1/path/default-domain/work%20spaces/%C3%A9/@children")
        let blob = NuxeoRequest.id("abc").adapter("blob", "file:content")
        #expect(
            blob.url(server: server, repository: "default").absoluteString
                == "http://127.0.0.1:8080/nuxeo/api/v1/repo/default/id/abc/@blob/file:content")
        #expect(
            NuxeoRequest.resource("me").url(server: server, repository: "default").absoluteString
                == "http://127.0.0.1:8080/nuxeo/api/v1/me", "not a repository resource")
    }
}
