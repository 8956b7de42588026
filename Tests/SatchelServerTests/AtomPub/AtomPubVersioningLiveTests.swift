import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServer
import Testing

/// Versioning, trees and types over AtomPub against `satchel serve` with the real engine, with raw requests.
@Suite("AtomPub versioning, trees and types (live server)", .serialized)
struct AtomPubVersioningLiveTests {
    static let entryType = ("Content-Type", "application/atom+xml;type=entry")

    static func entry(_ properties: [CMISProperty], content: Data? = nil) -> HTTPClient.Body {
        .data(
            AtomPubWriter.entry(properties: Properties(properties), content: content, mimeType: "text/plain"),
            contentType: entryType.1)
    }

    static func id(_ value: String) -> CMISProperty {
        CMISProperty(id: "cmis:objectId", type: .id, values: [.id(value)])
    }

    @Test("check out (POST checkedout), check in (PUT checkin=true), cancel (DELETE the PWC); trees; types")
    func versioning() async throws {
        let harness = try await ServerHarness.start()
        do {
            let service = try await harness.send(.get, "/cmis/atom")
            let workspace = try #require(
                AtomPubParser.serviceDocument(service.body).workspaces.first { $0.repositoryInfo.id == "shared" })
            let root = workspace.repositoryInfo.rootFolderId
            let base = "/cmis/atom/shared"
            let created = try await harness.send(
                .post, "\(base)/children?id=\(root)", headers: [Self.entryType],
                body: Self.entry(
                    [
                        CMISProperty(id: "cmis:name", type: .string, values: [.string("versioned.txt")]),
                        CMISProperty(id: "cmis:objectTypeId", type: .id, values: [.id("cmis:document")]),
                    ], content: Data("v1".utf8)))
            #expect(created.status == 201, "\(created.text)")
            #expect(created.headers["Location"] != nil)
            let document = try AtomPubParser.object(created.body)
            let documentId = try #require(document.id)

            let checkedOut = try await harness.send(
                .post, "\(base)/checkedout", headers: [Self.entryType], body: Self.entry([Self.id(documentId)]))
            #expect(checkedOut.status == 201, "\(checkedOut.text)")
            let pwc = try AtomPubParser.object(checkedOut.body)
            let pwcId = try #require(pwc.id)
            #expect(pwc.properties["cmis:isPrivateWorkingCopy"]?.boolValue == true)
            let list = try AtomPubParser.objectList(try await harness.send(.get, "\(base)/checkedout").body)
            #expect(list.objects.compactMap(\.id).contains(pwcId))

            let checkedIn = try await harness.send(
                .put, "\(base)/entry?id=\(pwcId)&checkin=true&major=true&checkinComment=second",
                headers: [Self.entryType],
                body: Self.entry([], content: Data("v2".utf8)))
            #expect(checkedIn.status == 200, "\(checkedIn.text)")
            let second = try AtomPubParser.entry(checkedIn.body)
            #expect(second.object.properties["cmis:isPrivateWorkingCopy"]?.boolValue != true)
            let contentURL = try #require(second.links.contentSource.flatMap(URL.init(string:)))
            let content = try await harness.send(.get, contentURL.path + "?" + (contentURL.query ?? ""))
            #expect(content.text == "v2")
            let versions = try AtomPubParser.objectList(
                try await harness.send(.get, "\(base)/versions?id=\(second.object.id ?? "")").body)
            #expect(versions.objects.count == 2)

            let again = try await harness.send(
                .post, "\(base)/checkedout", headers: [Self.entryType],
                body: Self.entry([Self.id(second.object.id ?? "")]))
            let againId = try #require(try AtomPubParser.object(again.body).id)
            let cancelled = try await harness.send(.delete, "\(base)/entry?id=\(againId)")
            #expect(cancelled.status == 204, "\(cancelled.text)")
            let latest = try AtomPubParser.object(
                try await harness.send(.get, "\(base)/entry?id=\(second.object.id ?? "")").body)
            #expect(latest.isVersionSeriesCheckedOut != true)

            let tree = try AtomPubParser.descendants(
                try await harness.send(.get, "\(base)/descendants?id=\(root)&depth=2").body)
            #expect(tree.contains { $0.object.name == "versioned.txt" })
            let types = try AtomPubParser.typeDefinitionList(try await harness.send(.get, "\(base)/types").body)
            #expect(Set(types.types.map(\.id)).isSuperset(of: ["cmis:document", "cmis:folder"]))
            let type = try AtomPubParser.typeDefinition(
                try await harness.send(.get, "\(base)/type?id=cmis:document").body)
            #expect(type.baseTypeId == .document && !type.propertyDefinitions.isEmpty)
        } catch {
            await harness.stop()
            throw error
        }
        await harness.stop()
    }
}
