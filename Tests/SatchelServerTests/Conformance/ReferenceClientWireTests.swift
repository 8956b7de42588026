import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServer
import SatchelTestSupport
import Testing
import SatchelJSON

/// What Apache Chemistry OpenCMIS, the CMIS reference client, relies on in `satchel serve`'s answers, checked on
/// the wire: each of these once made the reference client fail (most of AtomPub, some of the Browser binding).
@Suite("The wire format the CMIS reference client relies on")
struct ReferenceClientWireTests {
    /// A server with a folder, a document with content in it, and alice's session.
    struct Setup {
        let harness: ServerHarness
        let session: CMISSession
        let folder: String
        let document: String

        static func make(binding: SessionParameters.Binding = .browser) async throws -> Setup {
            let harness = try await ServerHarness.start()
            let session = try await harness.session("alice", binding: binding)
            let root = session.repositoryInfo.rootFolderId
            let folder = try #require(try await session.createFolder(named: "wire", in: root).id)
            let document = try #require(
                try await session.createDocument(
                    named: "doc.txt", in: folder, content: .data(Data("content".utf8), filename: "doc.txt")
                ).id)
            return Setup(harness: harness, session: session, folder: folder, document: document)
        }

        func get(_ path: String, headers: [(String, String)] = []) async throws -> HTTPClient.Response {
            let response = try await harness.send(.get, path, headers: headers)
            #expect(response.status == 200, "\(path): \(response.status) \(response.text.prefix(300))")
            return response
        }
    }

    // MARK: AtomPub

    @Test func typeDefinitionsCarryTheirSchemaType() async throws {
        let setup = try await Setup.make()
        try await withCleanup { () async throws in
            let folder = try await setup.get("/cmis/atom/shared/type?id=cmis:folder").text
            #expect(folder.contains(#"xsi:type="cmis:cmisTypeFolderDefinitionType""#))
            #expect(folder.contains(#"xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance""#))
            let children = try await setup.get("/cmis/atom/shared/types").text
            for base in ["Document", "Folder", "Relationship", "Policy", "Item", "Secondary"] {
                #expect(children.contains(#"xsi:type="cmis:cmisType\#(base)DefinitionType""#), "\(base)")
            }
        } cleanup: {
            await setup.harness.stop()
        }
    }

    @Test func parentsFeedsCarryTheRelativePathSegment() async throws {
        let setup = try await Setup.make()
        try await withCleanup { () async throws in
            let feed = try await setup.get(
                "/cmis/atom/shared/parents?id=\(setup.document)&includeRelativePathSegment=true"
            ).text
            #expect(feed.contains("<cmisra:relativePathSegment>doc.txt</cmisra:relativePathSegment>"))
        } cleanup: {
            await setup.harness.stop()
        }
    }

    @Test func aFilteredEntryStillLinksItsContent() async throws {
        let setup = try await Setup.make()
        try await withCleanup { () async throws in
            let entry = try await setup.get("/cmis/atom/shared/entry?id=\(setup.document)&filter=cmis:name").text
            #expect(entry.contains("<atom:content src=\""))
            #expect(!entry.contains("cmis:contentStreamLength"))
            #expect(entry.contains("cmis:name"))
        } cleanup: {
            await setup.harness.stop()
        }
    }

    @Test func theBulkUpdateCollectionUpdatesEveryObject() async throws {
        let setup = try await Setup.make()
        try await withCleanup { () async throws in
            let service = try await setup.get("/cmis/atom").text
            #expect(service.contains("<cmisra:collectionType>update</cmisra:collectionType>"))
            let second = try #require(try await setup.session.createDocument(named: "two.txt", in: setup.folder).id)
            let body = """
                <?xml version="1.0" encoding="UTF-8"?>
                <atom:entry xmlns:atom="http://www.w3.org/2005/Atom" xmlns:cmis="http://docs.oasis-open.org/ns/cmis/core/200908/" xmlns:cmisra="http://docs.oasis-open.org/ns/cmis/restatom/200908/">
                <cmisra:bulkUpdate>
                <cmis:objectIdAndChangeToken><cmis:id>\(setup.document)</cmis:id></cmis:objectIdAndChangeToken>
                <cmis:objectIdAndChangeToken><cmis:id>\(second)</cmis:id></cmis:objectIdAndChangeToken>
                <cmis:properties><cmis:propertyString propertyDefinitionId="cmis:description"><cmis:value>bulk</cmis:value></cmis:propertyString></cmis:properties>
                </cmisra:bulkUpdate></atom:entry>
                """
            let response = try await setup.harness.send(
                .post, "/cmis/atom/shared/update",
                body: .data(Data(body.utf8), contentType: "application/atom+xml;type=entry"))
            #expect(response.status == 201, "\(response.text)")
            #expect(response.text.contains(setup.document) && response.text.contains(second))
            for id in [setup.document, second] {
                #expect(
                    try await setup.session.object(id: id, useCache: false).properties["cmis:description"]?.stringValue
                        == "bulk")
            }
        } cleanup: {
            await setup.harness.stop()
        }
    }

    @Test func aPoliciesFeedLinksTheAttachmentNotThePolicy() async throws {
        let setup = try await Setup.make()
        try await withCleanup { () async throws in
            let policy = try #require(
                try await setup.session.createPolicy(named: "retain", in: setup.folder, policyText: "keep").id)
            try await setup.session.applyPolicy(policy, to: setup.document)
            let feed = try await setup.get("/cmis/atom/shared/policies?id=\(setup.document)").text
            let detach = "/cmis/atom/shared/policies?id=\(setup.document)&policyId=\(policy)"
            let escaped = detach.replacingOccurrences(of: "&", with: "&amp;")
            #expect(feed.contains(#"rel="self" href="http://127.0.0.1:\#(setup.harness.running.port)\#(escaped)""#))
            // Deleting what the self link names detaches the policy; the policy stays.
            #expect(try await setup.harness.send(.delete, detach).status == 204)
            #expect(try await setup.session.policies(of: setup.document).isEmpty)
            #expect(try await setup.session.object(id: policy, useCache: false).id == policy)
        } cleanup: {
            await setup.harness.stop()
        }
    }

    // MARK: Both bindings

    @Test(arguments: SessionParameters.Binding.allCases)
    func theBaseSecondaryTypeCanBeAdded(binding: SessionParameters.Binding) async throws {
        let setup = try await Setup.make(binding: binding)
        try await withCleanup { () async throws in
            let updated = try await setup.session.updateProperties(
                of: setup.document,
                [
                    CMISProperty(
                        id: "cmis:secondaryObjectTypeIds", type: .id, cardinality: .multi,
                        values: [.id("cmis:secondary")])
                ])
            #expect(updated.properties["cmis:secondaryObjectTypeIds"]?.values == [.id("cmis:secondary")])
        } cleanup: {
            await setup.harness.stop()
        }
    }

    @Test(arguments: [
        "/cmis/atom/shared/entry?id=DOC&filter=cmis:name,my:unknown",
        "/cmis/browser/shared/root?objectId=DOC&cmisselector=object&filter=cmis:name,my:unknown&succinct=true",
    ])
    func unknownNamesInAFilterAreIgnored(path: String) async throws {
        let setup = try await Setup.make()
        try await withCleanup { () async throws in
            let text = try await setup.get(path.replacingOccurrences(of: "DOC", with: setup.document)).text
            #expect(text.contains("cmis:name"), "\(text)")
            #expect(!text.contains("my:unknown"), "\(text)")
            #expect(!text.contains("cmis:createdBy"), "\(text)")
        } cleanup: {
            await setup.harness.stop()
        }
    }

    @Test func anOldVersionOffersNoDelete() async throws {
        let setup = try await Setup.make()
        try await withCleanup { () async throws in
            let workingCopy = try #require(try await setup.session.checkOut(setup.document).id)
            let latest = try #require(try await setup.session.checkIn(workingCopy, comment: "two").id)
            let old = try await setup.session.object(
                id: setup.document, context: OperationContext(includeAllowableActions: true), useCache: false)
            #expect(old.properties["cmis:isImmutable"]?.boolValue == true)
            #expect(old.allowableActions?.canDeleteObject == false)
            let current = try await setup.session.object(
                id: latest, context: OperationContext(includeAllowableActions: true), useCache: false)
            #expect(current.allowableActions?.canDeleteObject == true)
            let refused = await failure { try await setup.session.delete(setup.document, allVersions: false) }
            #expect(refused?.code == .constraint)
        } cleanup: {
            await setup.harness.stop()
        }
    }

    @Test func theRootHasAName() async throws {
        let setup = try await Setup.make()
        try await withCleanup { () async throws in
            let root = try await setup.session.rootFolder()
            #expect(root.name == "Shared")
            #expect(root.path == "/")
        } cleanup: {
            await setup.harness.stop()
        }
    }

    @Test(arguments: [
        "/cmis/browser/mydocs-alice?cmisselector=repositoryInfo", "/cmis/atom/mydocs-alice",
        "/mcm/b/json/mydocs-alice/root?cmisselector=children",
    ])
    func aTokenIsHandedOutToWhoeverFetchesIt(path: String) async throws {
        let setup = try await Setup.make()
        try await withCleanup { () async throws in
            let fetched = try await setup.get(path, headers: [("X-CSRF-Token", "Fetch")])
            let token = try #require(fetched.headers["X-CSRF-Token"])
            #expect(token == (try await setup.harness.token(for: "alice")))
            #expect(try await setup.get(path).headers["X-CSRF-Token"] == nil)
            // The token works for a change in MyDocuments.
            let home = try await setup.harness.send(.get, "/cmis/browser/mydocs-alice?cmisselector=repositoryInfo")
            let root = try BrowserParser.repositoryInfo(home.body).rootFolderId
            let created = try await setup.harness.post(
                "/cmis/browser/mydocs-alice/root?objectId=\(root)",
                fields: [
                    ("cmisaction", "createFolder"), ("propertyId[0]", "cmis:name"), ("propertyValue[0]", "fetched"),
                    ("propertyId[1]", "cmis:objectTypeId"), ("propertyValue[1]", "cmis:folder"),
                ], headers: [("X-CSRF-Token", token)])
            #expect(created.status == 201)
        } cleanup: {
            await setup.harness.stop()
        }
    }

    @Test func browserRepositoryInfoHasTheNewTypeCapabilities() async throws {
        let setup = try await Setup.make()
        try await withCleanup { () async throws in
            let json = try await setup.get("/cmis/browser/shared?cmisselector=repositoryInfo").json()
            let capabilities = json["shared"]?["capabilities"]
            #expect(capabilities?["capabilityCreatablePropertyTypes"]?["canCreate"]?.arrayValue?.isEmpty == true)
            #expect(capabilities?["capabilityNewTypeSettableAttributes"]?["creatable"]?.boolValue == false)
        } cleanup: {
            await setup.harness.stop()
        }
    }
}
