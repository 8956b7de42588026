import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServer
import Testing

/// Versioning, filing, navigation, content, ACL, relationship, change log, type and delete-tree services run the
/// same scenario over the AtomPub binding and over the Browser binding against `satchel serve`: both must log the
/// same observations (names, labels, contents, error codes; never ids, which differ by run).
@Suite("AtomPub services agree with the Browser binding (live server)", .serialized)
struct AtomPubServicesTests {
    static let server = Task { try await ServerHarness.start() }

    @Test("check-out/in, move, navigation, content, ACL, relationships, changes, types, delete tree")
    func sameServices() async throws {
        let harness = try await Self.server.value
        let atom = try await AtomPubParityLiveTests.session(harness, binding: .atomPub)
        let browser = try await AtomPubParityLiveTests.session(harness, binding: .browser)
        let home = try #require(atom.myDocumentsFolderId)
        let overAtom = try await ServicesScenario(session: atom, home: home, folderName: "services-atom").run()
        let overBrowser = try await ServicesScenario(session: browser, home: home, folderName: "services-browser").run()
        let normalizedBrowser = overBrowser.map {
            $0.replacingOccurrences(of: "services-browser", with: "services-atom")
        }
        #expect(overAtom.count == overBrowser.count)
        for (index, line) in overAtom.enumerated() where index < normalizedBrowser.count && !line.hasPrefix("~") {
            #expect(line == normalizedBrowser[index], "step \(index)")
        }
        #expect(overAtom.contains("~segments: doc.txt"))
        // A few observations that must hold whatever the bindings agree on.
        #expect(overAtom.contains("descendants: A[doc.txt,sub[]],B[]"))
        #expect(overAtom.contains("folderTree: A[sub[]],B[]"))
        #expect(overAtom.contains("parents after move: B"))
        #expect(overAtom.contains("append: abcdef"))
        #expect(overAtom.contains("delete content: nil"))
        #expect(overAtom.contains("relationships of doc: link"))
        #expect(overAtom.contains("tree deleted: objectNotFound"))
        #expect(overAtom.contains("bulk update: 2 results, 2 tokens, doc named renamed"))
        #expect(overAtom.contains("filing: renamed in A,renamed then renamed"))
        #expect(overAtom.contains("policies: policy then 0"))
        #expect(overAtom.contains("checkout: pwc=true listed=true checkin label=2.0 content=v2"))
        #expect(overAtom.contains("acl added: bob:cmis:read read: bob:cmis:read removed: "))
        #expect(overAtom.contains { $0.hasPrefix("checkout: pwc=true") })
        #expect(overAtom.contains { $0.hasPrefix("changes after token: ") && !$0.hasSuffix(" 0") })
    }
}

/// One run of the services scenario; `run` returns its log.
struct ServicesScenario {
    let session: CMISSession
    let home: String
    let folderName: String

    var binding: any CMISBinding { session.binding }
    var repositoryId: String { session.repositoryId }

    static func properties(_ name: String, type: String, extra: [(String, String)] = []) -> Properties {
        var properties = Properties()
        properties["cmis:name"] = CMISProperty(id: "cmis:name", type: .string, values: [.string(name)])
        properties["cmis:objectTypeId"] = CMISProperty(id: "cmis:objectTypeId", type: .id, values: [.id(type)])
        for (id, value) in extra { properties[id] = CMISProperty(id: id, type: .id, values: [.id(value)]) }
        return properties
    }

    /// The result of `body`, or the CMIS error code it threw.
    func attempt(_ body: () async throws -> String) async -> String {
        do {
            return try await body()
        } catch let error as CMISError {
            return "error \(error.code)"
        } catch {
            return "error \(error)"
        }
    }

    static func tree(_ nodes: [ContainerNode]) -> String {
        nodes.map { node in
            let name = node.object.name ?? "?"
            return node.object.properties["cmis:baseTypeId"]?.stringValue == "cmis:folder"
                ? name + "[" + tree(node.children) + "]" : name
        }.sorted().joined(separator: ",")
    }

