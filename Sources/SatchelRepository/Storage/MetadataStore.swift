public import Foundation
public import SatchelCMISCore

/// Where the repository engine keeps object metadata: SQLite (``SQLiteMetadataStore``, the default), PostgreSQL
/// (`SatchelRepositoryPostgres`) or memory (``MemoryMetadataStore``, for tests and `--memory`).
///
/// The protocol speaks in whole objects, not SQL: reads return ``StoredObject`` values, and every change is one
/// ``StoreBatch`` applied atomically, with its preconditions checked inside the same transaction. That keeps the
/// CMIS rules in one place (the engine) and the backends small and interchangeable; the same conformance suite
/// runs against every backend.
public protocol MetadataStore: Sendable {
    /// Creates or upgrades the schema. Safe to call on every start.
    func migrate() async throws

    // MARK: Repositories

    /// Every repository (the shared ones and every user's MyDocuments), ordered by id.
    func repositories() async throws -> [StoredRepository]
    /// The repository `id`, or nil when there is none.
    func repository(id: String) async throws -> StoredRepository?

    // MARK: Objects

    /// The object `id` of the repository, or nil when there is none.
    func object(repositoryId: String, id: String) async throws -> StoredObject?
    /// The objects that exist among `ids`, in no particular order.
    func objects(repositoryId: String, ids: [String]) async throws -> [StoredObject]
    /// The object filed in `folderId` under `name` (names are unique per folder).
    func child(repositoryId: String, folderId: String, name: String) async throws -> StoredObject?
    /// One page of the objects filed in `folderId`, sorted by `order` (then by id, for a stable order).
    func children(
        repositoryId: String, folderId: String, order: [StoreOrder], offset: Int, limit: Int?
    ) async throws -> StoredPage
    /// Every object of the given base types (all when nil) and object types (all when nil): the candidates a
    /// query filters. `latestOnly` leaves out non-latest versions; `trash` leaves out (or keeps to) what the
    /// store's ``ServerStateStore`` marks trashed, decided in the store's own query.
    func scan(
        repositoryId: String, baseTypes: Set<BaseTypeId>?, typeIds: Set<String>?, latestOnly: Bool,
        trash: TrashScope?
    ) async throws -> [StoredObject]
    /// Every version of a version series, the private working copy included, newest first.
    func versions(repositoryId: String, versionSeriesId: String) async throws -> [StoredObject]
    /// Relationships whose source or target is `objectId`.
    func relationships(repositoryId: String, objectId: String) async throws -> [StoredObject]

    // MARK: Change log

    /// Change events after `token` (from the start when nil), oldest first, at most `limit`.
    func changes(repositoryId: String, after token: Int64?, limit: Int) async throws -> [StoredChange]
    /// The token of the repository's newest change log entry, or nil before its first change.
    func latestChangeToken(repositoryId: String) async throws -> Int64?

    // MARK: Blobs

    /// The content hashes some object still refers to (for blob garbage collection and consistency checks).
    func referencedContentHashes() async throws -> Set<String>
    /// Whether any object, in any repository, refers to the content `hash`.
    func isContentReferenced(_ hash: String) async throws -> Bool

    // MARK: Writes

    /// Applies the whole batch in one transaction, or nothing of it. A store that is also a ``ServerStateStore``
    /// forgets, in the same transaction, the locks and trash marks of the keys (ids and version series) whose last
    /// object the batch deletes.
    ///
    /// - Throws: ``MetadataStoreError/conflict(objectId:)`` when a precondition fails, ``MetadataStoreError/nameTaken(folderId:name:)``
    ///   when two objects would share a name in one folder, ``MetadataStoreError/notFound(objectId:)`` when an update or
    ///   delete names an object that does not exist, ``MetadataStoreError/backend(_:)`` for anything else.
    /// - Returns: what the batch released: the content hashes that deleted or changed objects referred to and that
    ///   no object refers to once it is committed (decided inside the transaction).
    @discardableResult
    func apply(_ batch: StoreBatch) async throws -> StoreBatchResult
}

