import Foundation
import SatchelCMISCore
import Synchronization

/// The CMIS repository engine: every CMIS 1.1 service over a ``MetadataStore`` and a ``BlobStore``.
///
/// One engine serves the shared repository and every user's MyDocuments repository (`mydocs-<user>`, created on
/// the user's first call). It owns the CMIS rules: types and property validation, system properties, folder paths,
/// versioning, ACLs, the change log, query. The store only keeps whole objects and applies one atomic batch per
/// operation.
///
/// ```swift
/// let repository = CMISRepository(store: MemoryMetadataStore(), blobs: try BlobStore(directory: folder))
/// try await repository.bootstrap()
/// let caller = CallerContext(user: "alice", sessionToken: "t0k3n")
/// let infos = try await repository.repositoryInfos(caller: caller)   // shared + mydocs-alice
/// ```
public final class CMISRepository: CMISService {
    let store: any MetadataStore
    let blobs: BlobStore
    let configuration: RepositoryConfiguration
    let types = TypeRegistry.standard
    let folders: FolderCache
    private let repositoryCache = Mutex<[String: StoredRepository]>([:])
    /// Changes made per repository (``readGeneration(repositoryId:)``).
    private let generations: StoreGenerations
    /// Query results kept between pages, and folders' children kept for queries held to one folder.
    let queryResults = QueryResultKey.cache()
    let queryMatches = QueryResultKey.objectCache()
    let recentObjects = RecentObjects()
    let folderContents = FolderContentsKey.cache()

    /// An engine over these stores; call ``bootstrap()`` once before serving.
    public init(store: any MetadataStore, blobs: BlobStore, configuration: RepositoryConfiguration = .init()) {
        self.store = store
        self.blobs = blobs
        self.configuration = configuration
        let folders = FolderCache(lifetime: configuration.folderCacheLifetime)
        self.folders = folders
        let generations = StoreGenerations(live: configuration.isSoleWriter)
        self.generations = generations
        // Another process's changes, as the store reports them: answers and folders kept stay current.
        if !configuration.isSoleWriter, let feed = store as? any StoreChangeFeed {
            feed.followChanges { event in
                generations.handle(event)
                switch event {
                case .changed(let repositoryId, let foldersChanged):
                    if foldersChanged { folders.invalidate(repositoryId) }
                case .following, .lost:
                    folders.invalidateAll()
                }
            }
        }
        blobs.connectJanitor(
            isReferenced: { [store] in try await store.isContentReferenced($0) }, grace: configuration.blobRemovalGrace)
    }

    /// Migrates the store and creates the shared repository with its root folder when it is missing. A shared root
    /// that still has the grant earlier versions gave it (`cmis:anyone: cmis:all`, with which any user could lock
    /// the others out) gets today's (`cmis:write`; administrators hold `cmis:all`).
    public func bootstrap() async throws {
        try await store.migrate()
        guard let shared = try await store.repository(id: configuration.sharedRepositoryId) else {
            _ = try await createRepository(
                id: configuration.sharedRepositoryId, name: configuration.sharedRepositoryName,
                description: configuration.sharedRepositoryDescription, owner: nil)
            return
        }
        let oldGrant = [ACE(principalId: Permission.anyone, permissions: [Permission.all.name])]
        if let root = try await store.object(repositoryId: shared.id, id: shared.rootFolderId), root.acl == oldGrant {
            var granted = root
            granted.acl = [ACE(principalId: Permission.anyone, permissions: [Permission.write.name])]
            let scope = Scope(repository: shared, caller: CallerContext(user: "system", isAdministrator: true))
            granted = touched(granted, scope, now: configuration.clock())
            try await apply(
                StoreBatch(
                    repositoryId: shared.id, expectedChangeTokens: [root.id: root.changeToken], updates: [granted],
                    changes: [change(granted, .security, granted.modifiedAt)]),
                in: scope)
        }
    }

    // MARK: Repositories

    /// The repository an operation runs in, checked against the caller.
    struct Scope: Sendable {
        let repository: StoredRepository
        let caller: CallerContext
        var id: String { repository.id }
        var rootId: String { repository.rootFolderId }
        /// MyDocuments: the owner may do everything, nobody else sees anything.
        var isPersonal: Bool { repository.owner != nil }
        var user: String { caller.user }
    }