    static func typeTree(_ nodes: [TypeDefinitionContainer]) -> String {
        nodes.map { $0.type.id + ($0.children.isEmpty ? "" : "(" + typeTree($0.children) + ")") }.sorted()
            .joined(separator: ",")
    }

    func text(_ id: String) async throws -> String {
        String(
            decoding: try await binding.contentStream(repositoryId: repositoryId, objectId: id, range: nil),
            as: UTF8.self)
    }

    func run() async throws -> [String] {
        var log: [String] = []
        let startToken = try await binding.repositoryInfo(repositoryId: repositoryId).latestChangeLogToken
        let root = try await binding.createFolder(
            repositoryId: repositoryId, parentId: home, properties: Self.properties(folderName, type: "cmis:folder"))
        let rootId = try #require(root.id)
        let a = try await binding.createFolder(
            repositoryId: repositoryId, parentId: rootId, properties: Self.properties("A", type: "cmis:folder"))
        let b = try await binding.createFolder(
            repositoryId: repositoryId, parentId: rootId, properties: Self.properties("B", type: "cmis:folder"))
        let aId = try #require(a.id)
        let bId = try #require(b.id)
        _ = try await binding.createFolder(
            repositoryId: repositoryId, parentId: aId, properties: Self.properties("sub", type: "cmis:folder"))
        let doc = try await binding.createDocument(
            repositoryId: repositoryId, parentId: aId, properties: Self.properties("doc.txt", type: "cmis:document"),
            content: .data(Data("hello".utf8), filename: "doc.txt", mimeType: "text/plain"), progress: nil)
        var docId = try #require(doc.id)

        // Navigation.
        let context = OperationContext()
        log.append(
            "descendants: "
                + Self.tree(
                    try await binding.descendants(
                        repositoryId: repositoryId, folderId: rootId, depth: nil, foldersOnly: false, context: context))
        )
        log.append(
            "folderTree: "
                + Self.tree(
                    try await binding.descendants(
                        repositoryId: repositoryId, folderId: rootId, depth: nil, foldersOnly: true, context: context)))
        log.append(
            "descendants depth 1: "
                + Self.tree(
                    try await binding.descendants(
                        repositoryId: repositoryId, folderId: rootId, depth: 1, foldersOnly: false, context: context)))
        let parents = try await binding.parents(repositoryId: repositoryId, objectId: docId, context: context)
        log.append("parents: " + parents.map { $0.object.name ?? "?" }.joined(separator: ","))
        // Both clients ask for relative path segments; only the AtomPub server sends them (binding-specific line).
        log.append("~segments: " + parents.map { $0.relativePathSegment ?? "-" }.joined(separator: ","))
        log.append(
            "folder parent: "
                + (try await binding.folderParent(repositoryId: repositoryId, folderId: aId, context: context).name
                    ?? "?"))

        // Versioning.
        log.append(
            await attempt {
                let pwc = try await binding.checkOut(repositoryId: repositoryId, objectId: docId)
                let pwcId = try #require(pwc.id)
                let checkedOut = try await binding.checkedOutDocuments(
                    repositoryId: repositoryId, folderId: nil, context: context, maxItems: 100, skipCount: 0)
                let listed = checkedOut.objects.contains { $0.id == pwcId }
                let version = try await binding.checkIn(
                    repositoryId: repositoryId, objectId: pwcId, major: true, properties: Properties(),
                    content: .data(Data("v2".utf8), filename: "doc.txt", mimeType: "text/plain"), comment: "second",
                    progress: nil)
                docId = version.id ?? docId
                return "checkout: pwc=\(pwc.properties["cmis:isPrivateWorkingCopy"]?.boolValue ?? false) "
                    + "listed=\(listed) checkin label=\(version.versionLabel ?? "-") content=\(try await text(docId))"
            })
        log.append(
            await attempt {
                let versions = try await binding.allVersions(
                    repositoryId: repositoryId, objectId: docId, context: context)
                return "versions: " + versions.map { $0.versionLabel ?? "-" }.joined(separator: ",")
            })
        log.append(
            await attempt {
                let pwc = try await binding.checkOut(repositoryId: repositoryId, objectId: docId)
                try await binding.cancelCheckOut(repositoryId: repositoryId, objectId: try #require(pwc.id))
                let versions = try await binding.allVersions(
                    repositoryId: repositoryId, objectId: docId, context: context)
                let latest = try await binding.objectOfLatestVersion(
                    repositoryId: repositoryId, objectId: docId, major: true, context: context)
                docId = latest.id ?? docId
                return "after cancel: \(versions.count) versions, latest major \(latest.versionLabel ?? "-"), "
                    + "checked out \(latest.properties["cmis:isVersionSeriesCheckedOut"]?.boolValue ?? false)"
            })

        // Move.
        let moved = try await binding.moveObject(
            repositoryId: repositoryId, objectId: docId, targetFolderId: bId, sourceFolderId: aId)
        docId = moved.id ?? docId
        log.append(
            "parents after move: "
                + (try await binding.parents(repositoryId: repositoryId, objectId: docId, context: context)).map {
                    $0.object.name ?? "?"
                }.joined(separator: ","))

        // Content.
        log.append(
            await attempt {
                let set = try await binding.setContentStream(
                    repositoryId: repositoryId, objectId: docId,
                    content: .data(Data("abc".utf8), filename: "doc.txt", mimeType: "text/plain"), overwrite: true,
                    changeToken: nil, progress: nil)
                docId = set.id ?? docId
                return "set: " + (try await text(docId)) + " length \(set.contentStreamLength ?? -1)"
            })
        log.append(
            await attempt {
                let appended = try await binding.appendContentStream(
                    repositoryId: repositoryId, objectId: docId,
                    content: .data(Data("def".utf8), filename: "doc.txt", mimeType: "text/plain"), isLastChunk: true,
                    progress: nil)
                docId = appended.id ?? docId
                return "append: " + (try await text(docId))
            })
        log.append(
            await attempt {
                let deleted = try await binding.deleteContentStream(
                    repositoryId: repositoryId, objectId: docId, changeToken: nil)
                docId = deleted.id ?? docId
                return "delete content: " + (deleted.contentStreamLength.map(String.init) ?? "nil")
            })

        // ACL.
        func principals(_ acl: ACL) -> String {
            acl.aces.filter(\.isDirect).map { $0.principalId + ":" + $0.permissions.sorted().joined(separator: "+") }
                .sorted().joined(separator: ",")
        }
        log.append(
            await attempt {
                let added = try await binding.applyACL(
                    repositoryId: repositoryId, objectId: docId,
                    add: [ACE(principalId: "bob", permissions: ["cmis:read"])], remove: [],
                    propagation: .repositoryDetermined)
                let read = try await binding.acl(
                    repositoryId: repositoryId, objectId: docId, onlyBasicPermissions: true)
                let removed = try await binding.applyACL(
                    repositoryId: repositoryId, objectId: docId, add: [],
                    remove: [ACE(principalId: "bob", permissions: ["cmis:read"])], propagation: .repositoryDetermined)
                return "acl added: \(principals(added)) read: \(principals(read)) removed: \(principals(removed))"
            })

        // Relationships.
        log.append(
            await attempt {
                _ = try await binding.createObject(
                    repositoryId: repositoryId, parentId: nil, baseType: .relationship,
                    properties: Self.properties(
                        "link", type: "cmis:relationship", extra: [("cmis:sourceId", docId), ("cmis:targetId", bId)]))
                let list = try await binding.relationships(
                    repositoryId: repositoryId, objectId: docId, direction: .either, typeId: nil,
                    includeSubRelationshipTypes: false, context: context, maxItems: 100, skipCount: 0)
                return "relationships of doc: " + list.objects.compactMap(\.name).sorted().joined(separator: ",")
            })

        // Change log.
        log.append(
            await attempt {
                let changes = try await binding.contentChanges(
                    repositoryId: repositoryId, changeLogToken: startToken, includeProperties: false, maxItems: 1000)
                let ids = Set(changes.objects.compactMap(\.id))
                return "changes after token: folder=\(ids.contains(rootId)) token=\(changes.changeLogToken != nil) "
                    + "\(changes.objects.isEmpty ? 0 : 1)"
            })

        // Types.
        let children = try await binding.typeChildren(
            repositoryId: repositoryId, typeId: nil, includePropertyDefinitions: false, maxItems: 100, skipCount: 0)
        log.append("type children: " + children.types.map(\.id).sorted().joined(separator: ","))
        let folderChildren = try await binding.typeChildren(
            repositoryId: repositoryId, typeId: "cmis:folder", includePropertyDefinitions: true, maxItems: 100,
            skipCount: 0)
        log.append("folder subtypes: " + folderChildren.types.map(\.id).sorted().joined(separator: ","))
        log.append(
            "type descendants: "
                + Self.typeTree(
                    try await binding.typeDescendants(
                        repositoryId: repositoryId, typeId: nil, depth: 2, includePropertyDefinitions: false)))

        // Bulk update, filing, policies.
        log.append(
            await attempt {
                let results = try await binding.bulkUpdate(
                    repositoryId: repositoryId, objects: [(id: docId, changeToken: nil), (id: bId, changeToken: nil)],
                    properties: {
                        var name = Properties()
                        name["cmis:name"] = CMISProperty(id: "cmis:name", type: .string, values: [.string("renamed")])
                        return name
                    }(),
                    addSecondaryTypeIds: [], removeSecondaryTypeIds: [])
                docId = results.first?.newId ?? docId
                let name = try await binding.object(repositoryId: repositoryId, id: docId, context: context).name
                return
                    "bulk update: \(results.count) results, \(results.filter { $0.changeToken != nil }.count) tokens, "
                    + "doc named \(name ?? "-")"
            })
        log.append(
            await attempt {
                let filed = try await binding.addObjectToFolder(
                    repositoryId: repositoryId, objectId: docId, folderId: aId, allVersions: true)
                let both = try await binding.parents(repositoryId: repositoryId, objectId: docId, context: context)
                _ = try await binding.removeObjectFromFolder(repositoryId: repositoryId, objectId: docId, folderId: aId)
                let after = try await binding.parents(repositoryId: repositoryId, objectId: docId, context: context)
                return "filing: \(filed.name ?? "-") in "
                    + both.compactMap(\.object.name).sorted().joined(separator: ",")
                    + " then " + after.compactMap(\.object.name).joined(separator: ",")
            })
        log.append(
            await attempt {
                let policy = try await binding.createObject(
                    repositoryId: repositoryId, parentId: aId, baseType: .policy,
                    properties: Self.properties("policy", type: "cmis:policy"))
                let policyId = try #require(policy.id)
                try await binding.applyPolicy(repositoryId: repositoryId, policyId: policyId, objectId: docId)
                let applied = try await binding.appliedPolicies(
                    repositoryId: repositoryId, objectId: docId, context: context)
                try await binding.removePolicy(repositoryId: repositoryId, policyId: policyId, objectId: docId)
                let left = try await binding.appliedPolicies(
                    repositoryId: repositoryId, objectId: docId, context: context)
                return "policies: " + applied.compactMap(\.name).joined(separator: ",") + " then \(left.count)"
            })
        log.append(
            await attempt {
                let item = try await binding.createObject(
                    repositoryId: repositoryId, parentId: bId, baseType: .item,
                    properties: Self.properties("item", type: "cmis:item"))
                return "item: \(item.name ?? "-")"
            })

        // Delete tree.
        let failed = try await binding.deleteTree(
            repositoryId: repositoryId, folderId: rootId, allVersions: true, unfileObjects: .delete,
            continueOnFailure: true)
        log.append("delete tree failed: \(failed.count)")
        log.append(
            await attempt {
                _ = try await binding.object(repositoryId: repositoryId, id: rootId, context: context)
                return "tree still there"
            }.replacingOccurrences(of: "error ", with: "tree deleted: "))
        return log
    }
}
