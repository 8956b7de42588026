import Foundation
import SatchelCMISCore
import Testing

@testable import SatchelRepository

@Suite("Engine: repositories and types")
struct RepositoryInfoTests {
    @Test func infosListSharedAndOwnMyDocumentsWithExtensions() async throws {
        let fixture = try await EngineFixture()
        let infos = try await fixture.repository.repositoryInfos(caller: fixture.alice)
        #expect(infos.map(\.id) == ["shared", "mydocs-alice"])
        let personal = try #require(infos.last)
        #expect(
            personal.extensionValue(named: "myDocuments", namespace: MobileDocuments.namespace) == personal.rootFolderId
        )
        #expect(personal.extensionValue(named: "token", namespace: MobileDocuments.namespace) == "alice-token")
        #expect(infos[0].extensions.isEmpty)
        #expect(personal.capabilities.query == .bothCombined)
        #expect(personal.capabilities.acl == .manage)
        #expect(personal.capabilities.changes == .objectIdsOnly)
        #expect(personal.capabilities.contentStreamUpdatability == .anytime)
        #expect(personal.capabilities.multifiling == true && personal.capabilities.unfiling == true)
        #expect(personal.capabilities.versionSpecificFiling == false)
        #expect(personal.vendorName == "Satchel" && personal.cmisVersionSupported == "1.1")
        #expect(personal.latestChangeLogToken != nil)
        let bobInfos = try await fixture.repository.repositoryInfos(caller: fixture.bob)
        #expect(bobInfos.map(\.id) == ["shared", "mydocs-bob"])
        #expect(bobInfos[1].rootFolderId != personal.rootFolderId)
    }

    @Test func noSessionTokenMeansNoTokenExtension() async throws {
        let fixture = try await EngineFixture()
        let info = try await fixture.repository.repositoryInfo(
            repositoryId: "mydocs-carol", caller: CallerContext(user: "carol"))
        #expect(info.extensionValue(named: "token") == nil)
        #expect(info.extensionValue(named: "myDocuments") == info.rootFolderId)
    }

    @Test func anotherUsersMyDocumentsIsNotFound() async throws {
        let fixture = try await EngineFixture()
        _ = try await fixture.repository.repositoryInfos(caller: fixture.alice)
        for id in ["mydocs-alice", "mydocs-nobody", "nothing"] {
            let code = await cmisCode {
                _ = try await fixture.repository.repositoryInfo(repositoryId: id, caller: fixture.bob)
            }
            #expect(code == .objectNotFound, "\(id)")
        }
    }

    @Test func baseTypesWithPagingAndDescendants() async throws {
        let fixture = try await EngineFixture()
        let all = try await fixture.repository.typeChildren(
            repositoryId: "shared", typeId: nil, includePropertyDefinitions: false, maxItems: nil, skipCount: 0,
            caller: fixture.alice)
        #expect(Set(all.types.map(\.id)) == Set(BaseTypeId.allCases.map(\.rawValue)))
        #expect(all.numItems == 6 && !all.hasMoreItems)
        #expect(all.types.allSatisfy { $0.propertyDefinitions.isEmpty })
        let page = try await fixture.repository.typeChildren(
            repositoryId: "shared", typeId: nil, includePropertyDefinitions: true, maxItems: 2, skipCount: 3,
            caller: fixture.alice)
        #expect(page.types.count == 2 && page.hasMoreItems && page.types[0].propertyDefinitions.count > 0)
        let document0Count = try await fixture.repository.typeDefinition(
            repositoryId: "shared", typeId: "cmis:document", caller: fixture.alice
        ).propertyDefinitions.count
        let tree = try await fixture.repository.typeDescendants(
            repositoryId: "shared", typeId: nil, depth: -1, includePropertyDefinitions: false, caller: fixture.alice)
        #expect(tree.count == 6)
        // The Nuxeo document types sit below the base types, each with every inherited property and dc:title.
        let documents = try await fixture.repository.typeChildren(
            repositoryId: "shared", typeId: "cmis:document", includePropertyDefinitions: true, maxItems: nil,
            skipCount: 0, caller: fixture.alice)
        #expect(documents.types.map(\.id) == ["File", "Note", "Picture"])
        let note = try #require(documents.types.first { $0.id == "Note" })
        #expect(note.parentTypeId == "cmis:document" && note.baseTypeId == .document && note.queryName == "Note")
        #expect(note.propertyDefinition(id: "cmis:name")?.inherited == true)
        #expect(note.propertyDefinition(id: "dc:title")?.inherited == false)
        #expect(note.propertyDefinitions.count == (document0Count + 1))
        let document = try await fixture.repository.typeDefinition(
            repositoryId: "shared", typeId: "cmis:document", caller: fixture.alice)
        #expect(document.versionable == true && document.contentStreamAllowed == .allowed)
        #expect(document.propertyDefinition(id: "cmis:versionSeriesCheckedOutId")?.propertyType == .id)
        #expect(document.propertyDefinition(id: "cmis:name")?.required == true)
        let relationship = try await fixture.repository.typeDefinition(
            repositoryId: "shared", typeId: "cmis:relationship", caller: fixture.alice)
        #expect(relationship.propertyDefinition(id: "cmis:sourceId")?.updatability == .oncreate)
        let policy = try await fixture.repository.typeDefinition(
            repositoryId: "shared", typeId: "cmis:policy", caller: fixture.alice)
        #expect(policy.propertyDefinition(id: "cmis:policyText") != nil)
        let folder = try await fixture.repository.typeDefinition(
            repositoryId: "shared", typeId: "cmis:folder", caller: fixture.alice)
        #expect(folder.propertyDefinition(id: "cmis:path") != nil)
        let code = await cmisCode {
            _ = try await fixture.repository.typeDefinition(
                repositoryId: "shared", typeId: "x:y", caller: fixture.alice)
        }
        #expect(code == .objectNotFound)
        let children = try await fixture.repository.typeChildren(
            repositoryId: "shared", typeId: "cmis:policy", includePropertyDefinitions: false, maxItems: nil,
            skipCount: 0, caller: fixture.alice)
        #expect(children.types.isEmpty && children.numItems == 0)
    }

    @Test func bootstrapIsIdempotent() async throws {
        let fixture = try await EngineFixture()
        let root = try await fixture.root("shared", fixture.alice)
        try await fixture.repository.bootstrap()
        #expect(try await fixture.root("shared", fixture.alice) == root)
        let again = CMISRepository(store: fixture.store, blobs: fixture.blobs)
        try await again.bootstrap()
        #expect(try await again.repositoryInfo(repositoryId: "shared", caller: fixture.alice).rootFolderId == root)
        #expect(
            try await again.repositoryInfo(repositoryId: "mydocs-alice", caller: fixture.alice).rootFolderId
                == (try await fixture.root("mydocs-alice", fixture.alice)))
    }
}
