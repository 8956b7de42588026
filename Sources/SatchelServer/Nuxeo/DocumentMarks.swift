public import Foundation
public import SatchelCMISCore
import SatchelJSON
import SatchelRepository
import Synchronization

/// Nuxeo's locks and trash, which CMIS has no words for, kept beside the repository (docs/nuxeo.md).
///
/// A lock belongs to the user who took it: over the Nuxeo API nobody else may change, move, trash or delete the
/// document until its owner (or someone with `Everything` on it) unlocks it. A trashed document stays where it was,
/// readable by id and path, and drops out of `@children` and of NXQL searches that ask for `ecm:isTrashed = 0`, as
/// in Nuxeo; `ecm:isTrashed = 1` finds it. Kept in `nuxeo-documents.json` in the data folder (owner-only) so they
/// outlive a restart; the CMIS bindings do not see them, as Nuxeo's own CMIS binding does not show locks.
public final class DocumentMarks: Sendable {
    public struct Lock: Sendable, Hashable {
        public var owner: String
        public var created: Date
    }

    /// A trashed document, the folder it was trashed from, and who trashed it (nil for marks recorded before
    /// that was kept).
    public struct Trashed: Sendable, Hashable {
        public var parentID: String?
        public var created: Date
        public var owner: String?
    }

    struct Key: Hashable, Comparable {
        var repository: String
        var id: String
        static func < (lhs: Key, rhs: Key) -> Bool { (lhs.repository, lhs.id) < (rhs.repository, rhs.id) }
    }

    struct State {
        var locks: [Key: Lock] = [:]
        var trashed: [Key: Trashed] = [:]
    }

    /// At most this many documents trashed by one user in a repository (a search excluding them names each; one
    /// user's trash never stops another's), and this many locks per user and repository.
    public static let maximumTrashedPerUser = 1000
    public static let maximumLocksPerUser = 1000

    private let file: URL?
    private let state: Mutex<State>
    /// Taken by changes only, one at a time, around writing the file: readers (every rendered document asks for
    /// its lock and trash mark) never wait on the disk.
    private let changing = Mutex<Int>(0)

    /// Marks kept in memory only.
    public init() {
        file = nil
        state = Mutex(State())
    }

    /// `file`: where marks are kept. A missing file is none.
    public init(file: URL) throws(ServerError) {
        self.file = file
        PrivateFiles.removeLeftovers(of: file)
        var loaded = State()
        if FileManager.default.fileExists(atPath: file.path) {
            loaded = try Self.load(file)
        }
        state = Mutex(loaded)
    }

    // MARK: Locks

    /// The document's lock, if any.
    public func lock(of id: String, in repository: String) -> Lock? {
        state.withLock { $0.locks[Key(repository: repository, id: id)] }
    }

    /// The repository's locks, by document.
    public func locks(in repository: String) -> [String: Lock] {
        state.withLock { state in
            var result: [String: Lock] = [:]
            for (key, value) in state.locks where key.repository == repository { result[key.id] = value }
            return result
        }
    }

    /// Locks the document for `user`; a document locked already (by anyone) is refused, as Nuxeo refuses it.
    public func lock(_ id: String, in repository: String, by user: String) throws(CMISError) -> Lock {
        let key = Key(repository: repository, id: id)
        let lock = Lock(owner: user, created: Date())
        try change { state throws(CMISError) in
            if let existing = state.locks[key] {
                throw CMISError(.updateConflict, "the document is already locked by \(existing.owner)")
            }
            let owned = state.locks.count { $0.key.repository == repository && $0.value.owner == user }
            guard owned < Self.maximumLocksPerUser else {
                throw CMISError(
                    .constraint, "\(user) holds \(Self.maximumLocksPerUser) locks here: unlock some first")
            }
            state.locks[key] = lock
        }
        return lock
    }

    /// Unlocks the document: its lock's owner may, and so may whoever `mayOverride` (`Everything` on it). True if
    /// it was locked.
    @discardableResult
    public func unlock(
        _ id: String, in repository: String, by user: String, mayOverride: Bool
    ) throws(CMISError)
        -> Bool
    {
        let key = Key(repository: repository, id: id)
        var removed = false
        try change { state throws(CMISError) in
            guard let existing = state.locks[key] else { return }
            guard existing.owner == user || mayOverride else {
                throw CMISError(.permissionDenied, "the document is locked by \(existing.owner), not by \(user)")
            }
            state.locks[key] = nil
            removed = true
        }
        return removed
    }

    /// Throws `updateConflict` when someone other than `user` holds the document's lock.
    public func checkUnlocked(_ id: String, in repository: String, for user: String) throws(CMISError) {
        if let lock = lock(of: id, in: repository), lock.owner != user {
            throw CMISError(.updateConflict, "the document is locked by \(lock.owner)")
        }
    }

    // MARK: Trash

    /// Whether the document is in the trash.
    public func isTrashed(_ id: String, in repository: String) -> Bool {
        state.withLock { $0.trashed[Key(repository: repository, id: id)] != nil }
    }

    /// The repository's trashed documents.
    public func trashed(in repository: String) -> [String: Trashed] {
        state.withLock { state in
            var result: [String: Trashed] = [:]
            for (key, value) in state.trashed where key.repository == repository { result[key.id] = value }
            return result
        }
    }

    /// The documents `user` trashed in the repository.
    public func trashed(in repository: String, by user: String) -> [String: Trashed] {
        trashed(in: repository).filter { $0.value.owner == user }
    }

