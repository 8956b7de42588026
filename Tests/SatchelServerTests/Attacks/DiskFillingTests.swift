import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP
import SatchelServer
import SatchelTestSupport
import Testing
import SatchelJSON

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

extension Attacks {
    /// Filling the server's disk: refused uploads once left their whole content behind, deleted or replaced content
    /// stayed until the next start, and every append kept a full new copy. Each case counts the bytes in the blob
    /// folder afterwards.
    @Suite("Filling the disk", .serialized)
    struct DiskFilling {
        static let megabyte = Data((0..<(1 << 20)).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })

        /// Bytes in the blob folder, each file counted once however many names it has.
        static func blobBytes(_ harness: ServerHarness) -> Int64 {
            var seen: Set<UInt64> = []
            var total: Int64 = 0
            let root = harness.dataDirectory.appendingPathComponent("blobs")
            let enumerator = FileManager.default.enumerator(atPath: root.path)
            while let relative = enumerator?.nextObject() as? String {
                var info = stat()
                guard stat(root.appendingPathComponent(relative).path, &info) == 0,
                    info.st_mode & S_IFMT == S_IFREG, seen.insert(UInt64(info.st_ino)).inserted
                else { continue }
                total += Int64(info.st_size)
            }
            return total
        }

        /// Waits (up to five seconds) for the blob folder to hold `expected` bytes, and returns what it holds.
        static func settled(_ harness: ServerHarness, at expected: Int64) async throws -> Int64 {
            let deadline = ContinuousClock.now + .seconds(5)
            while blobBytes(harness) != expected && ContinuousClock.now < deadline {
                try await Task.sleep(for: .milliseconds(20))
            }
            return blobBytes(harness)
        }

        /// A multipart createDocument; `fieldsAfterContent` puts the form fields after the file part.
        static func upload(
            _ harness: ServerHarness, _ path: String, name: String, content: Data = megabyte, user: String = "alice",
            headers: [(String, String)] = [], fieldsAfterContent: Bool = false
        ) async throws -> HTTPClient.Response {
            var form = MultipartFormData()
            let fields = [
                ("cmisaction", "createDocument"), ("propertyId[0]", "cmis:name"), ("propertyValue[0]", name),
                ("propertyId[1]", "cmis:objectTypeId"), ("propertyValue[1]", "cmis:document"),
            ]
            if !fieldsAfterContent { for (field, value) in fields { form.addField(field, value) } }
            try form.addData("content", data: content, filename: name, contentType: "application/octet-stream")
            if fieldsAfterContent { for (field, value) in fields { form.addField(field, value) } }
            return try await harness.send(.post, path, user: user, headers: headers, body: .multipart(form))
        }

