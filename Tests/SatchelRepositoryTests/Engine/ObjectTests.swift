import Foundation
import SatchelCMISCore
import Testing

@testable import SatchelRepository

@Suite("Engine: objects and navigation")
struct ObjectTests {
    @Test func createFolderAndDocumentThenReadByIdAndPath() async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        let folder = try await f.folder("Notes", in: root, f.aliceDocs, f.alice)
        #expect(folder.path == "/Notes" && folder.parentId == root && folder.baseType == .folder)
        #expect(folder.createdBy == "alice" && folder.changeToken == "1")
        let document = try await f.document("a.txt", in: folder.requiredId, f.aliceDocs, f.alice, text: "hello")
        #expect(document.contentStreamLength == 5 && document.contentStreamMimeType == "text/plain")
        #expect(document.versionLabel == "1.0" && document.isLatestVersion == true)
        #expect(document.properties["cmis:isMajorVersion"]?.boolValue == true)
        #expect(document.properties["cmis:isImmutable"]?.boolValue == false)
        #expect(document.properties["cmis:name"]?.queryName == "cmis:name")
        let byPath = try await f.repository.object(
            repositoryId: f.aliceDocs, path: "/Notes/a.txt", context: .init(), caller: f.alice)
        #expect(byPath.id == document.id)
        let rootByPath = try await f.repository.object(
            repositoryId: f.aliceDocs, path: "/", context: .init(), caller: f.alice)
        #expect(rootByPath.id == root && rootByPath.path == "/")
        #expect(try await f.text(f.aliceDocs, document.requiredId, f.alice) == "hello")
        for path in ["/Nope", "/Notes/a.txt/x", "relative"] {
            let code = await cmisCode {
                _ = try await f.repository.object(
                    repositoryId: f.aliceDocs, path: path, context: .init(), caller: f.alice)
            }
            #expect(code == (path == "relative" ? .invalidArgument : .objectNotFound), "\(path)")
        }
    }

    @Test func childrenOrderingPagingAndPathSegments() async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        for (index, name) in ["c", "a", "b", "e", "d"].enumerated() {
            try await f.document(name, in: root, f.aliceDocs, f.alice, text: String(repeating: "x", count: index + 1))
        }
        func names(
            _ orderBy: String?, max: Int? = nil, skip: Int = 0
        ) async throws -> (names: [String], more: Bool, total: Int64?) {
            let page = try await f.repository.children(
                repositoryId: f.aliceDocs, folderId: root, context: OperationContext(orderBy: orderBy), maxItems: max,
                skipCount: skip, caller: f.alice)
            return (page.objects.map { $0.object.name ?? "" }, page.hasMoreItems, page.numItems)
        }
        #expect(try await names(nil).names == ["a", "b", "c", "d", "e"])
        #expect(try await names("cmis:name DESC").names == ["e", "d", "c", "b", "a"])
        #expect(try await names("cmis:creationDate ASC").names == ["c", "a", "b", "e", "d"])
        #expect(try await names("cmis:contentStreamLength DESC").names == ["d", "e", "b", "a", "c"])
        let page = try await names(nil, max: 2, skip: 2)
        #expect(page.names == ["c", "d"] && page.more && page.total == 5)
        let last = try await names(nil, max: 2, skip: 4)
        #expect(last.names == ["e"] && !last.more)
        for bad in ["cmis:foo", "cmis:name SIDEWAYS", "cmis:name ASC DESC"] {
            #expect(await cmisCode { _ = try await names(bad) } == .invalidArgument, "\(bad)")
        }
        #expect(await cmisCode { _ = try await names(nil, max: -1) } == .invalidArgument)
        let segments = try await f.repository.children(
            repositoryId: f.aliceDocs, folderId: root, context: .init(), maxItems: 1, skipCount: 0, caller: f.alice)
        #expect(segments.objects.first?.pathSegment == "a")
    }

    @Test func filterSelectsPropertiesAndIgnoresUnknownNames() async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        let document = try await f.document("a", in: root, f.aliceDocs, f.alice, text: "x")
        let filtered = try await f.get(
            f.aliceDocs, document.requiredId, f.alice, OperationContext(filter: ["cmis:name"]))
        #expect(Set(filtered.properties.ids) == ["cmis:name", "cmis:objectId", "cmis:baseTypeId", "cmis:objectTypeId"])
        let star = try await f.get(f.aliceDocs, document.requiredId, f.alice, OperationContext(filter: ["*"]))
        #expect(star.properties.count > 20)
        // Clients send names of their own types: unknown names are ignored, not an error.
        let unknown = try await f.get(
            f.aliceDocs, document.requiredId, f.alice, OperationContext(filter: ["cmis:name", "my:thing"]))
        #expect(Set(unknown.properties.ids) == ["cmis:name", "cmis:objectId", "cmis:baseTypeId", "cmis:objectTypeId"])
        let onlyUnknown = try await f.get(
            f.aliceDocs, document.requiredId, f.alice, OperationContext(filter: ["my:thing"]))
        #expect(Set(onlyUnknown.properties.ids) == ["cmis:objectId", "cmis:baseTypeId", "cmis:objectTypeId"])
        let folder = try await f.get(f.aliceDocs, root, f.alice, OperationContext(filter: ["cmis:path"]))
        #expect(folder.path == "/")
    }

    @Test(arguments: [
        (CMISProperty(id: "my:unknown", type: .string, values: [.string("x")]), CMISError.Code.constraint),
        (CMISProperty(id: "cmis:description", type: .integer, values: [.integer(3)]), .invalidArgument),
        (CMISProperty(id: "cmis:description", type: .string, values: [.string("a"), .string("b")]), .invalidArgument),
        (
            CMISProperty(
                id: "cmis:description", type: .string, values: [.string(String(repeating: "x", count: 70_000))]),
            .constraint
        ),
        (
            CMISProperty(id: "cmis:secondaryObjectTypeIds", type: .id, cardinality: .multi, values: [.id("x:nope")]),
            .constraint
        ),
    ])
    func invalidPropertiesAreRejected(property: CMISProperty, expected: CMISError.Code) async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        let code = await cmisCode {
            _ = try await f.repository.createDocument(
                repositoryId: f.aliceDocs, parentId: root, properties: props("doc", [property]), content: nil,
                versioningState: nil, policies: [], addACEs: [], removeACEs: [], caller: f.alice)
        }
        #expect(code == expected)
    }

    @Test(arguments: [
        ("a/b", CMISError.Code.nameConstraintViolation), ("", .invalidArgument), ("   ", .invalidArgument),
        ("..", .nameConstraintViolation), ("bad\u{0}name", .nameConstraintViolation),
        (String(repeating: "n", count: 300), .nameConstraintViolation),
    ])
    func badNamesAreRejected(name: String, expected: CMISError.Code) async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        #expect(await cmisCode { try await f.folder(name, in: root, f.aliceDocs, f.alice) } == expected)
        let document = try await f.document("ok", in: root, f.aliceDocs, f.alice)
        let code = await cmisCode {
            _ = try await f.repository.updateProperties(
                repositoryId: f.aliceDocs, objectId: document.requiredId, changeToken: nil,
                properties: Properties([CMISProperty(id: "cmis:name", type: .string, values: [.string(name)])]),
                caller: f.alice)
        }
        #expect(code == expected)
    }

    @Test func missingNameAndUnknownTypeAreConstraints() async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        #expect(
            await cmisCode {
                _ = try await f.repository.createFolder(
                    repositoryId: f.aliceDocs, parentId: root, properties: props(nil, type: "cmis:folder"),
                    policies: [], addACEs: [], removeACEs: [], caller: f.alice)
            } == .constraint)
        #expect(
            await cmisCode {
                _ = try await f.repository.createFolder(
                    repositoryId: f.aliceDocs, parentId: root, properties: props("x", type: "cmis:document"),
                    policies: [], addACEs: [], removeACEs: [], caller: f.alice)
            } == .constraint)
        #expect(
            await cmisCode {
                _ = try await f.repository.createFolder(
                    repositoryId: f.aliceDocs, parentId: root, properties: props("x", type: "my:type"),
                    policies: [], addACEs: [], removeACEs: [], caller: f.alice)
            } == .constraint)
    }

    @Test func stringValuesAreCoercedAndReadonlyPropertiesIgnored() async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        let created = try await f.repository.createDocument(
            repositoryId: f.aliceDocs, parentId: root,
            properties: props(
                "coerced",
                [
                    CMISProperty(id: "cmis:objectId", type: .id, values: [.id("forged")]),
                    CMISProperty(id: "cmis:createdBy", type: .string, values: [.string("mallory")]),
                    CMISProperty(id: "cmis:description", type: .string, values: [.id("from an id")]),
                ]),
            content: nil, versioningState: nil, policies: [], addACEs: [], removeACEs: [], caller: f.alice)
        #expect(created.id != "forged" && created.createdBy == "alice")
        #expect(created.objectDescription == "from an id")
        #expect(CMISRepository.convert(.string("42"), to: .integer) == .integer(42))
        #expect(CMISRepository.convert(.string("4.5"), to: .decimal) == .decimal(Decimal(string: "4.5")!))
        #expect(CMISRepository.convert(.string("TRUE"), to: .boolean) == .boolean(true))
        #expect(
            CMISRepository.convert(.string("1700000000000"), to: .datetime)
                == .datetime(Date(timeIntervalSince1970: 1_700_000_000)))
        #expect(CMISRepository.convert(.string("2024-01-02T03:04:05.678Z"), to: .datetime) != nil)
        #expect(CMISRepository.convert(.string("nope"), to: .integer) == nil)
        #expect(CMISRepository.convert(.boolean(true), to: .string) == nil)
    }

    @Test func updateChecksChangeTokensAndNames() async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        let document = try await f.document("a", in: root, f.aliceDocs, f.alice)
        try await f.document("taken", in: root, f.aliceDocs, f.alice)
        let described = Properties([CMISProperty(id: "cmis:description", type: .string, values: [.string("new")])])
        let updated = try await f.repository.updateProperties(
            repositoryId: f.aliceDocs, objectId: document.requiredId, changeToken: document.changeToken,
            properties: described, caller: f.alice)
        #expect(updated.objectDescription == "new" && updated.changeToken == "2")
        #expect(updated.lastModificationDate! > document.lastModificationDate!)
        let stale = await cmisCode {
            _ = try await f.repository.updateProperties(
                repositoryId: f.aliceDocs, objectId: document.requiredId, changeToken: document.changeToken,
                properties: described, caller: f.alice)
        }
        #expect(stale == .updateConflict)
        let clash = await cmisCode {
            _ = try await f.repository.updateProperties(
                repositoryId: f.aliceDocs, objectId: document.requiredId, changeToken: nil,
                properties: Properties([CMISProperty(id: "cmis:name", type: .string, values: [.string("taken")])]),
                caller: f.alice)
        }
        #expect(clash == .nameConstraintViolation)
        #expect(
            await cmisCode { try await f.document("taken", in: root, f.aliceDocs, f.alice) } == .nameConstraintViolation
        )
        let typeChange = await cmisCode {
            _ = try await f.repository.updateProperties(
                repositoryId: f.aliceDocs, objectId: document.requiredId, changeToken: nil,
                properties: props(nil, type: "cmis:item"), caller: f.alice)
        }
        #expect(typeChange == .constraint)
        let bulk = try await f.repository.bulkUpdateProperties(
            repositoryId: f.aliceDocs, objects: [(document.requiredId, nil), ("missing", nil)], properties: described,
            addSecondaryTypeIds: [], removeSecondaryTypeIds: [], caller: f.alice)
        #expect(bulk.map(\.id) == [document.requiredId] && bulk[0].changeToken == "3")
    }

    @Test func renamingAndMovingFoldersUpdatesDescendantPaths() async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        let a = try await f.folder("a", in: root, f.aliceDocs, f.alice)
        let b = try await f.folder("b", in: a.requiredId, f.aliceDocs, f.alice)
        let c = try await f.folder("c", in: b.requiredId, f.aliceDocs, f.alice)
        #expect(try await f.get(f.aliceDocs, c.requiredId, f.alice).path == "/a/b/c")
        _ = try await f.repository.updateProperties(
            repositoryId: f.aliceDocs, objectId: a.requiredId, changeToken: nil,
            properties: Properties([CMISProperty(id: "cmis:name", type: .string, values: [.string("A")])]),
            caller: f.alice)
        #expect(try await f.get(f.aliceDocs, c.requiredId, f.alice).path == "/A/b/c")
        let moved = try await f.repository.moveObject(
            repositoryId: f.aliceDocs, objectId: b.requiredId, targetFolderId: root, sourceFolderId: a.requiredId,
            caller: f.alice)
        #expect(moved.path == "/b")
        #expect(try await f.get(f.aliceDocs, c.requiredId, f.alice).path == "/b/c")
        let cycle = await cmisCode {
            _ = try await f.repository.moveObject(
                repositoryId: f.aliceDocs, objectId: b.requiredId, targetFolderId: c.requiredId, sourceFolderId: nil,
                caller: f.alice)
        }
        #expect(cycle == .constraint)
        let wrongSource = await cmisCode {
            _ = try await f.repository.moveObject(
                repositoryId: f.aliceDocs, objectId: c.requiredId, targetFolderId: root, sourceFolderId: a.requiredId,
                caller: f.alice)
        }
        #expect(wrongSource == .invalidArgument)
        let rootMove = await cmisCode {
            _ = try await f.repository.moveObject(
                repositoryId: f.aliceDocs, objectId: root, targetFolderId: a.requiredId, sourceFolderId: nil,
                caller: f.alice)
        }
        #expect(rootMove == .constraint)
        let parent = try await f.repository.folderParent(
            repositoryId: f.aliceDocs, folderId: c.requiredId, context: .init(), caller: f.alice)
        #expect(parent.id == b.requiredId)
        #expect(
            await cmisCode {
                _ = try await f.repository.folderParent(
                    repositoryId: f.aliceDocs, folderId: root, context: .init(), caller: f.alice)
            } == .invalidArgument)
    }

    @Test func deepTreeOf200Levels() async throws {
        let f = try await EngineFixture()
        var parent = try await f.root(f.aliceDocs, f.alice)
        var expected = ""
        for level in 0..<200 {
            parent = try await f.folder("l\(level)", in: parent, f.aliceDocs, f.alice).requiredId
            expected += "/l\(level)"
        }
        let deepest = try await f.get(f.aliceDocs, parent, f.alice)
        #expect(deepest.path == expected)
        let byPath = try await f.repository.object(
            repositoryId: f.aliceDocs, path: expected, context: .init(), caller: f.alice)
        #expect(byPath.id == parent)
        let root = try await f.root(f.aliceDocs, f.alice)
        let tree = try await f.repository.descendants(
            repositoryId: f.aliceDocs, folderId: root, depth: -1, foldersOnly: true, context: .init(), caller: f.alice)
        var depth = 0
        var nodes = tree
        while let first = nodes.first {
            depth += 1
            nodes = first.children
        }
        #expect(depth == 200)
    }

    @Test func descendantsDepthAndFoldersOnly() async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        let a = try await f.folder("a", in: root, f.aliceDocs, f.alice)
        try await f.document("d1", in: a.requiredId, f.aliceDocs, f.alice)
        let b = try await f.folder("b", in: a.requiredId, f.aliceDocs, f.alice)
        try await f.document("d2", in: b.requiredId, f.aliceDocs, f.alice)
        let one = try await f.repository.descendants(
            repositoryId: f.aliceDocs, folderId: root, depth: 1, foldersOnly: false, context: .init(), caller: f.alice)
        #expect(one.map { $0.object.name } == ["a"] && one[0].children.isEmpty)
        let all = try await f.repository.descendants(
            repositoryId: f.aliceDocs, folderId: root, depth: -1, foldersOnly: false, context: .init(), caller: f.alice)
        #expect(all[0].children.map { $0.object.name } == ["b", "d1"])
        #expect(all[0].children[0].children.map { $0.object.name } == ["d2"])
        let folders = try await f.repository.descendants(
            repositoryId: f.aliceDocs, folderId: root, depth: nil, foldersOnly: true, context: .init(), caller: f.alice)
        #expect(folders[0].children.map { $0.object.name } == ["b"])
        #expect(
            await cmisCode {
                _ = try await f.repository.descendants(
                    repositoryId: f.aliceDocs, folderId: root, depth: 0, foldersOnly: false, context: .init(),
                    caller: f.alice)
            } == .invalidArgument)
    }

    @Test func deleteRules() async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        let folder = try await f.folder("f", in: root, f.aliceDocs, f.alice)
        let document = try await f.document("d", in: folder.requiredId, f.aliceDocs, f.alice, text: "x")
        #expect(
            await cmisCode {
                try await f.repository.deleteObject(
                    repositoryId: f.aliceDocs, objectId: folder.requiredId, allVersions: true, caller: f.alice)
            } == .constraint)
        #expect(
            await cmisCode {
                try await f.repository.deleteObject(
                    repositoryId: f.aliceDocs, objectId: root, allVersions: true, caller: f.alice)
            } == .constraint)
        try await f.repository.deleteObject(
            repositoryId: f.aliceDocs, objectId: document.requiredId, allVersions: true, caller: f.alice)
        #expect(await cmisCode { _ = try await f.get(f.aliceDocs, document.requiredId, f.alice) } == .objectNotFound)
        try await f.repository.deleteObject(
            repositoryId: f.aliceDocs, objectId: folder.requiredId, allVersions: true, caller: f.alice)
        #expect(await cmisCode { _ = try await f.get(f.aliceDocs, folder.requiredId, f.alice) } == .objectNotFound)
    }

    @Test(arguments: UnfileObjects.allCases)
    func deleteTreeHonoursUnfileObjects(mode: UnfileObjects) async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        let tree = try await f.folder("tree", in: root, f.aliceDocs, f.alice)
        let sub = try await f.folder("sub", in: tree.requiredId, f.aliceDocs, f.alice)
        let single = try await f.document("single", in: sub.requiredId, f.aliceDocs, f.alice)
        let multi = try await f.document("multi", in: sub.requiredId, f.aliceDocs, f.alice)
        _ = try await f.repository.addObjectToFolder(
            repositoryId: f.aliceDocs, objectId: multi.requiredId, folderId: root, allVersions: true, caller: f.alice)
        let failed = try await f.repository.deleteTree(
            repositoryId: f.aliceDocs, folderId: tree.requiredId, allVersions: true, unfileObjects: mode,
            continueOnFailure: false, caller: f.alice)
        #expect(failed.isEmpty)
        #expect(await cmisCode { _ = try await f.get(f.aliceDocs, sub.requiredId, f.alice) } == .objectNotFound)
        let singleGone =
            await cmisCode { _ = try await f.get(f.aliceDocs, single.requiredId, f.alice) } == .objectNotFound
        let multiGone =
            await cmisCode { _ = try await f.get(f.aliceDocs, multi.requiredId, f.alice) } == .objectNotFound
        switch mode {
        case .delete: #expect(singleGone && multiGone)
        case .deletesinglefiled: #expect(singleGone && !multiGone)
        case .unfile: #expect(!singleGone && !multiGone)
        }
        if !multiGone {
            let parents = try await f.repository.objectParents(
                repositoryId: f.aliceDocs, objectId: multi.requiredId, context: .init(), caller: f.alice)
            #expect(parents.map { $0.object.id } == [root])
        }
    }

    @Test func multiFilingAndParents() async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        let a = try await f.folder("a", in: root, f.aliceDocs, f.alice)
        let b = try await f.folder("b", in: root, f.aliceDocs, f.alice)
        let document = try await f.document("d", in: a.requiredId, f.aliceDocs, f.alice)
        _ = try await f.repository.addObjectToFolder(
            repositoryId: f.aliceDocs, objectId: document.requiredId, folderId: b.requiredId, allVersions: true,
            caller: f.alice)
        var parents = try await f.repository.objectParents(
            repositoryId: f.aliceDocs, objectId: document.requiredId, context: .init(), caller: f.alice)
        #expect(Set(parents.map { $0.object.id ?? "" }) == [a.requiredId, b.requiredId])
        #expect(parents.allSatisfy { $0.relativePathSegment == "d" })
        let ambiguous = await cmisCode {
            _ = try await f.repository.moveObject(
                repositoryId: f.aliceDocs, objectId: document.requiredId, targetFolderId: root, sourceFolderId: nil,
                caller: f.alice)
        }
        #expect(ambiguous == .invalidArgument)
        _ = try await f.repository.removeObjectFromFolder(
            repositoryId: f.aliceDocs, objectId: document.requiredId, folderId: a.requiredId, caller: f.alice)
        parents = try await f.repository.objectParents(
            repositoryId: f.aliceDocs, objectId: document.requiredId, context: .init(), caller: f.alice)
        #expect(parents.map { $0.object.id } == [b.requiredId])
        _ = try await f.repository.removeObjectFromFolder(
            repositoryId: f.aliceDocs, objectId: document.requiredId, folderId: nil, caller: f.alice)
        parents = try await f.repository.objectParents(
            repositoryId: f.aliceDocs, objectId: document.requiredId, context: .init(), caller: f.alice)
        #expect(parents.isEmpty)
        #expect(try await f.get(f.aliceDocs, document.requiredId, f.alice).name == "d")
        #expect(
            await cmisCode {
                _ = try await f.repository.objectParents(
                    repositoryId: f.aliceDocs, objectId: a.requiredId, context: .init(), caller: f.alice)
            } == .invalidArgument)
        let unfiled = try await f.document("loose", in: nil, f.aliceDocs, f.alice)
        #expect(unfiled.parentId == nil)
    }

    @Test func itemsPoliciesAndRelationships() async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        let item = try await f.repository.createObject(
            repositoryId: f.aliceDocs, parentId: root, properties: props("item", type: "cmis:item"), policies: [],
            addACEs: [], removeACEs: [], caller: f.alice)
        #expect(item.baseType == .item)
        let policy = try await f.repository.createObject(
            repositoryId: f.aliceDocs, parentId: nil,
            properties: props(
                "policy", type: "cmis:policy",
                [CMISProperty(id: "cmis:policyText", type: .string, values: [.string("keep 7 years")])]),
            policies: [], addACEs: [], removeACEs: [], caller: f.alice)
        #expect(policy.properties["cmis:policyText"]?.stringValue == "keep 7 years")
        let document = try await f.document("d", in: root, f.aliceDocs, f.alice)
        try await f.repository.applyPolicy(
            repositoryId: f.aliceDocs, policyId: policy.requiredId, objectId: document.requiredId, caller: f.alice)
        let applied = try await f.repository.appliedPolicies(
            repositoryId: f.aliceDocs, objectId: document.requiredId, context: .init(), caller: f.alice)
        #expect(applied.map(\.id) == [policy.id])
        let withIds = try await f.get(
            f.aliceDocs, document.requiredId, f.alice, OperationContext(includePolicyIds: true))
        #expect(withIds.policyIds == [policy.requiredId])
        #expect(
            await cmisCode {
                try await f.repository.deleteObject(
                    repositoryId: f.aliceDocs, objectId: policy.requiredId, allVersions: true, caller: f.alice)
            } == .constraint)
        try await f.repository.removePolicy(
            repositoryId: f.aliceDocs, policyId: policy.requiredId, objectId: document.requiredId, caller: f.alice)
        #expect(
            await cmisCode {
                try await f.repository.applyPolicy(
                    repositoryId: f.aliceDocs, policyId: item.requiredId, objectId: document.requiredId, caller: f.alice
                )
            } == .invalidArgument)

        let relationship = try await f.repository.createObject(
            repositoryId: f.aliceDocs, parentId: nil,
            properties: props(
                "link", type: "cmis:relationship",
                [
                    CMISProperty(id: "cmis:sourceId", type: .id, values: [.id(document.requiredId)]),
                    CMISProperty(id: "cmis:targetId", type: .id, values: [.id(item.requiredId)]),
                ]),
            policies: [], addACEs: [], removeACEs: [], caller: f.alice)
        #expect(relationship.sourceId == document.id && relationship.targetId == item.id)
        func related(_ id: String, _ direction: RelationshipDirection) async throws -> [String?] {
            try await f.repository.objectRelationships(
                repositoryId: f.aliceDocs, objectId: id, includeSubRelationshipTypes: true, direction: direction,
                typeId: nil, context: .init(), maxItems: nil, skipCount: 0, caller: f.alice
            ).objects.map(\.id)
        }
        #expect(try await related(document.requiredId, .source) == [relationship.id])
        #expect(try await related(document.requiredId, .target).isEmpty)
        #expect(try await related(item.requiredId, .either) == [relationship.id])
        let included = try await f.get(
            f.aliceDocs, document.requiredId, f.alice, OperationContext(includeRelationships: .both))
        #expect(included.relationships.map(\.id) == [relationship.id])
        let missingEnd = await cmisCode {
            _ = try await f.repository.createObject(
                repositoryId: f.aliceDocs, parentId: nil,
                properties: props(
                    "x", type: "cmis:relationship",
                    [CMISProperty(id: "cmis:sourceId", type: .id, values: [.id(document.requiredId)])]),
                policies: [], addACEs: [], removeACEs: [], caller: f.alice)
        }
        #expect(missingEnd == .constraint)
        try await f.repository.deleteObject(
            repositoryId: f.aliceDocs, objectId: document.requiredId, allVersions: true, caller: f.alice)
        #expect(
            await cmisCode { _ = try await f.get(f.aliceDocs, relationship.requiredId, f.alice) } == .objectNotFound)
    }

    @Test func allowableActionsFollowState() async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        let context = OperationContext(includeAllowableActions: true, includeACL: true)
        let rootObject = try await f.get(f.aliceDocs, root, f.alice, context)
        let rootActions = try #require(rootObject.allowableActions)
        #expect(rootActions.canGetChildren && rootActions.canCreateDocument && !rootActions.canDeleteObject)
        #expect(!rootActions.contains(.getFolderParent))
        #expect(rootObject.acl?.aces.contains { $0.principalId == "alice" && $0.permissions == ["cmis:all"] } == true)
        let document = try await f.document("d", in: root, f.aliceDocs, f.alice, text: "x")
        let actions = try #require(try await f.get(f.aliceDocs, document.requiredId, f.alice, context).allowableActions)
        #expect(actions.canCheckOut && actions.canGetContentStream && actions.canDeleteObject && !actions.canCheckIn)
        #expect(actions.contains(.deleteContentStream) && actions.canApplyACL)
        let pwc = try await f.repository.checkOut(
            repositoryId: f.aliceDocs, objectId: document.requiredId, caller: f.alice)
        let pwcActions = try #require(try await f.get(f.aliceDocs, pwc.requiredId, f.alice, context).allowableActions)
        #expect(pwcActions.canCheckIn && pwcActions.contains(.cancelCheckOut) && !pwcActions.canCheckOut)
        let direct = try await f.repository.allowableActions(
            repositoryId: f.aliceDocs, objectId: document.requiredId, caller: f.alice)
        #expect(!direct.canCheckOut)
    }
}

