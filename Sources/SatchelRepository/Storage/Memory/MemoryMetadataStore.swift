import Foundation
public import SatchelCMISCore
import Synchronization

/// A ``MetadataStore`` in memory: for tests, and for `satchel serve --memory`. It keeps the same rules as the
/// durable stores (atomic batches, preconditions, unique names per folder) and passes the same conformance suite.
public final class MemoryMetadataStore: MetadataStore {
    private struct State {
        var repositories: [String: StoredRepository] = [:]
        /// repository id → object id → object
        var objects: [String: [String: StoredObject]] = [:]
        var changes: [StoredChange] = []
        /// The last change token of each repository.
        var lastChangeTokens: [String: Int64] = [:]
    }

    private let state = Mutex(State())

    public init() {}

    public func migrate() async throws {}

    public func repositories() async throws -> [StoredRepository] {
        state.withLock { $0.repositories.values.sorted { $0.id < $1.id } }
    }

    public func repository(id: String) async throws -> StoredRepository? {
        state.withLock { $0.repositories[id] }
    }

    public func object(repositoryId: String, id: String) async throws -> StoredObject? {
        state.withLock { $0.objects[repositoryId]?[id] }
    }

    public func objects(repositoryId: String, ids: [String]) async throws -> [StoredObject] {
        state.withLock { state in ids.compactMap { state.objects[repositoryId]?[$0] } }
    }

    public func child(repositoryId: String, folderId: String, name: String) async throws -> StoredObject? {
        state.withLock { state in
            state.objects[repositoryId]?.values.first { $0.name == name && $0.parentIds.contains(folderId) }
        }
    }

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

    public func scan(
        repositoryId: String, baseTypes: Set<BaseTypeId>?, typeIds: Set<String>?, latestOnly: Bool
    ) async throws -> [StoredObject] {
        state.withLock { state in
            (state.objects[repositoryId] ?? [:]).values.filter { object in
                (baseTypes?.contains(object.baseTypeId) ?? true) && (typeIds?.contains(object.typeId) ?? true)
                    && (!latestOnly || object.isLatestVersion || object.isPrivateWorkingCopy)
            }.sorted { $0.id < $1.id }
        }
    }

    public func versions(repositoryId: String, versionSeriesId: String) async throws -> [StoredObject] {
        state.withLock { state in
            (state.objects[repositoryId] ?? [:]).values.filter { $0.versionSeriesId == versionSeriesId }
                .sorted { ($0.createdAt, $0.changeToken, $0.id) > ($1.createdAt, $1.changeToken, $1.id) }
        }
    }

    public func relationships(repositoryId: String, objectId: String) async throws -> [StoredObject] {
        state.withLock { state in
            (state.objects[repositoryId] ?? [:]).values.filter {
                $0.baseTypeId == .relationship && ($0.sourceId == objectId || $0.targetId == objectId)
            }.sorted { $0.id < $1.id }
        }
    }

    public func changes(repositoryId: String, after token: Int64?, limit: Int) async throws -> [StoredChange] {
        state.withLock { state in
            Array(
                state.changes.lazy.filter { $0.repositoryId == repositoryId && $0.token > (token ?? 0) }
                    .prefix(max(limit, 0)))
        }
    }

    public func latestChangeToken(repositoryId: String) async throws -> Int64? {
        state.withLock { state in state.lastChangeTokens[repositoryId] }
    }

    public func referencedContentHashes() async throws -> Set<String> {
        state.withLock { state in
            Set(state.objects.values.flatMap { $0.values.compactMap(\.content?.hash) })
        }
    }

    public func isContentReferenced(_ hash: String) async throws -> Bool {
        state.withLock { state in state.objects.values.contains { $0.values.contains { $0.content?.hash == hash } } }
    }

    @discardableResult
    public func apply(_ batch: StoreBatch) async throws -> StoreBatchResult {
        try state.withLock { (state: inout State) throws(StoreError) -> StoreBatchResult in
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
            for id in batch.deletes {
                guard let old = objects.removeValue(forKey: id) else { throw .notFound(objectId: id) }
                if let hash = old.content?.hash { dropped.insert(hash) }
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
            for var change in batch.changes {
                change.token = (next.lastChangeTokens[change.repositoryId] ?? 0) + 1
                next.lastChangeTokens[change.repositoryId] = change.token
                next.changes.append(change)
            }
            state = next
            let referenced = dropped.filter { hash in
                next.objects.values.contains { $0.values.contains { $0.content?.hash == hash } }
            }
            return StoreBatchResult(releasedContentHashes: dropped.subtracting(referenced))
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