extension MetadataStore {
    /// ``scan(repositoryId:baseTypes:typeIds:latestOnly:trash:)`` whatever the trash holds.
    public func scan(
        repositoryId: String, baseTypes: Set<BaseTypeId>?, typeIds: Set<String>?, latestOnly: Bool
    ) async throws -> [StoredObject] {
        try await scan(
            repositoryId: repositoryId, baseTypes: baseTypes, typeIds: typeIds, latestOnly: latestOnly, trash: nil)
    }
}

/// What an applied ``StoreBatch`` left behind.
public struct StoreBatchResult: Sendable, Hashable {
    /// Content no object refers to any more: its blob may be removed (``BlobStore``).
    public var releasedContentHashes: Set<String>

    /// A result that released `releasedContentHashes` (nothing, by default).
    public init(releasedContentHashes: Set<String> = []) {
        self.releasedContentHashes = releasedContentHashes
    }
}

/// A repository: the shared one, or a user's MyDocuments.
public struct StoredRepository: Sendable, Hashable {
    /// The repository id (`shared`, or `mydocs-<user>` for a user's MyDocuments).
    public var id: String
    /// The repository's name, as repository info shows it.
    public var name: String
    /// The repository's description, as repository info shows it.
    public var description: String
    /// The user who owns this repository (MyDocuments), or nil for a shared repository.
    public var owner: String?
    /// The id of the repository's root folder.
    public var rootFolderId: String
    /// When the repository was created.
    public var createdAt: Date

    /// A repository with these values.
    public init(id: String, name: String, description: String, owner: String?, rootFolderId: String, createdAt: Date) {
        self.id = id
        self.name = name
        self.description = description
        self.owner = owner
        self.rootFolderId = rootFolderId
        self.createdAt = createdAt
    }
}

/// One object as the store keeps it. The engine owns its meaning; the store indexes the fields it must search
/// by and keeps ``properties`` as an opaque, typed bag.
public struct StoredObject: Sendable, Hashable {
    /// The repository the object belongs to.
    public var repositoryId: String
    /// The object id, unique in its repository.
    public var id: String
    /// The object's base type: document, folder, item, policy or relationship.
    public var baseTypeId: BaseTypeId
    /// The object's type id (a base type's id, or one of its subtypes').
    public var typeId: String
    /// The object's `cmis:name`, unique in each folder it is filed in (empty for a relationship without a name).
    public var name: String
    /// The folders this object is filed in: one for a folder (none for the root folder), any number for a
    /// document, item or policy when the repository multi-files, none when unfiled.
    public var parentIds: [String]
    /// Every property the object has, `cmis:` system properties included, typed (the engine keeps them in step
    /// with the fields above).
    public var properties: Properties
    /// Increases by one with every change; the engine's optimistic-concurrency check.
    public var changeToken: Int64
    /// The content stream, or nil for none.
    public var content: StoredContent?
    /// Documents: the version series (the id of the series' first object); nil for other objects.
    public var versionSeriesId: String?
    /// Whether this is the latest checked-in version of its series (false for a private working copy; true for
    /// objects that are not versioned).
    public var isLatestVersion: Bool
    /// Whether this is the private working copy of a checked-out version series.
    public var isPrivateWorkingCopy: Bool
    /// Relationship ends.
    public var sourceId: String?
    /// The relationship's target object; nil for other objects.
    public var targetId: String?
    /// The object's own ACEs (what it inherits from folders is worked out by the engine).
    public var acl: [ACE]
    /// The ids of the policies applied to the object.
    public var policyIds: [String]
    /// When the object was created.
    public var createdAt: Date
    /// When the object was last changed.
    public var modifiedAt: Date

