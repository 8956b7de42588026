public import Foundation
import SatchelCMISCore
import SatchelJSON
public import SatchelRepository

/// Nuxeo's locks and trash, which CMIS has no words for, kept in the metadata store beside the repository's
/// objects (`ServerStateStore`; docs/nuxeo.md, docs/server-state.md).
///
/// A lock belongs to the user who took it: over the Nuxeo API nobody else may change, move, trash or delete the
/// document until its owner (or someone with `Everything` on it) unlocks it. A trashed document stays where it was,
/// readable by id and path, and drops out of `@children` and of NXQL searches that ask for `ecm:isTrashed = 0`, as
/// in Nuxeo; `ecm:isTrashed = 1` finds it. Every server process on one PostgreSQL database sees the same marks; the
/// CMIS bindings do not show them, as Nuxeo's own CMIS binding does not show locks.
///
/// Each rule is one atomic operation of the store: two requests (or two processes) locking one document at once
/// give one lock and one refusal.
public struct DocumentMarks: Sendable {
    /// Where the marks are kept.
    public let store: any ServerStateStore

    /// Marks kept in `store`, shared with every server process using it.
    public init(store: any ServerStateStore) {
        self.store = store
    }

    /// Marks kept in memory only (a server whose metadata store keeps none: tests).
    public init() {
        store = MemoryMetadataStore()
    }

    // MARK: Locks

    /// The document's lock, if any.
    public func lock(of key: String, in repository: String) async throws -> DocumentLock? {
        try await store.locks(repositoryId: repository, keys: [key])[key]
    }

    /// The locks of a page of documents, by key, in one read.
    public func locks(of keys: [String], in repository: String) async throws -> [String: DocumentLock] {
        try await store.locks(repositoryId: repository, keys: keys)
    }

    /// Locks the document for `user`; a document locked already (by anyone) is refused, as Nuxeo refuses it.
    public func lock(_ key: String, in repository: String, by user: String) async throws -> DocumentLock {
        switch try await store.lock(repositoryId: repository, key: key, owner: user, at: Date()) {
        case .locked(let lock): return lock
        case .alreadyLocked(let existing):
            throw CMISError(.updateConflict, "the document is already locked by \(existing.owner)")
        }
    }

    /// Unlocks the document: its lock's owner may, and so may whoever `mayOverride` (`Everything` on it). True if
    /// it was locked.
    @discardableResult
    public func unlock(_ key: String, in repository: String, by user: String, mayOverride: Bool) async throws -> Bool {
        switch try await store.unlock(repositoryId: repository, key: key, owner: user, override: mayOverride) {
        case .unlocked: return true
        case .notLocked: return false
        case .lockedByOther(let existing):
            throw CMISError(.permissionDenied, "the document is locked by \(existing.owner), not by \(user)")
        }
    }

    /// Throws `updateConflict` when someone other than `user` holds the document's lock.
    public func checkUnlocked(_ key: String, in repository: String, for user: String) async throws {
        if let lock = try await lock(of: key, in: repository), lock.owner != user {
            throw CMISError(.updateConflict, "the document is locked by \(lock.owner)")
        }
    }

    // MARK: Trash

    /// Whether the document is in the trash.
    public func isTrashed(_ key: String, in repository: String) async throws -> Bool {
        try await store.trashMarks(repositoryId: repository, keys: [key])[key] != nil
    }

    /// The trash marks of a page of documents, by key, in one read.
    public func trashMarks(of keys: [String], in repository: String) async throws -> [String: TrashMark] {
        try await store.trashMarks(repositoryId: repository, keys: keys)
    }

    /// Puts the document in the trash for `user` (nothing happens when it is there already).
    public func trash(_ key: String, parentID: String?, in repository: String, by user: String) async throws {
        _ = try await store.trash(
            TrashMark(repositoryId: repository, key: key, parentId: parentID, owner: user, created: Date()))
    }

    /// Records the folder a trashed document is in now.
    public func moved(_ key: String, to parentID: String, in repository: String) async throws {
        try await store.moveTrashMark(repositoryId: repository, key: key, to: parentID)
    }

    /// Takes the document out of the trash; true if it was there.
    @discardableResult
    public func untrash(_ key: String, in repository: String) async throws -> Bool {
        try await store.untrash(repositoryId: repository, key: key)
    }

    /// Forgets a deleted document's lock and trash mark. The repository's own store does so itself when it deletes
    /// the document; this is for documents deleted elsewhere (a gateway's back-end).
    public func forget(_ keys: [String], in repository: String) async throws {
        try await store.forgetMarks(repositoryId: repository, keys: keys)
    }

    // MARK: Upgrading

    /// Moves the marks an earlier version kept in `file` (`nuxeo-documents.json`) into the store, then renames the
    /// file `….imported` (kept, owner-only), so an upgrade loses no lock and no trash mark. No file: nothing to do.
    /// A mark the store holds already is left as it is.
    ///
    /// - Returns: how many marks were read from the file.
    @discardableResult
    public static func importFile(_ file: URL, into store: any ServerStateStore) async throws -> Int {
        guard FileManager.default.fileExists(atPath: file.path) else { return 0 }
        let json: JSONValue
        do {
            json = try JSONValue(parsing: Data(contentsOf: file), limits: JSONLimits(maxDepth: 8))
        } catch {
            throw ServerError("the Nuxeo document marks file \(file.path) cannot be read: \(error)")
        }
        func entries(_ name: String) throws(ServerError) -> [(repository: String, key: String, JSONValue, Date)] {
            guard let array = json[name]?.arrayValue else {
                throw ServerError("the Nuxeo document marks file \(file.path) has no \"\(name)\" array")
            }
            var result: [(String, String, JSONValue, Date)] = []
            for (index, entry) in array.enumerated() {
                guard let repository = entry["repository"]?.stringValue, let id = entry["id"]?.stringValue,
                    let created = entry["created"]?.int64Value
                else {
                    throw ServerError("the Nuxeo document marks file \(file.path): \(name)[\(index)] is incomplete")
                }
                result.append((repository, id, entry, Date(timeIntervalSince1970: Double(created) / 1000)))
            }
            return result
        }
        let locks = try entries("locks")
        let trashed = try entries("trashed")
        for (repository, key, entry, created) in locks {
            guard let owner = entry["owner"]?.stringValue else {
                throw ServerError("the Nuxeo document marks file \(file.path): the lock of \(key) has no owner")
            }
            _ = try await store.lock(repositoryId: repository, key: key, owner: owner, at: created)
        }
        for (repository, key, entry, created) in trashed {
            _ = try await store.trash(
                TrashMark(
                    repositoryId: repository, key: key, parentId: entry["parent"]?.stringValue,
                    owner: entry["owner"]?.stringValue ?? "", created: created))
        }
        try ImportedFile.retire(file)
        return locks.count + trashed.count
    }
}

/// A file of an earlier version whose contents are in the store now.
enum ImportedFile {
    /// Renames `file` to `<file>.imported` (replacing an older one), owner-only.
    static func retire(_ file: URL) throws {
        let target = file.appendingPathExtension("imported")
        do {
            if FileManager.default.fileExists(atPath: target.path) { try FileManager.default.removeItem(at: target) }
            try FileManager.default.moveItem(at: file, to: target)
            PrivateFiles.restrict(target.path)
        } catch {
            throw ServerError("imported \(file.path) into the metadata store but cannot rename it: \(error)")
        }
    }
}
