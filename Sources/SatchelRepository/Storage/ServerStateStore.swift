public import Foundation

/// What the server keeps beside the repositories' objects, in the same database as them: document locks and trash
/// marks (the Nuxeo API's, which CMIS has no words for), long-lived access tokens, upload batches
/// (``UploadBatchStore``), and sessions, the XSRF secret and failed-login counts (``SessionStore``). Implemented by
/// ``MemoryMetadataStore``, ``SQLiteMetadataStore`` and `PostgresMetadataStore`, so every server process on one
/// PostgreSQL database sees the others' locks, trash and tokens (docs/server-state.md).
///
/// Every change is one atomic statement (or one transaction): nothing is read by the process, changed and written
/// back, so two processes never lose each other's change. Marks are keyed by what the Nuxeo API calls a document:
/// a folder's id, a document's version series (every version and working copy share one lock and one place in
/// the trash). A batch that deletes the last object a key names forgets its marks in the same transaction
/// (``MetadataStore/apply(_:)``), so a mark never outlives its document.
public protocol ServerStateStore: UploadBatchStore, SessionStore {
    // MARK: Locks

    /// Locks `key` for `owner`, unless someone (anyone) holds its lock already.
    func lock(repositoryId: String, key: String, owner: String, at time: Date) async throws -> LockOutcome
    /// Removes the lock of `key` if `owner` holds it, or whoever holds it when `override` is true.
    func unlock(repositoryId: String, key: String, owner: String, override: Bool) async throws -> UnlockOutcome
    /// The locks held on any of `keys` (one query for a page), by key.
    func locks(repositoryId: String, keys: [String]) async throws -> [String: DocumentLock]
    /// The repository's locks held by anyone but `owner`, by key, at most `limit` of them.
    func locks(repositoryId: String, notOwnedBy owner: String, limit: Int) async throws -> [String: DocumentLock]

    // MARK: Trash

    /// Puts `mark.key` in the trash; false (and nothing changes) when it is there already.
    func trash(_ mark: TrashMark) async throws -> Bool
    /// Takes `key` out of the trash; false when it was not there.
    func untrash(repositoryId: String, key: String) async throws -> Bool
    /// The trash marks of any of `keys` (one query for a page), by key.
    func trashMarks(repositoryId: String, keys: [String]) async throws -> [String: TrashMark]
    /// The repository's trashed keys, in order, at most `limit` of them.
    func trashKeys(repositoryId: String, limit: Int) async throws -> [String]
    /// Whether anything trashed was last seen in `folderId`.
    func holdsTrash(repositoryId: String, folderId: String) async throws -> Bool
    /// Records that the trashed `key` is filed in `folderId` now.
    func moveTrashMark(repositoryId: String, key: String, to folderId: String) async throws
    /// Forgets the locks and trash marks of `keys` (documents deleted where the store does not see it: a gateway's
    /// back-end).
    func forgetMarks(repositoryId: String, keys: [String]) async throws
    /// A number that changes whenever this store object changes a trash mark: results that depend on the trash
    /// (searches that leave it out) stay valid while it holds. Only meaningful to a sole writer.
    var trashGeneration: UInt64 { get }

    // MARK: Access tokens

    /// Records `grant`, replacing the grant of the same user, application and device, unless the user would then
    /// hold more than `maximumPerUser` grants: then nothing changes and the answer is false.
    func issue(_ grant: AccessGrant, maximumPerUser: Int) async throws -> Bool
    /// Removes the grant of `user` for `application` on `device`; false when there was none.
    func revokeGrant(user: String, application: String, device: String) async throws -> Bool
    /// The grant whose token hashes to `digest` (lower-case hex SHA-256), or nil.
    func grant(digest: String) async throws -> AccessGrant?
    /// The grants of `user`, oldest first.
    func grants(user: String) async throws -> [AccessGrant]
}

/// A document's lock: who holds it, since when.
public struct DocumentLock: Sendable, Hashable {
    /// The user who holds the lock.
    public var owner: String
    /// When the lock was taken (whole milliseconds in the durable stores).
    public var created: Date

    /// A lock held by `owner` since `created`.
    public init(owner: String, created: Date) {
        self.owner = owner
        self.created = created
    }
}

/// What ``ServerStateStore/lock(repositoryId:key:owner:at:)`` did.
public enum LockOutcome: Sendable, Hashable {
    /// The lock is the caller's now.
    case locked(DocumentLock)
    /// Someone held it already (perhaps the caller); nothing changed.
    case alreadyLocked(DocumentLock)
}

/// What ``ServerStateStore/unlock(repositoryId:key:owner:override:)`` did.
public enum UnlockOutcome: Sendable, Hashable {
    /// The lock was removed.
    case unlocked
    /// Nobody held the lock; nothing changed.
    case notLocked
    /// Held by someone else, and no override: nothing changed.
    case lockedByOther(DocumentLock)
}

/// A document in the trash: where it was filed when last seen, who trashed it, when.
public struct TrashMark: Sendable, Hashable {
    /// The repository of the trashed document.
    public var repositoryId: String
    /// A folder's id, or a document's version series.
    public var key: String
    /// The folder the document was filed in when last seen, if any.
    public var parentId: String?
    /// The user who put it in the trash.
    public var owner: String
    /// When it was put in the trash.
    public var created: Date

    /// A mark with these values.
    public init(repositoryId: String, key: String, parentId: String?, owner: String, created: Date) {
        self.repositoryId = repositoryId
        self.key = key
        self.parentId = parentId
        self.owner = owner
        self.created = created
    }
}

/// Which side of the trash a search keeps to (``ServerStateStore``'s marks).
public enum TrashScope: Sendable, Hashable {
    /// Leaves out what is in the trash.
    case live
    /// Keeps to what is in the trash.
    case trashed

    /// The SQL condition (the same in SQLite and PostgreSQL) a scan of the `objects` table, named `table` in the
    /// statement, adds: a folder's key is its id, a document's its version series.
    package func condition(overObjects table: String) -> String {
        let exists = """
            EXISTS (SELECT 1 FROM document_trash t WHERE t.repository = \(table).repository
                AND t.object = COALESCE(\(table).version_series, \(table).id))
            """
        return self == .live ? "NOT " + exists : exists
    }
}

/// One long-lived access token's record: never the token, only its SHA-256.
public struct AccessGrant: Sendable, Hashable {
    /// Lower-case hex SHA-256 of the token.
    public var digest: String
    /// The user the token signs in.
    public var user: String
    /// The application the token was issued to.
    public var application: String
    /// The device the token was issued for: a user holds one grant per application and device.
    public var device: String
    /// A description of the device for people, if one was given.
    public var deviceDescription: String?
    /// `r` (read only) or `rw`.
    public var permission: String
    /// When the token was issued.
    public var created: Date

    /// A grant with these values.
    public init(
        digest: String, user: String, application: String, device: String, deviceDescription: String?,
        permission: String, created: Date
    ) {
        self.digest = digest
        self.user = user
        self.application = application
        self.device = device
        self.deviceDescription = deviceDescription
        self.permission = permission
        self.created = created
    }
}