    /// An object with these values. Unless given: change token 1, no content, no version series, the latest version,
    /// not a working copy, no relationship ends, no ACEs and no policies.
    public init(
        repositoryId: String, id: String, baseTypeId: BaseTypeId, typeId: String, name: String, parentIds: [String],
        properties: Properties, changeToken: Int64 = 1, content: StoredContent? = nil, versionSeriesId: String? = nil,
        isLatestVersion: Bool = true, isPrivateWorkingCopy: Bool = false, sourceId: String? = nil,
        targetId: String? = nil, acl: [ACE] = [], policyIds: [String] = [], createdAt: Date, modifiedAt: Date
    ) {
        self.repositoryId = repositoryId
        self.id = id
        self.baseTypeId = baseTypeId
        self.typeId = typeId
        self.name = name
        self.parentIds = parentIds
        self.properties = properties
        self.changeToken = changeToken
        self.content = content
        self.versionSeriesId = versionSeriesId
        self.isLatestVersion = isLatestVersion
        self.isPrivateWorkingCopy = isPrivateWorkingCopy
        self.sourceId = sourceId
        self.targetId = targetId
        self.acl = acl
        self.policyIds = policyIds
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
    }
}

/// A content stream: a blob in the ``BlobStore`` plus what CMIS says about it.
public struct StoredContent: Sendable, Hashable {
    /// Lower-case hex SHA-256 of the bytes: the blob's name in the blob store.
    public var hash: String
    /// The content's length in bytes.
    public var length: Int64
    /// The content's media type.
    public var mimeType: String
    /// The file name that came with the content, if any.
    public var fileName: String?

    /// A content stream with these values.
    public init(hash: String, length: Int64, mimeType: String, fileName: String?) {
        self.hash = hash
        self.length = length
        self.mimeType = mimeType
        self.fileName = fileName
    }
}

/// One entry of a repository's change log.
public struct StoredChange: Sendable, Hashable {
    /// Assigned by the store when the batch is applied: 1, 2, 3… per repository, so no repository's tokens tell
    /// anything about another's activity; ignored on input.
    public var token: Int64
    /// The repository the change happened in.
    public var repositoryId: String
    /// The object that changed.
    public var objectId: String
    /// What happened: `created`, `updated`, `deleted` or `security` (an ACL or policy change).
    public var changeType: ChangeType
    /// When it happened.
    public var time: Date
    /// The object's type, kept so a `deleted` event still says what was deleted.
    public var typeId: String
    /// The object's base type.
    public var baseTypeId: BaseTypeId
    /// For a `deleted` event: the principals who could read the object when it went (`cmis:anyone` included), so
    /// the change log shows the deletion to them and to nobody else. Nil for other events, which are shown to
    /// whoever may read the object now.
    public var readers: [String]?

    /// An entry with these values; `token` is the store's to assign, and `readers` nil unless the object was deleted.
    public init(
        token: Int64 = 0, repositoryId: String, objectId: String, changeType: ChangeType, time: Date, typeId: String,
        baseTypeId: BaseTypeId, readers: [String]? = nil
    ) {
        self.token = token
        self.repositoryId = repositoryId
        self.objectId = objectId
        self.changeType = changeType
        self.time = time
        self.typeId = typeId
        self.baseTypeId = baseTypeId
        self.readers = readers
    }
}

/// A sort key for ``MetadataStore/children(repositoryId:folderId:order:offset:limit:)``.
public struct StoreOrder: Sendable, Hashable {
    /// What children can be sorted by.
    public enum Field: Sendable, Hashable {
        /// `cmis:name`.
        case name
        /// `cmis:creationDate`.
        case createdAt
        /// `cmis:lastModificationDate`.
        case modifiedAt
        /// `cmis:objectTypeId`.
        case typeId
        /// `cmis:baseTypeId`.
        case baseTypeId
        /// `cmis:contentStreamLength`
        case contentLength
    }

    /// What to sort by.
    public var field: Field
    /// Whether smaller values come first.
    public var ascending: Bool

    /// A sort key on `field`, ascending unless told otherwise.
    public init(_ field: Field, ascending: Bool = true) {
        self.field = field
        self.ascending = ascending
    }