    /// Puts the document in the trash for `user` (nothing happens when it is there already); refused once the user
    /// has ``maximumTrashedPerUser`` documents there.
    public func trash(_ id: String, parentID: String?, in repository: String, by user: String) throws(CMISError) {
        let key = Key(repository: repository, id: id)
        try change { state throws(CMISError) in
            guard state.trashed[key] == nil else { return }
            let owned = state.trashed.count { $0.key.repository == repository && $0.value.owner == user }
            guard owned < Self.maximumTrashedPerUser else {
                throw CMISError(
                    .constraint,
                    "you have \(Self.maximumTrashedPerUser) documents in the trash here: delete some of them first")
            }
            state.trashed[key] = Trashed(parentID: parentID, created: Date(), owner: user)
        }
    }

    /// Records the folder a trashed document is in now.
    public func moved(_ id: String, to parentID: String, in repository: String) {
        let key = Key(repository: repository, id: id)
        try? change { state throws(CMISError) in
            state.trashed[key]?.parentID = parentID
        }
    }

    /// Takes the document out of the trash; true if it was there.
    @discardableResult
    public func untrash(_ id: String, in repository: String) throws(CMISError) -> Bool {
        let key = Key(repository: repository, id: id)
        var removed = false
        try change { state throws(CMISError) in
            removed = state.trashed.removeValue(forKey: key) != nil
        }
        return removed
    }

    /// Forgets a deleted document's lock and trash mark.
    public func forget(_ ids: some Sequence<String>, in repository: String) {
        let keys = Set(ids.map { Key(repository: repository, id: $0) })
        try? change { state throws(CMISError) in
            for key in keys {
                state.locks[key] = nil
                state.trashed[key] = nil
            }
        }
    }

    // MARK: The file

    /// Applies a change and writes the file; a change that cannot be written is undone. Changes run one at a time
    /// (the file never goes back to an older state); readers see the change once it is written.
    private func change(_ body: (inout State) throws(CMISError) -> Void) throws(CMISError) {
        try changing.withLock { count throws(CMISError) in
            let current = state.withLock { $0 }
            var changed = current
            try body(&changed)
            guard changed.locks != current.locks || changed.trashed != current.trashed else { return }
            if let file {
                do {
                    try PrivateFiles.replace(file, with: Self.serialized(changed))
                } catch {
                    throw CMISError(.storage, "the server could not record the change: \(error)")
                }
            }
            state.withLock { $0 = changed }
            count += 1
        }
    }

    private static func milliseconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970 * 1000) }

    private static func serialized(_ state: State) -> Data {
        var writer = JSONWriter()
        writer.writeObject { writer in
            writer.write(key: "locks") { writer in
                writer.writeArray { writer in
                    for (key, lock) in state.locks.sorted(by: { $0.key < $1.key }) {
                        writer.writeObject { writer in
                            writer.write(key: "repository", key.repository)
                            writer.write(key: "id", key.id)
                            writer.write(key: "owner", lock.owner)
                            writer.write(key: "created", milliseconds(lock.created))
                        }
                    }
                }
            }
            writer.write(key: "trashed") { writer in
                writer.writeArray { writer in
                    for (key, trashed) in state.trashed.sorted(by: { $0.key < $1.key }) {
                        writer.writeObject { writer in
                            writer.write(key: "repository", key.repository)
                            writer.write(key: "id", key.id)
                            if let parent = trashed.parentID { writer.write(key: "parent", parent) }
                            if let owner = trashed.owner { writer.write(key: "owner", owner) }
                            writer.write(key: "created", milliseconds(trashed.created))
                        }
                    }
                }
            }
        }
        return Data(writer.string.utf8)
    }

    private static func load(_ file: URL) throws(ServerError) -> State {
        let json: JSONValue
        do {
            json = try JSONValue(parsing: Data(contentsOf: file), limits: JSONLimits(maxDepth: 8))
        } catch {
            throw ServerError("the Nuxeo document marks file \(file.path) cannot be read: \(error)")
        }
        var state = State()
        func entries(_ name: String) throws(ServerError) -> [(Key, Date, JSONValue)] {
            guard let array = json[name]?.arrayValue else {
                throw ServerError("the Nuxeo document marks file \(file.path) has no \"\(name)\" array")
            }
            var result: [(Key, Date, JSONValue)] = []
            for (index, entry) in array.enumerated() {
                guard let repository = entry["repository"]?.stringValue, let id = entry["id"]?.stringValue,
                    let created = entry["created"]?.int64Value
                else {
                    throw ServerError("the Nuxeo document marks file \(file.path): \(name)[\(index)] is incomplete")
                }
                result.append(
                    (
                        Key(repository: repository, id: id), Date(timeIntervalSince1970: Double(created) / 1000),
                        entry
                    ))
            }
            return result
        }
        for (key, created, entry) in try entries("locks") {
            guard let owner = entry["owner"]?.stringValue else {
                throw ServerError("the Nuxeo document marks file \(file.path): a lock of \(key.id) has no owner")
            }
            state.locks[key] = Lock(owner: owner, created: created)
        }
        for (key, created, entry) in try entries("trashed") {
            state.trashed[key] = Trashed(
                parentID: entry["parent"]?.stringValue, created: created, owner: entry["owner"]?.stringValue)
        }
        return state
    }
}