    /// Resolves a repository id for a caller: the shared repository, the caller's own MyDocuments (created on
    /// first use), or `objectNotFound` — also for another user's MyDocuments, whose existence never shows.
    func scope(_ repositoryId: String, _ caller: CallerContext) async throws -> Scope {
        let ownId = RepositoryConfiguration.myDocumentsRepositoryId(user: caller.user)
        if let cached = repositoryCache.withLock({ $0[repositoryId] }) {
            guard cached.owner == nil || cached.owner == caller.user else { throw Self.noRepository(repositoryId) }
            return Scope(repository: cached, caller: caller)
        }
        var repository = try await store.repository(id: repositoryId)
        if repository == nil && repositoryId == ownId {
            repository = try await createMyDocuments(for: caller.user)
        }
        guard let repository, repository.owner == nil || repository.owner == caller.user else {
            throw Self.noRepository(repositoryId)
        }
        repositoryCache.withLock { $0[repository.id] = repository }
        return Scope(repository: repository, caller: caller)
    }

    static func noRepository(_ id: String) -> CMISError {
        CMISError(.objectNotFound, "There is no repository '\(id)'.")
    }

    /// The caller's MyDocuments repository, created with its root folder when missing.
    func createMyDocuments(for user: String) async throws -> StoredRepository {
        let id = RepositoryConfiguration.myDocumentsRepositoryId(user: user)
        do {
            return try await createRepository(
                id: id, name: configuration.myDocumentsName, description: "\(user)'s personal documents", owner: user)
        } catch MetadataStoreError.duplicateId {
            // Two first requests raced; the other one created it.
            guard let existing = try await store.repository(id: id) else { throw Self.noRepository(id) }
            return existing
        }
    }

    private func createRepository(
        id: String, name: String, description: String, owner: String?
    ) async throws
        -> StoredRepository
    {
        let now = configuration.clock()
        let rootId = configuration.idGenerator()
        let repository = StoredRepository(
            id: id, name: name, description: description, owner: owner, rootFolderId: rootId, createdAt: now)
        // Every user may read and write the shared repository until an administrator changes the root's ACL; only
        // administrators hold cmis:all there (``CallerContext/isAdministrator``), so nobody else can lock the
        // others out.
        let acl = owner == nil ? [ACE(principalId: Permission.anyone, permissions: [Permission.write.name])] : []
        var root = StoredObject(
            repositoryId: id, id: rootId, baseTypeId: .folder, typeId: BaseTypeId.folder.rawValue, name: name,
            parentIds: [], properties: Properties(), acl: acl, createdAt: now, modifiedAt: now)
        root.properties = stamp(root, setting: [:], by: owner ?? "system", creating: true)
        let batch = StoreBatch(
            repositoryId: id, newRepositories: [repository], inserts: [root],
            changes: [change(root, .created, now)])
        try await store.apply(batch)
        return repository
    }

    // MARK: Store access

    /// What a read of one object starts with: the caller's scope in the repository, the context's filter checked
    /// against the types, the object (or `objectNotFound`), and the caller's permission on it, which must allow
    /// reading (or `permissionDenied`).
    func readableObject(
        _ repositoryId: String, _ objectId: String, context: OperationContext, caller: CallerContext
    ) async throws -> (scope: Scope, filter: PropertyFilter, object: StoredObject, permission: Permission) {
        let scope = try await scope(repositoryId, caller)
        let filter = try PropertyFilter(context.filter, types: types)
        let object = try await load(scope, objectId)
        let granted = try await require(.read, scope, on: object, to: "read")
        return (scope, filter, object, granted)
    }

    /// The object, or `objectNotFound`.
    func load(_ scope: Scope, _ id: String) async throws -> StoredObject {
        guard !id.isEmpty, let object = try await store.object(repositoryId: scope.id, id: id) else {
            throw CMISError(.objectNotFound, "There is no object '\(id)' in repository '\(scope.id)'.")
        }
        return object
    }

    /// The folder, or `objectNotFound` / `invalidArgument` when the object is not a folder.
    func loadFolder(_ scope: Scope, _ id: String) async throws -> StoredObject {
        let object = try await load(scope, id)
        guard object.baseTypeId == .folder else {
            throw CMISError(.invalidArgument, "Object '\(id)' is a \(object.baseTypeId.rawValue), not a folder.")
        }
        return object
    }