    /// The SQL `ORDER BY` terms for a children query over `filings f JOIN objects o` (the same in SQLite and
    /// PostgreSQL). Names are unique per folder, so once the name decides, the id tie-break is dropped and the
    /// filings index alone gives the order.
    public static func childrenOrderTerms(_ order: [StoreOrder]) -> [String] {
        var terms: [String] = []
        for key in order {
            let column: String
            switch key.field {
            case .name: column = "f.name"
            case .createdAt: column = "o.created_at"
            case .modifiedAt: column = "o.modified_at"
            case .typeId: column = "o.type_id"
            case .baseTypeId: column = "o.base_type"
            case .contentLength: column = "COALESCE(o.content_length, -1)"
            }
            terms.append(column + (key.ascending ? "" : " DESC"))
            if key.field == .name { return terms }
        }
        return terms + ["o.id"]
    }
}

/// One page of children, with the total count.
public struct StoredPage: Sendable, Hashable {
    /// The page's objects, in order.
    public var objects: [StoredObject]
    /// How many objects the folder holds in all.
    public var totalCount: Int

    /// A page of `objects` out of `totalCount`.
    public init(objects: [StoredObject], totalCount: Int) {
        self.objects = objects
        self.totalCount = totalCount
    }
}

/// Everything one CMIS operation changes, applied atomically by ``MetadataStore/apply(_:)``.
public struct StoreBatch: Sendable, Hashable {
    /// Whether the batch may change what is known of existing folders (names, parents, ACLs): it updates a folder,
    /// or deletes anything. Inserts alone leave every existing folder as it was.
    public var changesFolders: Bool { updates.contains { $0.baseTypeId == .folder } || !deletes.isEmpty }

    /// Objects that must still carry the given change token (they were read, then changed): otherwise the whole
    /// batch fails with ``MetadataStoreError/conflict(objectId:)``.
    public var expectedChangeTokens: [String: Int64]
    /// Repositories to create; `MetadataStoreError.duplicateId(_:)` when one exists already.
    public var newRepositories: [StoredRepository]
    /// Objects to create; `MetadataStoreError.duplicateId(_:)` when an id is taken.
    public var inserts: [StoredObject]
    /// Whole-object replacements (matched by repository and id).
    public var updates: [StoredObject]
    /// The ids of objects to delete.
    public var deletes: [String]
    /// Change log entries to append, in order; the store assigns their tokens.
    public var changes: [StoredChange]
    /// Repository the object ids above belong to.
    public var repositoryId: String

    /// A batch for the repository `repositoryId`; every part is empty unless given.
    public init(
        repositoryId: String, expectedChangeTokens: [String: Int64] = [:], newRepositories: [StoredRepository] = [],
        inserts: [StoredObject] = [], updates: [StoredObject] = [], deletes: [String] = [],
        changes: [StoredChange] = []
    ) {
        self.repositoryId = repositoryId
        self.expectedChangeTokens = expectedChangeTokens
        self.newRepositories = newRepositories
        self.inserts = inserts
        self.updates = updates
        self.deletes = deletes
        self.changes = changes
    }
}

/// An error a store throws on purpose (a refusal, not a failure of its database): passed to the caller as it is.
public protocol StoreRefusal: Error {}

/// What a metadata store throws.
public enum MetadataStoreError: StoreRefusal, Sendable, Hashable, CustomStringConvertible {
    /// An object no longer has the change token the batch expected: someone else changed it.
    case conflict(objectId: String)
    /// The folder already holds an object of that name.
    case nameTaken(folderId: String, name: String)
    /// An object the batch updates, deletes or expects does not exist.
    case notFound(objectId: String)
    /// A repository or object with that id exists already.
    case duplicateId(String)
    /// The database failed (or refused in a way the protocol has no case for); its message.
    case backend(String)

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .conflict(let id): return "object \(id) was changed by someone else"
        case .nameTaken(let folder, let name): return "folder \(folder) already holds an object named '\(name)'"
        case .notFound(let id): return "no object \(id)"
        case .duplicateId(let id): return "an object with id \(id) already exists"
        case .backend(let message): return message
        }
    }
}
