import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServer
import Testing

/// The same CMISSession scenario over AtomPub and over the Browser binding against `satchel serve` with the real
/// engine: both bindings must observe the same things.
@Suite("AtomPub and Browser bindings agree (live server)", .serialized)
struct AtomPubParityLiveTests {
    static let server = Task { try await ServerHarness.start() }

    static func session(
        _ harness: ServerHarness, binding: SessionParameters.Binding, user: String = "alice"
    ) async throws -> CMISSession {
        let endpoint: MobileDocuments.Binding = binding == .atomPub ? .atomPub : .browser
        let parameters = SessionParameters(
            binding: binding, url: MobileDocuments.endpoint(for: harness.url("/"), binding: endpoint),
            preferMyDocuments: true, auth: [BasicAuth(user: user, password: "pw-\(user)")],
            tokenHeader: "X-CSRF-Token")
        return try await CMISSession.connect(parameters)
    }

    @Test("repository info, create, paging, path, update, range, query, delete: same results")
    func sameScenario() async throws {
        let harness = try await Self.server.value
        let atom = try await Self.session(harness, binding: .atomPub)
        let browser = try await Self.session(harness, binding: .browser)
        #expect(atom.repositoryId == "mydocs-alice" && browser.repositoryId == "mydocs-alice")
        #expect(atom.myDocumentsFolderId == browser.myDocumentsFolderId)
        var atomInfo = atom.repositoryInfo
        var browserInfo = browser.repositoryInfo
        // The URLs and the change log token differ by binding and by time; everything else must agree.
        atomInfo.repositoryURL = nil
        atomInfo.rootFolderURL = nil
        browserInfo.repositoryURL = nil
        browserInfo.rootFolderURL = nil
        atomInfo.latestChangeLogToken = nil
        browserInfo.latestChangeLogToken = nil
        #expect(atomInfo.id == browserInfo.id && atomInfo.name == browserInfo.name)
        #expect(atomInfo.rootFolderId == browserInfo.rootFolderId)
        #expect(atomInfo.extensionValue(named: "myDocuments") == browserInfo.extensionValue(named: "myDocuments"))
        #expect(atomInfo.extensionValue(named: "token") != nil)
        #expect(atomInfo.capabilities.query == browserInfo.capabilities.query)

        let home = try #require(atom.myDocumentsFolderId)
        let overAtom = try await SessionScenario.run(atom, folderName: "parity-atom", parentId: home)
        let overBrowser = try await SessionScenario.run(browser, folderName: "parity-browser", parentId: home)
        var normalized = overBrowser
        normalized.folderName = overAtom.folderName
        normalized.folderPath = overAtom.folderPath
        #expect(overAtom == normalized, "AtomPub:\n\(overAtom)\nBrowser:\n\(overBrowser)")
        #expect(overAtom.pages.flatMap { $0 }.count == 6)
        #expect(overAtom.range == "ntent nu" && overAtom.deletedIsGone)
        #expect(overAtom.queryNames.contains("doc-3.txt"))

        // An object read over one binding equals the same object read over the other.
        let id = try #require(try await atom.object(at: "/parity-atom/doc-1.txt", useCache: false).id)
        let one = try await atom.object(id: id, useCache: false)
        let other = try await browser.object(id: id, useCache: false)
        #expect(one.properties.ids.sorted() == other.properties.ids.sorted())
        for property in one.properties {
            // AtomPub sends ISO 8601 and the Browser binding epoch milliseconds: equal to the millisecond.
            #expect(
                Self.milliseconds(property.values) == Self.milliseconds(other.properties[property.id]?.values ?? []),
                "\(property.id)")
            #expect(property.type == other.properties[property.id]?.type, "\(property.id)")
            #expect(property.cardinality == other.properties[property.id]?.cardinality, "\(property.id)")
        }
    }

    static func milliseconds(_ values: [PropertyValue]) -> [PropertyValue] {
        values.map { value in
            guard case .datetime(let date) = value else { return value }
            return .datetime(Date(timeIntervalSince1970: (date.timeIntervalSince1970 * 1000).rounded() / 1000))
        }
    }
}

/// Hostile AtomPub requests against `satchel serve` with the real engine: 4xx with a CMIS exception, never a crash.
@Suite("AtomPub hostile requests (live server)", .serialized)
struct AtomPubHostileLiveTests {
    @Test("truncated XML, wrong content type, huge entry, unknown ids, no credentials")
    func hostile() async throws {
        var limits = RequestLimits()
        limits.maxMetadataBytes = 8192
        limits.maxContentBytes = 4096
        let harness = try await ServerHarness.start(limits: limits)
        do {
            let service = try await harness.send(.get, "/cmis/atom")
            #expect(service.status == 200)
            let workspace = try #require(
                AtomPubParser.serviceDocument(service.body).workspaces.first { $0.repositoryInfo.id == "shared" })
            let children = "/cmis/atom/shared/children?id=\(workspace.repositoryInfo.rootFolderId)"
            let entryType = ("Content-Type", "application/atom+xml;type=entry")
            let cases: [(String, HTTPClient.Response, Int, String)] = [
                (
                    "truncated XML",
                    try await harness.send(
                        .post, children, headers: [entryType],
                        body: .data(Data("<entry xmlns=\"http://www.w3.org/2005/Atom\"><title>x".utf8))),
                    400, "invalidArgument"
                ),
                (
                    "wrong content type",
                    try await harness.send(
                        .post, children, headers: [("Content-Type", "application/json")],
                        body: .data(Data("{}".utf8), contentType: "application/json")),
                    400, "invalidArgument"
                ),
                (
                    "huge entry",
                    try await harness.send(
                        .post, children, headers: [entryType],
                        body: .data(Data(repeating: 0x20, count: 30_000), contentType: entryType.1)),
                    413, "invalidArgument"
                ),
                (
                    "unknown object", try await harness.send(.get, "/cmis/atom/shared/entry?id=no-such-object"), 404,
                    "objectNotFound"
                ),
                (
                    "another user's MyDocuments",
                    try await harness.send(.get, "/cmis/atom/mydocs-bob/children?id=x", user: "alice"), 404,
                    "objectNotFound"
                ),
                (
                    "MyDocuments change without the XSRF token",
                    try await harness.send(
                        .post, "/mcm/b/atom/mydocs-alice/children?id=x", headers: [entryType],
                        body: .data(AtomPubWriter.entry(properties: Properties()), contentType: entryType.1)),
                    403, "permissionDenied"
                ),
            ]
            for (name, response, status, exception) in cases {
                #expect(response.status == status, "\(name): \(response.text)")
                #expect(
                    CMISError.atomPub(status: response.status, body: response.body).serverException == exception,
                    "\(name): \(response.text)")
            }
            let anonymous = try await harness.send(.get, "/cmis/atom", user: nil)
            #expect(anonymous.status == 401)
            #expect(try await harness.send(.get, "/cmis/atom").status == 200)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }
}