@Suite("Placements: a page's paths, parents and content hashes in one call")
struct PlacementTests {
    @Test(
        "documents get their first readable parent's path, folders their own; what the caller cannot read is left out")
    func placements() async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.shared, f.admin)
        let open = try await f.folder("open", in: root, f.shared, f.alice)
        let deep = try await f.folder("deep", in: open.requiredId, f.shared, f.alice)
        let document = try await f.document("a.txt", in: deep.requiredId, f.shared, f.alice, text: "alpha")
        let empty = try await f.document("empty.txt", in: root, f.shared, f.alice)
        // The administrator closes the root to everyone but alice: bob reads what alice opens to him only.
        _ = try await f.repository.applyACL(
            repositoryId: f.shared, objectId: root, addACEs: [ACE(principalId: "alice", permissions: ["cmis:all"])],
            removeACEs: [ACE(principalId: "cmis:anyone", permissions: ["cmis:write"])], propagation: nil,
            caller: f.admin)
        _ = try await f.repository.applyACL(
            repositoryId: f.shared, objectId: document.requiredId,
            addACEs: [ACE(principalId: "bob", permissions: ["cmis:read"])], removeACEs: [], propagation: nil,
            caller: f.alice)
        let ids = [document.requiredId, deep.requiredId, empty.requiredId, "no-such-object"]
        let mine = try await f.repository.placements(repositoryId: f.shared, objectIds: ids, caller: f.alice)
        let hash = try #require(
            try await f.repository.contentStream(
                repositoryId: f.shared, objectId: document.requiredId, streamId: nil, caller: f.alice
            ).hash)
        #expect(
            mine[document.requiredId]
                == ObjectPlacement(path: "/open/deep/a.txt", parentId: deep.requiredId, contentHash: hash))
        #expect(mine[deep.requiredId] == ObjectPlacement(path: "/open/deep", parentId: open.requiredId))
        #expect(mine[empty.requiredId] == ObjectPlacement(path: "/empty.txt", parentId: root))
        #expect(mine["no-such-object"] == nil)
        // bob may read the document but not its folder: it is placed nowhere, and nothing else is his to see.
        let his = try await f.repository.placements(repositoryId: f.shared, objectIds: ids, caller: f.bob)
        #expect(Array(his.keys) == [document.requiredId])
        #expect(his[document.requiredId] == ObjectPlacement(contentHash: hash))
    }
}
