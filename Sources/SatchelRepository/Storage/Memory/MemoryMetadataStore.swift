public import Foundation
public import SatchelCMISCore
import Synchronization

/// A ``MetadataStore`` in memory: for tests, and for `satchel serve --memory`. It keeps the same rules as the
/// durable stores (atomic batches, preconditions, unique names per folder) and passes the same conformance suite.
public final class MemoryMetadataStore: MetadataStore {
    struct State {
        var repositories: [String: StoredRepository] = [:]
        /// repository id → object id → object
        var objects: [String: [String: StoredObject]] = [:]
        var changes: [StoredChange] = []
        /// The last change token of each repository.
        var lastChangeTokens: [String: Int64] = [:]
        /// ``ServerStateStore``: marks by (repository, key), grants by digest.
        var locks: [MarkKey: DocumentLock] = [:]
        var trash: [MarkKey: TrashMark] = [:]
        var grants: [String: AccessGrant] = [:]
        var trashGeneration: UInt64 = 0
        /// ``UploadBatchStore``: batches by id.
        var uploads: [String: UploadBatch] = [:]
        /// ``SessionStore``: secrets by name, sessions by digest, failed-login counts by key.
        var secrets: [String: [UInt8]] = [:]
        var sessions: [String: StoredSession] = [:]
        var loginFailures: [String: LoginFailures] = [:]

        /// Whether an object's content or a batch's chunk is the blob `hash`.
        func refers(to hash: String) -> Bool {
            objects.values.contains { $0.values.contains { $0.content?.hash == hash } }
                || uploads.values.contains {
                    $0.files.values.contains { $0.chunks.values.contains { $0.hash == hash } }
                }
        }

        /// Those of `hashes` nothing refers to.
        func unreferenced(_ hashes: some Sequence<String>) -> Set<String> {
            Set(hashes.filter { !refers(to: $0) })
        }
    }

    struct MarkKey: Hashable {
        var repository: String
        var key: String
    }

    private let state = Mutex(State())
    /// The offline middle tier's row state (``OfflineTierStore``), apart from the objects' state.
    let offline = Mutex([OfflineQueryID: MemoryOfflineQuery]())
    /// The offline middle tier's upload ledger (``OfflineUploadLedger``).
    let ledger = Mutex(MemoryUploadLedger())

    /// An empty store.
    public init() {}

    /// Does nothing: memory has no schema.
    public func migrate() async throws {}

    /// Every repository, ordered by id.
    public func repositories() async throws -> [StoredRepository] {
        state.withLock { $0.repositories.values.sorted { $0.id < $1.id } }
    }

    /// A dictionary lookup.
    public func repository(id: String) async throws -> StoredRepository? {
        state.withLock { $0.repositories[id] }
    }

    /// A dictionary lookup.
    public func object(repositoryId: String, id: String) async throws -> StoredObject? {
        state.withLock { $0.objects[repositoryId]?[id] }
    }

    /// The objects found, in the order of `ids`.
    public func objects(repositoryId: String, ids: [String]) async throws -> [StoredObject] {
        state.withLock { state in ids.compactMap { state.objects[repositoryId]?[$0] } }
    }

    /// A search of the repository's objects.
    public func child(repositoryId: String, folderId: String, name: String) async throws -> StoredObject? {
        state.withLock { state in
            state.objects[repositoryId]?.values.first { $0.name == name && $0.parentIds.contains(folderId) }
        }
    }

    /// Filters and sorts the repository's objects on every call (ties broken by id).
    public func children(
        repositoryId: String, folderId: String, order: [StoreOrder], offset: Int, limit: Int?
    ) async throws -> StoredPage {
        let all = state.withLock { state in
            (state.objects[repositoryId] ?? [:]).values.filter { $0.parentIds.contains(folderId) }
        }
        let sorted = all.sorted { Self.precedes($0, $1, order: order) }
        let start = min(max(offset, 0), sorted.count)
        let end = limit.map { min(start + max($0, 0), sorted.count) } ?? sorted.count
        return StoredPage(objects: Array(sorted[start..<end]), totalCount: sorted.count)
    }