        @Test func refusedUploadsStoreNothing() async throws {
            let harness = try await ServerHarness.start(sqlite: true)
            try await withCleanup { () async throws in
                #expect(Self.blobBytes(harness) == 0)

                // Refused before a byte of content is stored: no token for MyDocuments, no such repository, no such
                // folder, no write permission, a name already taken.
                let noToken = try await Self.upload(harness, "/mcm/b/json/mydocs-alice/root", name: "a.bin")
                #expect(noToken.status == 403 && exception(noToken) == "permissionDenied")
                #expect(Self.blobBytes(harness) == 0)
                let noRepository = try await Self.upload(harness, "/cmis/browser/nowhere/root", name: "a.bin")
                #expect(noRepository.status == 404 && exception(noRepository) == "objectNotFound")
                #expect(Self.blobBytes(harness) == 0)
                let noFolder = try await Self.upload(
                    harness, "/cmis/browser/shared/root?objectId=missing", name: "a.bin")
                #expect(noFolder.status == 404 && exception(noFolder) == "objectNotFound")
                #expect(Self.blobBytes(harness) == 0)

                let first = try await Self.upload(harness, "/cmis/browser/shared/root", name: "a.bin")
                #expect(first.status == 201)
                #expect(try await Self.settled(harness, at: 1 << 20) == 1 << 20)
                let taken = try await Self.upload(
                    harness, "/cmis/browser/shared/root", name: "a.bin", content: Self.megabyte + Data([1]))
                #expect(taken.status == 409 && exception(taken) == "nameConstraintViolation")
                #expect(Self.blobBytes(harness) == 1 << 20)

                let admin = try await harness.session("admin", binding: .browser)
                _ = try await admin.applyACL(
                    to: admin.repositoryInfo.rootFolderId,
                    adding: [ACE(principalId: "alice", permissions: ["cmis:write"])],
                    removing: [ACE(principalId: "cmis:anyone", permissions: ["cmis:write"])])
                let denied = try await Self.upload(
                    harness, "/cmis/browser/shared/root", name: "b.bin", content: Self.megabyte + Data([2]),
                    user: "bob")
                #expect(denied.status == 403 && exception(denied) == "permissionDenied")
                #expect(Self.blobBytes(harness) == 1 << 20)

                // The fields come after the content: it is stored, refused, then removed.
                let late = try await Self.upload(
                    harness, "/cmis/browser/shared/root", name: "a.bin", content: Self.megabyte + Data([3]),
                    fieldsAfterContent: true)
                #expect(late.status == 409)
                #expect(try await Self.settled(harness, at: 1 << 20) == 1 << 20)

                // AtomPub: content PUT to a document bob may not change.
                let documentId = try #require(
                    try first.json()["succinctProperties"]?["cmis:objectId"]?.stringValue
                        ?? first.json()["properties"]?["cmis:objectId"]?["value"]?.stringValue)
                let put = try await harness.send(
                    .put, "/cmis/atom/shared/content?id=\(documentId)", user: "bob",
                    body: .data(Self.megabyte + Data([4]), contentType: "application/octet-stream"))
                #expect(put.status == 403)
                #expect(Self.blobBytes(harness) == 1 << 20)
                let files = try FileManager.default.contentsOfDirectory(
                    atPath: harness.dataDirectory.appendingPathComponent("blobs/tmp").path)
                #expect(files.isEmpty)
            } cleanup: {
                await harness.stop()
            }
        }

        @Test func deletedReplacedAndAppendedContentIsFreed() async throws {
            let harness = try await ServerHarness.start(sqlite: true)
            try await withCleanup { () async throws in
                let alice = try await harness.session("alice", binding: .browser)
                let root = alice.repositoryInfo.rootFolderId

                let document = try await alice.createDocument(
                    named: "big.bin", in: root, content: .data(Self.megabyte, filename: "big.bin"))
                let id = try #require(document.id)
                #expect(try await Self.settled(harness, at: 1 << 20) == 1 << 20)
                // Replaced: only the new content stays.
                let replacement = Data(Self.megabyte.reversed())
                _ = try await alice.setContent(of: id, to: .data(replacement, filename: "big.bin"))
                #expect(try await Self.settled(harness, at: 1 << 20) == 1 << 20)
                #expect(try await alice.content(of: id) == replacement)
                // Deleted: nothing stays.
                try await alice.delete(id)
                #expect(try await Self.settled(harness, at: 0) == 0)

                // Ten appends of 256 KiB leave 2.5 MiB, not the sum of every intermediate size.
                let chunked = try #require(try await alice.createDocument(named: "chunked.bin", in: root).id)
                var expected = Data()
                for index in 0..<10 {
                    let chunk = Data((0..<(256 << 10)).map { UInt8(truncatingIfNeeded: $0 &+ index &* 31) })
                    expected += chunk
                    _ = try await alice.appendContent(
                        to: chunked, .data(chunk, filename: "chunked.bin"), isLastChunk: index == 9)
                }
                #expect(try await Self.settled(harness, at: 10 * (256 << 10)) == 10 * (256 << 10))
                #expect(try await alice.content(of: chunked) == expected)
                let object = try await alice.object(id: chunked)
                #expect(object.contentStreamLength == Int64(expected.count))
            } cleanup: {
                await harness.stop()
            }
        }
    }
}
