import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelServer
import Testing

/// Nuxeo's locks and trash as kept beside the repository: they outlive a restart, a damaged file is refused with its
/// name, and the limits hold.
@Suite("Document marks (locks and trash)")
struct DocumentMarksTests {
    @Test("marks are written owner-only and read back; a damaged file is refused with its path")
    func persistence() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("marks-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("nuxeo-documents.json")
        let marks = try DocumentMarks(file: file)
        let lock = try marks.lock("doc-1", in: "shared", by: "alice")
        try marks.trash("doc-2", parentID: "folder-1", in: "shared", by: "alice")
        try marks.trash("doc-2", parentID: "folder-1", in: "mydocs-bob", by: "bob")
        let again = try DocumentMarks(file: file)
        #expect(again.lock(of: "doc-1", in: "shared")?.owner == "alice")
        #expect(
            abs((again.lock(of: "doc-1", in: "shared")?.created ?? .distantPast).timeIntervalSince(lock.created)) < 0.01
        )
        #expect(again.isTrashed("doc-2", in: "shared") && again.trashed(in: "shared")["doc-2"]?.parentID == "folder-1")
        #expect(again.trashed(in: "shared")["doc-2"]?.owner == "alice", "who trashed it is kept")
        #expect(again.lock(of: "doc-1", in: "mydocs-bob") == nil, "marks are per repository")
        let mode = try FileManager.default.attributesOfItem(atPath: file.path)[.posixPermissions] as? Int
        #expect(mode == 0o600)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: folder.path).filter { $0.hasSuffix(".tmp") }
        #expect(leftovers.isEmpty)

        try Data("{\"locks\": [{\"repository\": \"shared\"}], \"trashed\": []}".utf8).write(to: file)
        let damaged = #expect(throws: ServerError.self) { try DocumentMarks(file: file) }
        #expect(damaged?.message.contains(file.path) == true && damaged?.message.contains("locks[0]") == true)
        try Data("not json".utf8).write(to: file)
        #expect(throws: ServerError.self) { try DocumentMarks(file: file) }
    }

    @Test("a lock refuses others until its owner (or an override) unlocks it; the trash is bounded")
    func rules() throws {
        let marks = DocumentMarks()
        _ = try marks.lock("d", in: "r", by: "alice")
        #expect(throws: CMISError.self) { try marks.lock("d", in: "r", by: "alice") }
        #expect(throws: CMISError.self) { try marks.checkUnlocked("d", in: "r", for: "bob") }
        try marks.checkUnlocked("d", in: "r", for: "alice")
        let refused = #expect(throws: CMISError.self) { try marks.unlock("d", in: "r", by: "bob", mayOverride: false) }
        #expect(refused?.code == .permissionDenied)
        #expect(try marks.unlock("d", in: "r", by: "bob", mayOverride: true))
        #expect(try !marks.unlock("d", in: "r", by: "alice", mayOverride: false), "nothing left to unlock")

        // Locks are counted per user: one user's locks do not stop another's.
        for index in 0..<DocumentMarks.maximumLocksPerUser { _ = try marks.lock("l\(index)", in: "r", by: "carol") }
        let quota = #expect(throws: CMISError.self) { try marks.lock("one-more", in: "r", by: "carol") }
        #expect(quota?.code == .constraint)
        _ = try marks.lock("one-more", in: "r", by: "dave")

        // A trashed document moved elsewhere is recorded under its new folder.
        try marks.trash("moving", parentID: "f1", in: "r", by: "bob")
        marks.moved("moving", to: "f2", in: "r")
        #expect(marks.trashed(in: "r")["moving"]?.parentID == "f2")
        marks.forget(["moving"], in: "r")

        // The trash is counted per user: bob filling his share leaves alice's alone.
        for index in 0..<DocumentMarks.maximumTrashedPerUser {
            try marks.trash("t\(index)", parentID: nil, in: "r", by: "bob")
        }
        let full = #expect(throws: CMISError.self) { try marks.trash("one-more", parentID: nil, in: "r", by: "bob") }
        #expect(full?.code == .constraint)
        try marks.trash("alice's", parentID: nil, in: "r", by: "alice")
        #expect(marks.trashed(in: "r", by: "alice").keys.sorted() == ["alice's"])
        try marks.trash("elsewhere", parentID: nil, in: "other", by: "bob")
        marks.forget(["t0"], in: "r")
        try marks.trash("one-more", parentID: nil, in: "r", by: "bob")
        #expect(marks.isTrashed("one-more", in: "r") && !marks.isTrashed("t0", in: "r"))
    }
}
