import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServer
import Testing

/// The AtomPub routes alone over a real socket, on the repository engine, driven by Satchel's AtomPub client and
/// by raw requests.
@Suite("AtomPub routes")
struct AtomPubRoutesTests {
    static func withServer<T>(
        limits: RequestLimits = RequestLimits(), xsrfPolicy: XSRFPolicy = .standard,
        omitNewTypeCapabilities: Bool = true, _ body: (AtomPubTestServer) async throws -> T
    ) async throws -> T {
        let server = try await AtomPubTestServer.start(
            limits: limits, xsrfPolicy: xsrfPolicy, omitNewTypeCapabilities: omitNewTypeCapabilities)
        do {
            let result = try await body(server)
            await server.stop()
            return result
        } catch {
            await server.stop()
            throw error
        }
    }

    /// A raw request; the status is not validated.
    static func send(
        _ method: HTTPClient.Method, _ url: URL, body: Data? = nil, contentType: String? = nil,
        headers: [String: String] = [:]
    ) async throws -> HTTPClient.Response {
        var request = HTTPClient.Request(method, url: url, body: body.map { .data($0, contentType: contentType) })
        request.validatesStatus = false
        for (name, value) in headers { request.headers[name] = value }
        return try await HTTPClient().send(request)
    }

    @Test("the session scenario over AtomPub, with the XSRF token required on every change")
    func scenario() async throws {
        let observed = try await Self.withServer(xsrfPolicy: .strict) { server in
            // MyDocuments: the repository with the Mobile Documents extensions and the token.
            let session = try await CMISSession.connect(
                SessionParameters(binding: .atomPub, url: server.serviceURL, repositoryId: "mydocs-alice"))
            return try await SessionScenario.run(session, folderName: "scenario")
        }
        #expect(observed.hasMyDocuments && observed.hasToken)
        #expect(observed.documentNames == (0..<5).map { "doc-\($0).txt" })
        #expect(observed.documentLengths == [16, 16, 16, 16, 16])
        #expect(
            observed.pages == [["doc-0.txt", "doc-1.txt"], ["doc-2.txt", "doc-3.txt"], ["doc-4.txt", "large.bin"]])
        #expect(observed.pageHasMore == [true, true, false])
        #expect(observed.numItems == [6, 6, 6])
        #expect(observed.byPathName == "doc-1.txt" && observed.byPathIsSameObject)
        #expect(observed.renamedName == "renamed.txt" && observed.renamedByPath == "renamed.txt")
        #expect(observed.range == "ntent nu")
        #expect(observed.fileUploadLength == 70_000 && observed.fileContent == "70000 bytes, all a: true")
        #expect(observed.queryNames == ["doc-3.txt"])
        #expect(observed.deletedIsGone)
        #expect(observed.childrenAfterDelete == ["doc-1.txt", "doc-2.txt", "doc-3.txt", "large.bin", "renamed.txt"])
    }

    @Test("service document: workspace, collections, URI templates, SAP extensions", arguments: [true, false])
    func serviceDocument(omitNewTypeCapabilities: Bool) async throws {
        try await Self.withServer(omitNewTypeCapabilities: omitNewTypeCapabilities) { server in
            let response = try await Self.send(.get, server.serviceURL)
            #expect(response.status == 200)
            #expect(response.headers["Content-Type"]?.hasPrefix("application/atomsvc+xml") == true)
            let document = try AtomPubParser.serviceDocument(response.body)
            let workspace = try #require(document.workspace(repositoryId: "shared"))
            let mine = try #require(document.workspace(repositoryId: "mydocs-alice"))
            #expect(mine.repositoryInfo.extensionValue(named: "token") == "tok-alice")
            #expect(mine.repositoryInfo.extensionValue(named: "myDocuments") == mine.repositoryInfo.rootFolderId)
            #expect(
                Set(workspace.collections.compactMap(\.collectionType))
                    == ["root", "types", "query", "checkedout", "unfiled", "update"])
            #expect(Set(workspace.uriTemplates.map(\.type)) == ["objectbyid", "objectbypath", "query", "typebyid"])
            #expect(workspace.collection("root")?.href.hasPrefix(server.serviceURL.absoluteString + "/shared/") == true)
            #expect(response.text.contains("capabilityCreatablePropertyTypes") == !omitNewTypeCapabilities)
            #expect(response.text.contains("capabilityNewTypeSettableAttributes") == !omitNewTypeCapabilities)
        }
    }

    @Test("feeds carry numItems and next links; entries carry their links")
    func feedsAndLinks() async throws {
        try await Self.withServer { server in
            let session = try await CMISSession.connect(
                SessionParameters(binding: .atomPub, url: server.serviceURL, repositoryId: "shared"))
            for index in 0..<3 { _ = try await session.createFolder(named: "f\(index)", in: server.rootID) }
            let page = try await Self.send(
                .get, URL(string: server.serviceURL.absoluteString + "/shared/children?id=\(server.rootID)&maxItems=2")!
            )
            let feed = try AtomPubParser.feed(page.body)
            #expect(feed.numItems == 3 && feed.entries.count == 2)
            let next = try #require(feed.links.next?.url)
            let second = try AtomPubParser.feed(try await Self.send(.get, next).body)
            #expect(second.entries.map(\.object.name) == ["f2"] && second.links.next == nil)
            let entry = try #require(feed.entries.first)
            #expect(entry.links.selfLink != nil && entry.links.edit != nil && entry.links.describedBy != nil)
            #expect(entry.links.down.count == 2 && entry.links.cmis("foldertree") != nil)
            #expect(entry.pathSegment == "f0")
            let type = try await Self.send(.get, try #require(entry.links.describedBy?.url))
            #expect(try AtomPubParser.typeDefinition(type.body).id == "cmis:folder")
        }
    }

    @Test("hostile bodies and refusals answer 4xx with a CMIS exception")
    func hostile() async throws {
        var limits = RequestLimits()
        limits.maxMetadataBytes = 4096
        limits.maxContentBytes = 1024
        try await Self.withServer(limits: limits, xsrfPolicy: .strict) { server in
            let children = URL(string: server.serviceURL.absoluteString + "/shared/children?id=\(server.rootID)")!
            let token = ["X-CSRF-Token": "tok-alice"]
            let entryType = "application/atom+xml;type=entry"
            let cases: [(String, HTTPClient.Response, Int, String)] = [
                (
                    "truncated XML",
                    try await Self.send(
                        .post, children, body: Data("<entry xmlns=\"http://www.w3.org/2005/Atom\"><title>x".utf8),
                        contentType: entryType, headers: token), 400, "invalidArgument"
                ),
                (
                    "wrong content type",
                    try await Self.send(
                        .post, children, body: Data("{\"name\":\"x\"}".utf8), contentType: "application/json",
                        headers: token), 400, "invalidArgument"
                ),
                (
                    "huge entry",
                    try await Self.send(
                        .post, children, body: Data(repeating: 0x20, count: 20_000), contentType: entryType,
                        headers: token), 413, "invalidArgument"
                ),
                (
                    "no XSRF token",
                    try await Self.send(
                        .post, children, body: AtomPubWriter.entry(properties: Properties()), contentType: entryType),
                    403, "permissionDenied"
                ),
                (
                    "unknown object",
                    try await Self.send(.get, URL(string: server.serviceURL.absoluteString + "/shared/entry?id=nope")!),
                    404, "objectNotFound"
                ),
                (
                    "unknown repository",
                    try await Self.send(.get, URL(string: server.serviceURL.absoluteString + "/other/entry?id=x")!),
                    404, "objectNotFound"
                ),
                (
                    "bad boolean",
                    try await Self.send(
                        .get,
                        URL(
                            string: server.serviceURL.absoluteString
                                + "/shared/entry?id=\(server.rootID)&includeACL=maybe")!),
                    400, "invalidArgument"
                ),
                (
                    "no caller",
                    // CMIS names no "unauthorized" exception: the 401 says it, as in the Browser binding.
                    try await Self.send(.get, server.serviceURL, headers: ["X-Test-Anonymous": "1"]), 401,
                    "permissionDenied"
                ),
            ]
            for (name, response, status, exception) in cases {
                #expect(response.status == status, "\(name)")
                #expect(
                    response.text.contains("<!--exception-->\(exception)<!--/exception-->"), "\(name): \(response.text)"
                )
                let error = CMISError.atomPub(status: response.status, body: response.body)
                #expect(error.message.isEmpty == false, "\(name)")
                if status == 401 { #expect(error.code == .unauthorized, "the client still reads a 401 as such") }
            }
            // Still serving after all that.
            #expect(try await Self.send(.get, server.serviceURL).status == 200)
        }
    }

    @Test("content: ranges, unsatisfiable ranges, PUT and DELETE")
    func content() async throws {
        try await Self.withServer { server in
            let session = try await CMISSession.connect(
                SessionParameters(binding: .atomPub, url: server.serviceURL, repositoryId: "shared"))
            let document = try await session.createDocument(
                named: "a.txt", in: server.rootID, content: .data(Data("0123456789".utf8), filename: "a.txt"))
            let url = URL(string: server.serviceURL.absoluteString + "/shared/content?id=\(document.id ?? "")")!
            let suffix = try await Self.send(.get, url, headers: ["Range": "bytes=-3"])
            #expect(suffix.status == 206 && suffix.text == "789")
            #expect(suffix.headers["Content-Range"] == "bytes 7-9/10")
            let outside = try await Self.send(.get, url, headers: ["Range": "bytes=20-30"])
            #expect(outside.status == 416)
            #expect(outside.headers["Content-Range"] == "bytes */10")
            // A range covering all of it is the whole content, not a part (clients mark 206 answers partial).
            let everything = try await Self.send(.get, url, headers: ["Range": "bytes=0-"])
            #expect(everything.status == 200 && everything.headers["Content-Range"] == nil)
            #expect(everything.text == "0123456789")
            let put = try await Self.send(.put, url, body: Data("new".utf8), contentType: "text/plain")
            #expect(put.status == 204)
            #expect(try await session.content(of: document.id ?? "") == Data("new".utf8))
            let deleted = try await Self.send(.delete, url)
            #expect(deleted.status == 204)
            let gone = try await Self.send(.get, url)
            #expect(gone.status == 409 && gone.text.contains("constraint"), "no content stream left: \(gone.text)")
        }
    }

    @Test("the client maps AtomPub errors to CMISError")
    func clientErrors() async throws {
        try await Self.withServer { server in
            let session = try await CMISSession.connect(
                SessionParameters(binding: .atomPub, url: server.serviceURL, repositoryId: "shared"))
            await #expect(throws: CMISError.self) { _ = try await session.object(id: "nope") }
            do {
                _ = try await session.object(at: "/no/such/thing")
                Issue.record("found a missing path")
            } catch let error as CMISError {
                #expect(error.code == .objectNotFound && error.status == 404)
                #expect(error.message.contains("/no"), "the message names the path: \(error.message)")
            }
            _ = try await session.createFolder(named: "twice", in: server.rootID)
            do {
                _ = try await session.createFolder(named: "twice", in: server.rootID)
                Issue.record("created a duplicate")
            } catch let error as CMISError {
                #expect(error.code == .nameConstraintViolation && error.status == 409)
            }
        }
    }
}