    /// Ordered by id; the trash scope is decided by this store's own marks.
    public func scan(
        repositoryId: String, baseTypes: Set<BaseTypeId>?, typeIds: Set<String>?, latestOnly: Bool,
        trash: TrashScope?
    ) async throws -> [StoredObject] {
        state.withLock { state in
            (state.objects[repositoryId] ?? [:]).values.filter { object in
                guard
                    (baseTypes?.contains(object.baseTypeId) ?? true) && (typeIds?.contains(object.typeId) ?? true)
                        && (!latestOnly || object.isLatestVersion || object.isPrivateWorkingCopy)
                else { return false }
                guard let trash else { return true }
                let key = MarkKey(repository: repositoryId, key: object.versionSeriesId ?? object.id)
                return (state.trash[key] != nil) == (trash == .trashed)
            }.sorted { $0.id < $1.id }
        }
    }

    /// Ordered by creation time, then change token, then id, newest first.
    public func versions(repositoryId: String, versionSeriesId: String) async throws -> [StoredObject] {
        state.withLock { state in
            (state.objects[repositoryId] ?? [:]).values.filter { $0.versionSeriesId == versionSeriesId }
                .sorted { ($0.createdAt, $0.changeToken, $0.id) > ($1.createdAt, $1.changeToken, $1.id) }
        }
    }

    /// Ordered by id.
    public func relationships(repositoryId: String, objectId: String) async throws -> [StoredObject] {
        state.withLock { state in
            (state.objects[repositoryId] ?? [:]).values.filter {
                $0.baseTypeId == .relationship && ($0.sourceId == objectId || $0.targetId == objectId)
            }.sorted { $0.id < $1.id }
        }
    }

    /// Read from the one change list of every repository; none when `limit` is 0 or less.
    public func changes(repositoryId: String, after token: Int64?, limit: Int) async throws -> [StoredChange] {
        state.withLock { state in
            Array(
                state.changes.lazy.filter { $0.repositoryId == repositoryId && $0.token > (token ?? 0) }
                    .prefix(max(limit, 0)))
        }
    }

    /// The last token this store assigned in the repository.
    public func latestChangeToken(repositoryId: String) async throws -> Int64? {
        state.withLock { state in state.lastChangeTokens[repositoryId] }
    }

    /// Collected from every object of every repository and every upload batch's chunks.
    public func referencedContentHashes() async throws -> Set<String> {
        state.withLock { state in
            Set(state.objects.values.flatMap { $0.values.compactMap(\.content?.hash) })
                .union(state.uploads.values.flatMap { $0.files.values.flatMap { $0.chunks.values.map(\.hash) } })
        }
    }

    /// A search of every object of every repository and every upload batch's chunks.
    public func isContentReferenced(_ hash: String) async throws -> Bool {
        state.withLock { $0.refers(to: hash) }
    }

    /// The state's lock, for the store's extensions.
    func withState<T: Sendable>(_ body: (inout State) -> T) -> T {
        state.withLock { body(&$0) }
    }

