import Foundation
import SatchelCMISCore
import Testing

@testable import SatchelRepository

@Suite("Engine: ACLs, isolation, change log")
struct SecurityTests {
    @Test func sharedRootGrantsReadWriteUntilAnAdministratorRestrictsIt() async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.shared, f.alice)
        let rootACL = try await f.repository.acl(
            repositoryId: f.shared, objectId: root, onlyBasicPermissions: true, caller: f.alice)
        #expect(rootACL.aces == [ACE(principalId: "cmis:anyone", permissions: ["cmis:write"], isDirect: true)])
        let folder = try await f.folder("team", in: root, f.shared, f.alice)
        let inherited = try await f.repository.acl(
            repositoryId: f.shared, objectId: folder.requiredId, onlyBasicPermissions: true, caller: f.alice)
        // Its creator holds cmis:all on it; everybody else has what the root gives.
        #expect(
            inherited.aces == [
                ACE(principalId: "alice", permissions: ["cmis:all"], isDirect: true),
                ACE(principalId: "cmis:anyone", permissions: ["cmis:write"], isDirect: false),
            ])
        try await f.document("notes", in: folder.requiredId, f.shared, f.alice, text: "b")

        // Nobody but an administrator may change the root's ACL, not even a user granted cmis:all on it.
        let takeOver = {
            (caller: CallerContext) in
            _ = try await f.repository.applyACL(
                repositoryId: f.shared, objectId: root, addACEs: [ACE(principalId: "alice", permissions: ["cmis:all"])],
                removeACEs: [ACE(principalId: "cmis:anyone", permissions: ["cmis:write"])], propagation: nil,
                caller: caller)
        }
        #expect(await cmisCode { try await takeOver(f.bob) } == .permissionDenied)
        #expect(await cmisCode { try await takeOver(f.alice) } == .permissionDenied)
        #expect(
            try await f.repository.acl(
                repositoryId: f.shared, objectId: root, onlyBasicPermissions: true, caller: f.alice) == rootACL)
        // The administrator hands the root to alice: bob keeps read only on the team folder.
        try await takeOver(f.admin)
        #expect(await cmisCode { _ = try await f.get(f.shared, folder.requiredId, f.bob) } == .permissionDenied)
        #expect(
            await cmisCode {
                _ = try await f.repository.children(
                    repositoryId: f.shared, folderId: root, context: .init(), maxItems: nil, skipCount: 0,
                    caller: f.bob)
            } == .permissionDenied)
        let applied = try await f.repository.applyACL(
            repositoryId: f.shared, objectId: folder.requiredId,
            addACEs: [ACE(principalId: "bob", permissions: ["cmis:read"])], removeACEs: [], propagation: "propagate",
            caller: f.alice)
        #expect(applied.aces.contains(ACE(principalId: "bob", permissions: ["cmis:read"], isDirect: true)))
        #expect(applied.aces.contains(ACE(principalId: "alice", permissions: ["cmis:all"], isDirect: false)))
        let bobView = try await f.repository.children(
            repositoryId: f.shared, folderId: folder.requiredId,
            context: OperationContext(includeAllowableActions: true), maxItems: nil, skipCount: 0, caller: f.bob)
        let actions = try #require(bobView.objects.first?.object.allowableActions)
        #expect(actions.canGetContentStream && !actions.canUpdateProperties && !actions.canDeleteObject)
        #expect(
            await cmisCode { try await f.document("x", in: folder.requiredId, f.shared, f.bob) } == .permissionDenied)
        let document = try #require(bobView.objects.first?.object)
        #expect(
            await cmisCode {
                try await f.repository.deleteObject(
                    repositoryId: f.shared, objectId: document.requiredId, allVersions: true, caller: f.bob)
            } == .permissionDenied)
        #expect(
            await cmisCode {
                _ = try await f.repository.applyACL(
                    repositoryId: f.shared, objectId: folder.requiredId,
                    addACEs: [ACE(principalId: "bob", permissions: ["cmis:all"])], removeACEs: [], propagation: nil,
                    caller: f.bob)
            } == .permissionDenied)
        #expect(
            await cmisCode {
                _ = try await f.repository.applyACL(
                    repositoryId: f.shared, objectId: folder.requiredId,
                    addACEs: [ACE(principalId: "bob", permissions: ["cmis:fly"])], removeACEs: [], propagation: nil,
                    caller: f.alice)
            } == .constraint)
        #expect(
            await cmisCode {
                _ = try await f.repository.applyACL(
                    repositoryId: f.shared, objectId: folder.requiredId, addACEs: [], removeACEs: [],
                    propagation: "sideways", caller: f.alice)
            } == .invalidArgument)
        #expect(try await f.text(f.shared, document.requiredId, f.bob) == "b")
        // Alice holds cmis:all on the root now, and still may not change its ACL.
        #expect(await cmisCode { try await takeOver(f.alice) } == .permissionDenied)
    }

    /// A store from before the administrator role: its shared root lets anyone do anything, ACL changes included.
    /// Starting on it hands the root today's grant.
    @Test func anOldSharedRootGrantIsReplacedAtStart() async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.shared, f.alice)
        var old = try #require(try await f.store.object(repositoryId: f.shared, id: root))
        let token = old.changeToken
        old.acl = [ACE(principalId: "cmis:anyone", permissions: ["cmis:all"])]
        old.changeToken += 1
        try await f.store.apply(StoreBatch(repositoryId: f.shared, expectedChangeTokens: [root: token], updates: [old]))
        let restarted = CMISRepository(store: f.store, blobs: f.blobs)
        try await restarted.bootstrap()
        let acl = try await restarted.acl(
            repositoryId: f.shared, objectId: root, onlyBasicPermissions: true, caller: f.alice)
        #expect(acl.aces == [ACE(principalId: "cmis:anyone", permissions: ["cmis:write"], isDirect: true)])
    }

    /// Every operation bob can try on alice's MyDocuments answers objectNotFound.
    @Test func anotherUsersMyDocumentsIsInvisibleToEveryOperation() async throws {
        let f = try await EngineFixture()
        let r = f.repository
        let root = try await f.root(f.aliceDocs, f.alice)
        let folder = try await f.folder("private", in: root, f.aliceDocs, f.alice).requiredId
        let doc = try await f.document("secret.txt", in: folder, f.aliceDocs, f.alice, text: "s").requiredId
        let repo = f.aliceDocs
        let bob = f.bob
        let content = try await f.content("x")
        let ctx = OperationContext()
        let operations: [(String, () async throws -> Void)] = [
            ("info", { _ = try await r.repositoryInfo(repositoryId: repo, caller: bob) }),
            (
                "typeChildren",
                {
                    _ = try await r.typeChildren(
                        repositoryId: repo, typeId: nil, includePropertyDefinitions: false, maxItems: nil, skipCount: 0,
                        caller: bob)
                }
            ),
            (
                "typeDescendants",
                {
                    _ = try await r.typeDescendants(
                        repositoryId: repo, typeId: nil, depth: nil, includePropertyDefinitions: false, caller: bob)
                }
            ),
            (
                "typeDefinition",
                { _ = try await r.typeDefinition(repositoryId: repo, typeId: "cmis:document", caller: bob) }
            ),
            ("object", { _ = try await r.object(repositoryId: repo, id: doc, context: ctx, caller: bob) }),
            ("path", { _ = try await r.object(repositoryId: repo, path: "/private", context: ctx, caller: bob) }),
            ("actions", { _ = try await r.allowableActions(repositoryId: repo, objectId: doc, caller: bob) }),
            (
                "children",
                {
                    _ = try await r.children(
                        repositoryId: repo, folderId: root, context: ctx, maxItems: nil, skipCount: 0, caller: bob)
                }
            ),
            (
                "descendants",
                {
                    _ = try await r.descendants(
                        repositoryId: repo, folderId: root, depth: nil, foldersOnly: false, context: ctx, caller: bob)
                }
            ),
            (
                "parents",
                { _ = try await r.objectParents(repositoryId: repo, objectId: doc, context: ctx, caller: bob) }
            ),
            (
                "folderParent",
                { _ = try await r.folderParent(repositoryId: repo, folderId: folder, context: ctx, caller: bob) }
            ),
            (
                "checkedOut",
                {
                    _ = try await r.checkedOutDocuments(
                        repositoryId: repo, folderId: nil, context: ctx, maxItems: nil, skipCount: 0, caller: bob)
                }
            ),
            (
                "createFolder",
                {
                    _ = try await r.createFolder(
                        repositoryId: repo, parentId: root, properties: props("x", type: "cmis:folder"), policies: [],
                        addACEs: [], removeACEs: [], caller: bob)
                }
            ),
            (
                "createDocument",
                {
                    _ = try await r.createDocument(
                        repositoryId: repo, parentId: root, properties: props("x"), content: content,
                        versioningState: nil, policies: [], addACEs: [], removeACEs: [], caller: bob)
                }
            ),
            (
                "fromSource",
                {
                    _ = try await r.createDocumentFromSource(
                        repositoryId: repo, sourceId: doc, parentId: root, properties: props("y"), versioningState: nil,
                        caller: bob)
                }
            ),
            (
                "createObject",
                {
                    _ = try await r.createObject(
                        repositoryId: repo, parentId: root, properties: props("i", type: "cmis:item"), policies: [],
                        addACEs: [], removeACEs: [], caller: bob)
                }
            ),
            (
                "update",
                {
                    _ = try await r.updateProperties(
                        repositoryId: repo, objectId: doc, changeToken: nil, properties: props("z"), caller: bob)
                }
            ),
            (
                "bulk",
                {
                    let result = try await r.bulkUpdateProperties(
                        repositoryId: repo, objects: [(doc, nil)], properties: props("z"), addSecondaryTypeIds: [],
                        removeSecondaryTypeIds: [], caller: bob)
                    if result.isEmpty { throw CMISError(.objectNotFound, "bulk: nothing") }
                }
            ),
            (
                "move",
                {
                    _ = try await r.moveObject(
                        repositoryId: repo, objectId: doc, targetFolderId: root, sourceFolderId: nil, caller: bob)
                }
            ),
            ("delete", { try await r.deleteObject(repositoryId: repo, objectId: doc, allVersions: true, caller: bob) }),
            (
                "deleteTree",
                {
                    _ = try await r.deleteTree(
                        repositoryId: repo, folderId: folder, allVersions: true, unfileObjects: .delete,
                        continueOnFailure: false, caller: bob)
                }
            ),
            (
                "content",
                { _ = try await r.contentStream(repositoryId: repo, objectId: doc, streamId: nil, caller: bob) }
            ),
            (
                "setContent",
                {
                    _ = try await r.setContentStream(
                        repositoryId: repo, objectId: doc, overwrite: true, changeToken: nil, content: content,
                        caller: bob)
                }
            ),
            (
                "append",
                {
                    _ = try await r.appendContentStream(
                        repositoryId: repo, objectId: doc, isLastChunk: true, changeToken: nil, content: content,
                        caller: bob)
                }
            ),
            (
                "deleteContent",
                {
                    _ = try await r.deleteContentStream(
                        repositoryId: repo, objectId: doc, changeToken: nil, caller: bob)
                }
            ),
            ("renditions", { _ = try await r.renditions(repositoryId: repo, objectId: doc, filter: nil, caller: bob) }),
            (
                "addToFolder",
                {
                    _ = try await r.addObjectToFolder(
                        repositoryId: repo, objectId: doc, folderId: root, allVersions: true, caller: bob)
                }
            ),
            (
                "removeFromFolder",
                {
                    _ = try await r.removeObjectFromFolder(
                        repositoryId: repo, objectId: doc, folderId: nil, caller: bob)
                }
            ),
            (
                "query",
                {
                    _ = try await r.query(
                        repositoryId: repo, statement: "SELECT * FROM cmis:document", searchAllVersions: false,
                        includeAllowableActions: false, includeRelationships: .none, renditionFilter: nil,
                        maxItems: nil, skipCount: 0, caller: bob)
                }
            ),
            (
                "changes",
                {
                    _ = try await r.contentChanges(
                        repositoryId: repo, changeLogToken: nil, includeProperties: false, includePolicyIds: false,
                        includeACL: false, maxItems: nil, caller: bob)
                }
            ),
            ("checkOut", { _ = try await r.checkOut(repositoryId: repo, objectId: doc, caller: bob) }),
            ("cancelCheckOut", { try await r.cancelCheckOut(repositoryId: repo, objectId: doc, caller: bob) }),
            (
                "checkIn",
                {
                    _ = try await r.checkIn(
                        repositoryId: repo, objectId: doc, major: true, properties: Properties(), content: nil,
                        comment: nil, policies: [], addACEs: [], removeACEs: [], caller: bob)
                }
            ),
            (
                "latest",
                {
                    _ = try await r.objectOfLatestVersion(
                        repositoryId: repo, objectId: doc, major: false, context: ctx, caller: bob)
                }
            ),
            ("versions", { _ = try await r.allVersions(repositoryId: repo, objectId: doc, context: ctx, caller: bob) }),
            (
                "relationships",
                {
                    _ = try await r.objectRelationships(
                        repositoryId: repo, objectId: doc, includeSubRelationshipTypes: true, direction: .either,
                        typeId: nil, context: ctx, maxItems: nil, skipCount: 0, caller: bob)
                }
            ),
            ("applyPolicy", { try await r.applyPolicy(repositoryId: repo, policyId: doc, objectId: doc, caller: bob) }),
            (
                "removePolicy",
                { try await r.removePolicy(repositoryId: repo, policyId: doc, objectId: doc, caller: bob) }
            ),
            (
                "policies",
                { _ = try await r.appliedPolicies(repositoryId: repo, objectId: doc, context: ctx, caller: bob) }
            ),
            (
                "acl",
                { _ = try await r.acl(repositoryId: repo, objectId: doc, onlyBasicPermissions: true, caller: bob) }
            ),
            (
                "applyACL",
                {
                    _ = try await r.applyACL(
                        repositoryId: repo, objectId: doc,
                        addACEs: [ACE(principalId: "bob", permissions: ["cmis:all"])], removeACEs: [], propagation: nil,
                        caller: bob)
                }
            ),
        ]
        for (name, operation) in operations {
            #expect(await cmisCode(operation) == .objectNotFound, "\(name)")
        }
        // Alice's document is untouched, and bob's ids do not reach into alice's repository either.
        #expect(try await f.text(f.aliceDocs, doc, f.alice) == "s")
        #expect(await cmisCode { _ = try await f.get(f.bobDocs, doc, f.bob) } == .objectNotFound)
        #expect(await cmisCode { _ = try await f.get(f.shared, doc, f.bob) } == .objectNotFound)
    }

    @Test func changeLogPagesThroughEveryWrite() async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        let start = try await f.repository.repositoryInfo(repositoryId: f.aliceDocs, caller: f.alice)
            .latestChangeLogToken
        let document = try await f.document("d", in: root, f.aliceDocs, f.alice, text: "x")
        _ = try await f.repository.updateProperties(
            repositoryId: f.aliceDocs, objectId: document.requiredId, changeToken: nil, properties: props("e"),
            caller: f.alice)
        _ = try await f.repository.applyACL(
            repositoryId: f.aliceDocs, objectId: document.requiredId,
            addACEs: [ACE(principalId: "carol", permissions: ["cmis:read"])], removeACEs: [], propagation: nil,
            caller: f.alice)
        try await f.repository.deleteObject(
            repositoryId: f.aliceDocs, objectId: document.requiredId, allVersions: true, caller: f.alice)
        let first = try await f.repository.contentChanges(
            repositoryId: f.aliceDocs, changeLogToken: start, includeProperties: false, includePolicyIds: false,
            includeACL: false, maxItems: 2, caller: f.alice)
        #expect(first.objects.map { $0.changeEventInfo?.changeType } == [.created, .updated])
        #expect(first.hasMoreItems && first.objects.allSatisfy { $0.id == document.id })
        let second = try await f.repository.contentChanges(
            repositoryId: f.aliceDocs, changeLogToken: first.changeLogToken, includeProperties: false,
            includePolicyIds: false, includeACL: false, maxItems: 10, caller: f.alice)
        #expect(second.objects.map { $0.changeEventInfo?.changeType } == [.security, .deleted])
        #expect(!second.hasMoreItems)
        let latest = try await f.repository.repositoryInfo(repositoryId: f.aliceDocs, caller: f.alice)
            .latestChangeLogToken
        #expect(second.changeLogToken == latest)
        let everything = try await f.repository.contentChanges(
            repositoryId: f.aliceDocs, changeLogToken: nil, includeProperties: false, includePolicyIds: false,
            includeACL: false, maxItems: nil, caller: f.alice)
        #expect(everything.objects.count == 5)  // the root folder, then the four above
        #expect(
            await cmisCode {
                _ = try await f.repository.contentChanges(
                    repositoryId: f.aliceDocs, changeLogToken: "abc", includeProperties: false, includePolicyIds: false,
                    includeACL: false, maxItems: nil, caller: f.alice)
            } == .invalidArgument)
    }
}
