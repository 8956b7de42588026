import Foundation
import SatchelCMISCore
import Testing

@testable import SatchelRepository

@Suite("Engine: content and versioning")
struct ContentAndVersioningTests {
    @Test func setAppendAndDeleteContent() async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        let document = try await f.document("d", in: root, f.aliceDocs, f.alice)
        #expect(document.contentStreamLength == nil)
        #expect(
            await cmisCode {
                _ = try await f.repository.contentStream(
                    repositoryId: f.aliceDocs, objectId: document.requiredId, streamId: nil, caller: f.alice)
            } == .constraint)
        let set = try await f.repository.setContentStream(
            repositoryId: f.aliceDocs, objectId: document.requiredId, overwrite: false, changeToken: nil,
            content: try await f.content("one"), caller: f.alice)
        #expect(set.contentStreamLength == 3 && set.contentStreamFileName == "file.txt")
        #expect(
            await cmisCode {
                _ = try await f.repository.setContentStream(
                    repositoryId: f.aliceDocs, objectId: document.requiredId, overwrite: false, changeToken: nil,
                    content: try await f.content("two"), caller: f.alice)
            } == .contentAlreadyExists)
        #expect(
            await cmisCode {
                _ = try await f.repository.setContentStream(
                    repositoryId: f.aliceDocs, objectId: document.requiredId, overwrite: true, changeToken: "1",
                    content: try await f.content("two"), caller: f.alice)
            } == .updateConflict)
        let appended = try await f.repository.appendContentStream(
            repositoryId: f.aliceDocs, objectId: document.requiredId, isLastChunk: true, changeToken: nil,
            content: try await f.content(" two"), caller: f.alice)
        #expect(appended.contentStreamLength == 7)
        #expect(try await f.text(f.aliceDocs, document.requiredId, f.alice) == "one two")
        let output = try await f.repository.contentStream(
            repositoryId: f.aliceDocs, objectId: document.requiredId, streamId: nil, caller: f.alice)
        #expect(
            output.hash?.count == 64 && output.entityTag == output.hash && output.mimeType == "text/plain"
                && output.length == 7)
        let deleted = try await f.repository.deleteContentStream(
            repositoryId: f.aliceDocs, objectId: document.requiredId, changeToken: nil, caller: f.alice)
        #expect(deleted.contentStreamLength == nil)
        // Content stored in another blob store is not this repository's.
        let elsewhere = try BlobStore(
            directory: FileManager.default.temporaryDirectory.appendingPathComponent("satchel-other-\(UUID())"))
        let fake = try ContentInput(
            blob: try await elsewhere.put(Data("abc".utf8)), mimeType: "text/plain", fileName: nil)
        #expect(
            await cmisCode {
                _ = try await f.repository.setContentStream(
                    repositoryId: f.aliceDocs, objectId: document.requiredId, overwrite: true, changeToken: nil,
                    content: fake, caller: f.alice)
            } == .storage)
        let folder = try await f.folder("f", in: root, f.aliceDocs, f.alice)
        #expect(
            await cmisCode {
                _ = try await f.repository.setContentStream(
                    repositoryId: f.aliceDocs, objectId: folder.requiredId, overwrite: true, changeToken: nil,
                    content: try await f.content("x"), caller: f.alice)
            } == .constraint)
    }

    @Test func documentFromSourceSharesContent() async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        let source = try await f.document("orig", in: root, f.aliceDocs, f.alice, text: "copy me")
        let copy = try await f.repository.createDocumentFromSource(
            repositoryId: f.aliceDocs, sourceId: source.requiredId, parentId: root, properties: props("copy"),
            versioningState: nil, caller: f.alice)
        #expect(copy.id != source.id && copy.name == "copy" && copy.versionSeriesId == copy.id)
        #expect(try await f.text(f.aliceDocs, copy.requiredId, f.alice) == "copy me")
        #expect(
            await cmisCode {
                _ = try await f.repository.createDocumentFromSource(
                    repositoryId: f.aliceDocs, sourceId: source.requiredId, parentId: root,
                    properties: Properties(), versioningState: nil, caller: f.alice)
            } == .nameConstraintViolation)
    }

    @Test func checkOutCheckInMakesVersions() async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        let v1 = try await f.document("doc", in: root, f.aliceDocs, f.alice, text: "v1")
        let pwc = try await f.repository.checkOut(repositoryId: f.aliceDocs, objectId: v1.requiredId, caller: f.alice)
        #expect(pwc.properties["cmis:isPrivateWorkingCopy"]?.boolValue == true)
        #expect(pwc.properties["cmis:versionSeriesCheckedOutId"]?.stringValue == pwc.id)
        #expect(pwc.properties["cmis:versionSeriesCheckedOutBy"]?.stringValue == "alice")
        let v1Now = try await f.get(f.aliceDocs, v1.requiredId, f.alice)
        #expect(v1Now.isVersionSeriesCheckedOut == true)
        #expect(v1Now.properties["cmis:versionSeriesCheckedOutId"]?.stringValue == pwc.id)
        #expect(
            await cmisCode {
                _ = try await f.repository.checkOut(repositoryId: f.aliceDocs, objectId: v1.requiredId, caller: f.alice)
            } == .versioning)
        let checkedOut = try await f.repository.checkedOutDocuments(
            repositoryId: f.aliceDocs, folderId: root, context: .init(), maxItems: nil, skipCount: 0, caller: f.alice)
        #expect(checkedOut.objects.map(\.id) == [pwc.id])
        // Children still show the checked-in version only.
        let children = try await f.repository.children(
            repositoryId: f.aliceDocs, folderId: root, context: .init(), maxItems: nil, skipCount: 0, caller: f.alice)
        #expect(children.objects.map(\.object.id) == [v1.id])

        let v11 = try await f.repository.checkIn(
            repositoryId: f.aliceDocs, objectId: pwc.requiredId, major: false,
            properties: Properties([CMISProperty(id: "cmis:description", type: .string, values: [.string("edited")])]),
            content: try await f.content("v1.1"), comment: "small fix", policies: [], addACEs: [], removeACEs: [],
            caller: f.alice)
        #expect(v11.versionLabel == "1.1" && v11.isLatestVersion == true && v11.isVersionSeriesCheckedOut == false)
        #expect(v11.properties["cmis:checkinComment"]?.stringValue == "small fix")
        #expect(v11.properties["cmis:isPrivateWorkingCopy"]?.boolValue == false)
        #expect(v11.objectDescription == "edited" && v11.versionSeriesId == v1.versionSeriesId)
        #expect(try await f.text(f.aliceDocs, v11.requiredId, f.alice) == "v1.1")
        let old = try await f.get(f.aliceDocs, v1.requiredId, f.alice)
        #expect(old.isLatestVersion == false && old.isVersionSeriesCheckedOut == false)
        #expect(old.properties["cmis:isImmutable"]?.boolValue == true)
        #expect(
            await cmisCode {
                _ = try await f.repository.updateProperties(
                    repositoryId: f.aliceDocs, objectId: v1.requiredId, changeToken: nil,
                    properties: Properties([CMISProperty(id: "cmis:description", type: .string, values: [.string("x")])]
                    ),
                    caller: f.alice)
            } == .versioning)
        let byPath = try await f.repository.object(
            repositoryId: f.aliceDocs, path: "/doc", context: .init(), caller: f.alice)
        #expect(byPath.id == v11.id)

        let pwc2 = try await f.repository.checkOut(repositoryId: f.aliceDocs, objectId: v11.requiredId, caller: f.alice)
        let v2 = try await f.repository.checkIn(
            repositoryId: f.aliceDocs, objectId: pwc2.requiredId, major: true, properties: Properties(), content: nil,
            comment: nil, policies: [], addACEs: [], removeACEs: [], caller: f.alice)
        #expect(v2.versionLabel == "2.0" && v2.properties["cmis:isLatestMajorVersion"]?.boolValue == true)
        #expect(try await f.text(f.aliceDocs, v2.requiredId, f.alice) == "v1.1")
        let versions = try await f.repository.allVersions(
            repositoryId: f.aliceDocs, objectId: v1.requiredId, context: .init(), caller: f.alice)
        #expect(versions.map(\.versionLabel) == ["2.0", "1.1", "1.0"])
        let latest = try await f.repository.objectOfLatestVersion(
            repositoryId: f.aliceDocs, objectId: v1.requiredId, major: false, context: .init(), caller: f.alice)
        #expect(latest.id == v2.id)
        let latestMajor = try await f.repository.objectOfLatestVersion(
            repositoryId: f.aliceDocs, objectId: v11.requiredId, major: true, context: .init(), caller: f.alice)
        #expect(latestMajor.id == v2.id)
        #expect(
            await cmisCode {
                _ = try await f.repository.checkIn(
                    repositoryId: f.aliceDocs, objectId: v2.requiredId, major: true, properties: Properties(),
                    content: nil, comment: nil, policies: [], addACEs: [], removeACEs: [], caller: f.alice)
            } == .versioning)

        // Deleting the latest version promotes the previous one into the folder.
        try await f.repository.deleteObject(
            repositoryId: f.aliceDocs, objectId: v2.requiredId, allVersions: false, caller: f.alice)
        let promoted = try await f.get(f.aliceDocs, v11.requiredId, f.alice)
        #expect(promoted.isLatestVersion == true)
        let afterDelete = try await f.repository.children(
            repositoryId: f.aliceDocs, folderId: root, context: .init(), maxItems: nil, skipCount: 0, caller: f.alice)
        #expect(afterDelete.objects.map(\.object.id) == [v11.id])
    }

    @Test func cancelCheckOutAndCheckedOutCreation() async throws {
        let f = try await EngineFixture()
        let root = try await f.root(f.aliceDocs, f.alice)
        let document = try await f.document("doc", in: root, f.aliceDocs, f.alice, text: "x")
        let pwc = try await f.repository.checkOut(
            repositoryId: f.aliceDocs, objectId: document.requiredId, caller: f.alice)
        try await f.repository.cancelCheckOut(repositoryId: f.aliceDocs, objectId: pwc.requiredId, caller: f.alice)
        #expect(await cmisCode { _ = try await f.get(f.aliceDocs, pwc.requiredId, f.alice) } == .objectNotFound)
        #expect(try await f.get(f.aliceDocs, document.requiredId, f.alice).isVersionSeriesCheckedOut == false)
        #expect(
            await cmisCode {
                try await f.repository.cancelCheckOut(
                    repositoryId: f.aliceDocs, objectId: document.requiredId, caller: f.alice)
            } == .versioning)

        let draft = try await f.document(
            "draft", in: root, f.aliceDocs, f.alice, text: "d", versioningState: .checkedout)
        #expect(draft.properties["cmis:isPrivateWorkingCopy"]?.boolValue == true)
        let first = try await f.repository.checkIn(
            repositoryId: f.aliceDocs, objectId: draft.requiredId, major: true, properties: Properties(), content: nil,
            comment: "first", policies: [], addACEs: [], removeACEs: [], caller: f.alice)
        #expect(first.versionLabel == "1.0" && first.isLatestVersion == true && first.parentId == nil)
        let parents = try await f.repository.objectParents(
            repositoryId: f.aliceDocs, objectId: first.requiredId, context: .init(), caller: f.alice)
        #expect(parents.map(\.object.id) == [root])

        let minor = try await f.document("minor", in: root, f.aliceDocs, f.alice, versioningState: .minor)
        #expect(minor.versionLabel == "0.1" && minor.properties["cmis:isMajorVersion"]?.boolValue == false)
        let discarded = try await f.document("gone", in: root, f.aliceDocs, f.alice, versioningState: .checkedout)
        try await f.repository.cancelCheckOut(
            repositoryId: f.aliceDocs, objectId: discarded.requiredId, caller: f.alice)
        #expect(await cmisCode { _ = try await f.get(f.aliceDocs, discarded.requiredId, f.alice) } == .objectNotFound)
        let folder = try await f.folder("folder", in: root, f.aliceDocs, f.alice)
        #expect(
            await cmisCode {
                _ = try await f.repository.checkOut(
                    repositoryId: f.aliceDocs, objectId: folder.requiredId, caller: f.alice)
            } == .constraint)
    }
}