    /// Works on a copy of the state under the store's lock and keeps it only when every check passed: preconditions,
    /// deletes, updates, inserts, then the names of every object written.
    @discardableResult
    public func apply(_ batch: StoreBatch) async throws -> StoreBatchResult {
        try state.withLock { (state: inout State) throws(MetadataStoreError) -> StoreBatchResult in
            var next = state
            var dropped: Set<String> = []
            for repository in batch.newRepositories {
                guard next.repositories[repository.id] == nil else { throw .duplicateId(repository.id) }
                next.repositories[repository.id] = repository
            }
            var objects = next.objects[batch.repositoryId] ?? [:]
            for (id, token) in batch.expectedChangeTokens {
                guard let current = objects[id] else { throw .notFound(objectId: id) }
                guard current.changeToken == token else { throw .conflict(objectId: id) }
            }
            var markKeys: Set<String> = []
            for id in batch.deletes {
                guard let old = objects.removeValue(forKey: id) else { throw .notFound(objectId: id) }
                if let hash = old.content?.hash { dropped.insert(hash) }
                markKeys.insert(id)
                if let series = old.versionSeriesId { markKeys.insert(series) }
            }
            for object in batch.updates {
                guard let old = objects[object.id] else { throw .notFound(objectId: object.id) }
                if let hash = old.content?.hash, hash != object.content?.hash { dropped.insert(hash) }
                objects[object.id] = object
            }
            for object in batch.inserts {
                guard objects[object.id] == nil else { throw .duplicateId(object.id) }
                objects[object.id] = object
            }
            // Names stay unique per folder.
            let touched = batch.updates + batch.inserts
            for object in touched {
                for folder in object.parentIds {
                    let clash = objects.values.contains {
                        $0.id != object.id && $0.name == object.name && $0.parentIds.contains(folder)
                    }
                    if clash { throw .nameTaken(folderId: folder, name: object.name) }
                }
            }
            next.objects[batch.repositoryId] = objects
            if !markKeys.isEmpty {
                // Marks whose last object went with this batch: keyed by an id or a version series nothing has now.
                let live = Set(objects.values.flatMap { [$0.id, $0.versionSeriesId].compactMap { $0 } })
                for key in markKeys where !live.contains(key) {
                    let mark = MarkKey(repository: batch.repositoryId, key: key)
                    next.locks[mark] = nil
                    if next.trash.removeValue(forKey: mark) != nil { next.trashGeneration &+= 1 }
                }
            }
            for var change in batch.changes {
                change.token = (next.lastChangeTokens[change.repositoryId] ?? 0) + 1
                next.lastChangeTokens[change.repositoryId] = change.token
                next.changes.append(change)
            }
            state = next
            return StoreBatchResult(releasedContentHashes: next.unreferenced(dropped))
        }
    }

    /// The order of two children under the given sort keys, then by id.
    static func precedes(_ lhs: StoredObject, _ rhs: StoredObject, order: [StoreOrder]) -> Bool {
        for key in order {
            let comparison: ComparisonResult
            switch key.field {
            case .name: comparison = compare(lhs.name, rhs.name)
            case .createdAt: comparison = compare(lhs.createdAt, rhs.createdAt)
            case .modifiedAt: comparison = compare(lhs.modifiedAt, rhs.modifiedAt)
            case .typeId: comparison = compare(lhs.typeId, rhs.typeId)
            case .baseTypeId: comparison = compare(lhs.baseTypeId.rawValue, rhs.baseTypeId.rawValue)
            case .contentLength: comparison = compare(lhs.content?.length ?? -1, rhs.content?.length ?? -1)
            }
            if comparison != .orderedSame {
                return key.ascending ? comparison == .orderedAscending : comparison == .orderedDescending
            }
        }
        return lhs.id < rhs.id
    }

    private static func compare<T: Comparable>(_ lhs: T, _ rhs: T) -> ComparisonResult {
        lhs < rhs ? .orderedAscending : (lhs == rhs ? .orderedSame : .orderedDescending)
    }
}

extension MemoryMetadataStore: ServerStateStore {
    /// Under the store's lock: nothing changes between the look and the change.
    public func lock(repositoryId: String, key: String, owner: String, at time: Date) async throws -> LockOutcome {
        state.withLock { state in
            let mark = MarkKey(repository: repositoryId, key: key)
            if let existing = state.locks[mark] { return .alreadyLocked(existing) }
            let lock = DocumentLock(owner: owner, created: time)
            state.locks[mark] = lock
            return .locked(lock)
        }
    }

    /// Under the store's lock.
    public func unlock(repositoryId: String, key: String, owner: String, override: Bool) async throws -> UnlockOutcome {
        state.withLock { state in
            let mark = MarkKey(repository: repositoryId, key: key)
            guard let existing = state.locks[mark] else { return .notLocked }
            guard existing.owner == owner || override else { return .lockedByOther(existing) }
            state.locks[mark] = nil
            return .unlocked
        }
    }

    /// The keys that are locked, with their locks.
    public func locks(repositoryId: String, keys: [String]) async throws -> [String: DocumentLock] {
        state.withLock { state in
            var result: [String: DocumentLock] = [:]
            for key in keys { result[key] = state.locks[MarkKey(repository: repositoryId, key: key)] }
            return result
        }
    }

