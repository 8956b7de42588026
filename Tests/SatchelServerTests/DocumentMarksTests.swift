import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelRepository
import SatchelServer
import Testing

/// Nuxeo's locks and trash over the metadata store: the rules, and the upgrade from the file earlier versions kept.
@Suite("Document marks (locks and trash)")
struct DocumentMarksTests {
    @Test("marks an earlier version kept in nuxeo-documents.json move into the store once; a damaged file is refused")
    func importsTheOldFile() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("marks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("nuxeo-documents.json")
        try Data(
            """
            {"locks": [{"repository": "shared", "id": "doc-1", "owner": "alice", "created": 1700000000123}],
             "trashed": [{"repository": "shared", "id": "doc-2", "parent": "folder-1", "owner": "alice",
                          "created": 1700000000456},
                         {"repository": "mydocs-bob", "id": "doc-2", "created": 1700000000789}]}
            """.utf8
        ).write(to: file)
        let store = try SQLiteMetadataStore(path: folder.appendingPathComponent("db/metadata.sqlite").path)
        #expect(try await DocumentMarks.importFile(file, into: store) == 3)
        let marks = DocumentMarks(store: store)
        let lock = try #require(try await marks.lock(of: "doc-1", in: "shared"))
        #expect(lock.owner == "alice" && lock.created == Date(timeIntervalSince1970: 1_700_000_000.123))
        #expect(try await marks.trashMarks(of: ["doc-2"], in: "shared")["doc-2"]?.parentId == "folder-1")
        #expect(try await marks.isTrashed("doc-2", in: "mydocs-bob"))
        #expect(try await marks.lock(of: "doc-1", in: "mydocs-bob") == nil, "marks are per repository")
        // The file is kept beside, renamed and owner-only; a second start finds nothing to import.
        let imported = folder.appendingPathComponent("nuxeo-documents.json.imported")
        #expect(!FileManager.default.fileExists(atPath: file.path))
        let mode = try FileManager.default.attributesOfItem(atPath: imported.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        #expect(try await DocumentMarks.importFile(file, into: store) == 0)

        try Data("{\"locks\": [{\"repository\": \"shared\"}], \"trashed\": []}".utf8).write(to: file)
        let damaged = await #expect(throws: ServerError.self) { try await DocumentMarks.importFile(file, into: store) }
        #expect(damaged?.message.contains(file.path) == true && damaged?.message.contains("locks[0]") == true)
        #expect(FileManager.default.fileExists(atPath: file.path), "a file that cannot be read stays where it is")
        try Data("not json".utf8).write(to: file)
        await #expect(throws: ServerError.self) { try await DocumentMarks.importFile(file, into: store) }
    }

    @Test("a lock refuses others until its owner (or an override) unlocks it; the trash has no quota")
    func rules() async throws {
        let marks = DocumentMarks()
        _ = try await marks.lock("d", in: "r", by: "alice")
        let twice = await #expect(throws: CMISError.self) { try await marks.lock("d", in: "r", by: "alice") }
        #expect(twice?.code == .updateConflict && twice?.message.contains("alice") == true)
        await #expect(throws: CMISError.self) { try await marks.checkUnlocked("d", in: "r", for: "bob") }
        try await marks.checkUnlocked("d", in: "r", for: "alice")
        let refused = await #expect(throws: CMISError.self) {
            try await marks.unlock("d", in: "r", by: "bob", mayOverride: false)
        }
        #expect(refused?.code == .permissionDenied)
        #expect(try await marks.unlock("d", in: "r", by: "bob", mayOverride: true))
        #expect(try await !marks.unlock("d", in: "r", by: "alice", mayOverride: false), "nothing left to unlock")

        // A trashed document moved elsewhere is recorded under its new folder.
        try await marks.trash("moving", parentID: "f1", in: "r", by: "bob")
        try await marks.moved("moving", to: "f2", in: "r")
        #expect(try await marks.trashMarks(of: ["moving"], in: "r")["moving"]?.parentId == "f2")
        try await marks.forget(["moving"], in: "r")
        #expect(try await !marks.isTrashed("moving", in: "r"))

        // Earlier versions stopped a user at 1,000 trashed documents (a search named each); a mark is one row now.
        for index in 0..<1_500 { try await marks.trash("t\(index)", parentID: nil, in: "r", by: "bob") }
        #expect(try await marks.isTrashed("t1499", in: "r"))
        #expect(try await marks.untrash("t0", in: "r"))
        #expect(try await !marks.isTrashed("t0", in: "r"))
    }
}
