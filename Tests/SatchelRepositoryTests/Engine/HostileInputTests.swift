import Foundation
import SatchelCMISCore
import Testing

@testable import SatchelRepository

@Suite("Engine: hostile input and races")
struct HostileInputTests {
    @Test func concurrentUpdatesWithOneTokenLetOneWin() async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        let document = try await f.document("d", in: root, f.aliceDocs, f.alice)
        let token = document.changeToken
        let codes = await withTaskGroup(of: CMISError.Code?.self) { group in
            for index in 0..<8 {
                group.addTask {
                    await cmisCode {
                        _ = try await f.repository.updateProperties(
                            repositoryId: f.aliceDocs, objectId: document.requiredId, changeToken: token,
                            properties: props("name\(index)"), caller: f.alice)
                    }
                }
            }
            var codes: [CMISError.Code?] = []
            for await code in group { codes.append(code) }
            return codes
        }
        #expect(codes.filter { $0 == nil }.count == 1)
        #expect(codes.filter { $0 == .updateConflict }.count == 7)
        #expect(try await f.get(f.aliceDocs, document.requiredId, f.alice).changeToken == "2")
    }

    @Test func concurrentFirstCallsCreateOneMyDocuments() async throws {
        let f = try await EngineFixture()
        let dave = CallerContext(user: "dave")
        let roots = try await withThrowingTaskGroup(of: String.self) { group in
            for _ in 0..<10 {
                group.addTask { try await f.root("mydocs-dave", dave) }
            }
            var roots: Set<String> = []
            for try await root in group { roots.insert(root) }
            return roots
        }
        #expect(roots.count == 1)
        #expect(try await f.store.repositories().filter { $0.owner == "dave" }.count == 1)
    }

    @Test func limitsCapPagesAndTrees() async throws {
        let f = try await EngineFixture { configuration in
            configuration.maximumMaxItems = 2
            configuration.maximumTreeSize = 3
        }
        let root = try await f.root(f.aliceDocs, f.alice)
        let folder = try await f.folder("f", in: root, f.aliceDocs, f.alice)
        for index in 0..<4 { try await f.document("d\(index)", in: folder.requiredId, f.aliceDocs, f.alice) }
        let page = try await f.repository.children(
            repositoryId: f.aliceDocs, folderId: folder.requiredId, context: .init(), maxItems: 1_000_000,
            skipCount: 0, caller: f.alice)
        #expect(page.objects.count == 2 && page.hasMoreItems && page.numItems == 4)
        #expect(
            await cmisCode {
                _ = try await f.repository.descendants(
                    repositoryId: f.aliceDocs, folderId: root, depth: -1, foldersOnly: false, context: .init(),
                    caller: f.alice)
            } == .constraint)
        #expect(
            await cmisCode {
                _ = try await f.repository.deleteTree(
                    repositoryId: f.aliceDocs, folderId: folder.requiredId, allVersions: true, unfileObjects: .delete,
                    continueOnFailure: true, caller: f.alice)
            } == .constraint)
        #expect(try await f.get(f.aliceDocs, folder.requiredId, f.alice).name == "f")
    }

    @Test func hostileIdsValuesAndParents() async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        let document = try await f.document("d", in: root, f.aliceDocs, f.alice)
        let huge = String(repeating: "z", count: 100_000)
        for id in [huge, "", "../\(root)", "\u{0}"] {
            #expect(await cmisCode { _ = try await f.get(f.aliceDocs, id, f.alice) } == .objectNotFound)
        }
        for repository in [huge, "mydocs-alice/../shared", "mydocs-", ""] {
            #expect(
                await cmisCode { _ = try await f.get(repository, root, f.alice) } == .objectNotFound,
                "\(repository.prefix(30))")
        }
        #expect(
            await cmisCode { try await f.document("x", in: document.requiredId, f.aliceDocs, f.alice) }
                == .invalidArgument)
        let manyValues = CMISProperty(
            id: "cmis:secondaryObjectTypeIds", type: .id, cardinality: .multi,
            values: Array(repeating: .id("x"), count: 5_000))
        #expect(
            await cmisCode {
                _ = try await f.repository.updateProperties(
                    repositoryId: f.aliceDocs, objectId: document.requiredId, changeToken: nil,
                    properties: Properties([manyValues]), caller: f.alice)
            } == .constraint)
        let hugeFilter = OperationContext(filter: Array(repeating: "cmis:name", count: 10_000) + [huge])
        let filtered = try await f.get(f.aliceDocs, root, f.alice, hugeFilter)
        #expect(Set(filtered.properties.ids) == ["cmis:name", "cmis:objectId", "cmis:baseTypeId", "cmis:objectTypeId"])
        let hugeStatement = "SELECT * FROM cmis:document WHERE cmis:name = '\(String(repeating: "q", count: 300_000))'"
        #expect(
            await cmisCode {
                _ = try await f.repository.query(
                    repositoryId: f.aliceDocs, statement: hugeStatement, searchAllVersions: false,
                    includeAllowableActions: false, includeRelationships: .none, renditionFilter: nil, maxItems: nil,
                    skipCount: 0, caller: f.alice)
            } == .invalidArgument)
        let deep =
            "SELECT * FROM cmis:document WHERE " + String(repeating: "(", count: 5_000) + "cmis:name = 'a'"
            + String(repeating: ")", count: 5_000)
        #expect(
            await cmisCode {
                _ = try await f.repository.query(
                    repositoryId: f.aliceDocs, statement: deep, searchAllVersions: false,
                    includeAllowableActions: false,
                    includeRelationships: .none, renditionFilter: nil, maxItems: nil, skipCount: 0, caller: f.alice)
            } == .invalidArgument)
    }

    @Test func twoEnginesOnOneStoreSeeFolderRenamesWithinTheCacheLifetime() async throws {
        let f = try await EngineFixture { $0.folderCacheLifetime = .milliseconds(50) }
        let other = CMISRepository(store: f.store, blobs: f.blobs)
        let root = try await f.root(f.aliceDocs, f.alice)
        let a = try await f.folder("a", in: root, f.aliceDocs, f.alice)
        let b = try await f.folder("b", in: a.requiredId, f.aliceDocs, f.alice)
        #expect(try await f.get(f.aliceDocs, b.requiredId, f.alice).path == "/a/b")
        _ = try await other.updateProperties(
            repositoryId: f.aliceDocs, objectId: a.requiredId, changeToken: nil,
            properties: props("renamed", type: "cmis:folder"),
            caller: f.alice)
        try await Task.sleep(for: .milliseconds(120))
        #expect(try await f.get(f.aliceDocs, b.requiredId, f.alice).path == "/renamed/b")
    }
}