    /// The first `limit` locks held by others, in key order.
    public func locks(repositoryId: String, notOwnedBy owner: String, limit: Int) async throws -> [String: DocumentLock]
    {
        state.withLock { state in
            var result: [String: DocumentLock] = [:]
            for (mark, lock) in state.locks.sorted(by: { $0.key.key < $1.key.key })
            where mark.repository == repositoryId && lock.owner != owner && result.count < limit {
                result[mark.key] = lock
            }
            return result
        }
    }

    /// Counts a change of the trash generation when the mark is new.
    public func trash(_ mark: TrashMark) async throws -> Bool {
        state.withLock { state in
            let key = MarkKey(repository: mark.repositoryId, key: mark.key)
            guard state.trash[key] == nil else { return false }
            state.trash[key] = mark
            state.trashGeneration &+= 1
            return true
        }
    }

    /// Counts a change of the trash generation when there was a mark.
    public func untrash(repositoryId: String, key: String) async throws -> Bool {
        state.withLock { state in
            guard state.trash.removeValue(forKey: MarkKey(repository: repositoryId, key: key)) != nil else {
                return false
            }
            state.trashGeneration &+= 1
            return true
        }
    }

    /// The keys that are in the trash, with their marks.
    public func trashMarks(repositoryId: String, keys: [String]) async throws -> [String: TrashMark] {
        state.withLock { state in
            var result: [String: TrashMark] = [:]
            for key in keys { result[key] = state.trash[MarkKey(repository: repositoryId, key: key)] }
            return result
        }
    }

    /// Sorted; none when `limit` is 0 or less.
    public func trashKeys(repositoryId: String, limit: Int) async throws -> [String] {
        state.withLock { state in
            Array(state.trash.keys.filter { $0.repository == repositoryId }.map(\.key).sorted().prefix(max(limit, 0)))
        }
    }

    /// A search of every trash mark.
    public func holdsTrash(repositoryId: String, folderId: String) async throws -> Bool {
        state.withLock { state in
            state.trash.values.contains { $0.repositoryId == repositoryId && $0.parentId == folderId }
        }
    }

    /// Does nothing when `key` is not in the trash.
    public func moveTrashMark(repositoryId: String, key: String, to folderId: String) async throws {
        state.withLock { state in
            state.trash[MarkKey(repository: repositoryId, key: key)]?.parentId = folderId
        }
    }

    /// Counts a change of the trash generation for each mark removed.
    public func forgetMarks(repositoryId: String, keys: [String]) async throws {
        state.withLock { state in
            for key in keys {
                let mark = MarkKey(repository: repositoryId, key: key)
                state.locks[mark] = nil
                if state.trash.removeValue(forKey: mark) != nil { state.trashGeneration &+= 1 }
            }
        }
    }

    /// Counts this store's changes of trash marks, the marks its batches forgot included.
    public var trashGeneration: UInt64 { state.withLock { $0.trashGeneration } }

    /// Under the store's lock: the count and the change are one step.
    public func issue(_ grant: AccessGrant, maximumPerUser: Int) async throws -> Bool {
        state.withLock { state in
            var grants = state.grants.filter {
                !($0.value.user == grant.user && $0.value.application == grant.application
                    && $0.value.device == grant.device)
            }
            guard grants.values.count(where: { $0.user == grant.user }) < maximumPerUser else { return false }
            grants[grant.digest] = grant
            state.grants = grants
            return true
        }
    }

    /// Removes every grant of that user, application and device.
    public func revokeGrant(user: String, application: String, device: String) async throws -> Bool {
        state.withLock { state in
            let before = state.grants.count
            state.grants = state.grants.filter {
                !($0.value.user == user && $0.value.application == application && $0.value.device == device)
            }
            return state.grants.count != before
        }
    }

    /// A dictionary lookup.
    public func grant(digest: String) async throws -> AccessGrant? {
        state.withLock { $0.grants[digest] }
    }

    /// Ordered by creation time, then digest.
    public func grants(user: String) async throws -> [AccessGrant] {
        state.withLock { $0.grants.values.filter { $0.user == user } }.sorted {
            ($0.created, $0.digest) < ($1.created, $1.digest)
        }
    }
}