    /// Applies a batch, translating store failures into CMIS errors, drops cached folder data it touched, and
    /// removes the blobs it released. With a scope, each change log entry keeps who could read its object then
    /// (``readers(_:of:)``), so the entry stays visible to them alone once the object is gone.
    func apply(_ batch: StoreBatch, in scope: Scope? = nil) async throws {
        var batch = batch
        if let scope {
            let objects = Dictionary((batch.inserts + batch.updates).map { ($0.id, $0) }) { _, last in last }
            for index in batch.changes.indices where batch.changes[index].readers == nil {
                guard let object = objects[batch.changes[index].objectId] else { continue }
                batch.changes[index].readers = try await readers(scope, of: object)
            }
        }
        let touchesFolders = batch.changesFolders
        let ticket = blobs.ticket()
        // Bumped once the commit is done, before the change is answered: an answer computed under the generation
        // read before it started is never current afterwards, whatever it saw.
        defer { bumpGeneration(batch.repositoryId) }
        do {
            let result = try await store.apply(batch)
            await blobs.release(result.releasedContentHashes, since: ticket)
        } catch let error as MetadataStoreError {
            blobs.discard(ticket)
            if touchesFolders { folders.invalidate(batch.repositoryId) }
            switch error {
            case .conflict(let id):
                throw CMISError(
                    .updateConflict, "Object '\(id)' was changed by someone else; read it again and retry.")
            case .nameTaken(_, let name):
                throw CMISError(
                    .nameConstraintViolation, "The folder already holds an object named '\(name)'.")
            case .notFound(let id):
                throw CMISError(.objectNotFound, "Object '\(id)' no longer exists.")
            case .duplicateId(let id):
                throw CMISError(.runtime, "Object id '\(id)' is already taken; retry.")
            case .backend(let message):
                throw CMISError(.storage, "The repository could not store the change: \(message)")
            }
        } catch {
            blobs.discard(ticket)
            if touchesFolders { folders.invalidate(batch.repositoryId) }
            throw error
        }
        if touchesFolders { folders.invalidate(batch.repositoryId) }
    }

    /// A count this engine raises after every batch it applies to the repository, committed or not, when the
    /// configuration says it is the store's sole writer (`isSoleWriter`). On a store other processes write, it also
    /// rises with every change the store's ``StoreChangeFeed`` reports, and is nil while the feed is not listening
    /// (or when the store has none): then nothing may be kept.
    public func readGeneration(repositoryId: String) -> UInt64? {
        generations.current(repositoryId)
    }

    private func bumpGeneration(_ repositoryId: String) {
        generations.bump(repositoryId)
    }

    /// A change log entry for `object`.
    func change(_ object: StoredObject, _ type: ChangeType, _ time: Date) -> StoredChange {
        StoredChange(
            repositoryId: object.repositoryId, objectId: object.id, changeType: type, time: time,
            typeId: object.typeId, baseTypeId: object.baseTypeId)
    }

    /// The page size for a caller's `maxItems`.
    func pageSize(_ maxItems: Int?) throws -> Int {
        guard let maxItems else { return configuration.defaultMaxItems }
        guard maxItems >= 0 else { throw CMISError(.invalidArgument, "maxItems must not be negative.") }
        return min(maxItems, configuration.maximumMaxItems)
    }

    func checkSkipCount(_ skipCount: Int) throws {
        guard skipCount >= 0 else { throw CMISError(.invalidArgument, "skipCount must not be negative.") }
    }
}

/// Folder names, parents and ACEs by id, per repository: enough to compute paths and inherited permissions
/// without a store read per ancestor. Dropped for a repository whenever a batch of this engine changes or deletes
/// a folder, and after `lifetime` in any case, so that engines sharing one store (several server processes on
/// PostgreSQL) see each other's folder moves, renames and ACL changes within that time.
final class FolderCache: Sendable {
    struct Entry: Sendable {
        let id: String
        let name: String
        let parentId: String?
        let acl: [ACE]
    }

    private struct Repository {
        var entries: [String: Entry] = [:]
        var generation = 0
        var started = ContinuousClock.now
    }

    private let state = Mutex<[String: Repository]>([:])
    private let lifetime: Duration

    init(lifetime: Duration) { self.lifetime = lifetime }

    func entry(_ repositoryId: String, _ id: String) -> Entry? {
        state.withLock { state in
            guard let repository = state[repositoryId] else { return nil }
            if repository.started.duration(to: .now) > lifetime {
                state[repositoryId] = Repository(generation: repository.generation + 1)
                return nil
            }
            return repository.entries[id]
        }
    }

    func generation(_ repositoryId: String) -> Int {
        state.withLock { $0[repositoryId]?.generation ?? 0 }
    }

    /// Remembers a folder read at `generation`, unless the repository's folders changed since.
    func insert(_ repositoryId: String, _ object: StoredObject, generation: Int) {
        let entry = Entry(id: object.id, name: object.name, parentId: object.parentIds.first, acl: object.acl)
        state.withLock { state in
            guard (state[repositoryId]?.generation ?? 0) == generation else { return }
            state[repositoryId, default: Repository()].entries[object.id] = entry
        }
    }

    func invalidate(_ repositoryId: String) {
        state.withLock { state in
            state[repositoryId] = Repository(generation: (state[repositoryId]?.generation ?? 0) + 1)
        }
    }

    /// Drops every repository's folders.
    func invalidateAll() {
        state.withLock { state in
            for repositoryId in state.keys {
                state[repositoryId] = Repository(generation: (state[repositoryId]?.generation ?? 0) + 1)
            }
        }
    }
}
