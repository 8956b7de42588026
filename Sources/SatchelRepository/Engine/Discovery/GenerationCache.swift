import Synchronization

/// Values read under one of a repository's change generations (``CMISRepository/readGeneration(repositoryId:)``),
/// kept while it holds: any change makes them stale. Only a store the engine is the sole writer of has a generation;
/// with none, nothing is kept.
///
/// Bounded: at most `maximumEntries` values and `maximumWeight` in all (a value's weight is what `weight` says:
/// ids, objects); the oldest go first, and a value heavier than the whole bound is not kept.
final class GenerationCache<Key: Hashable & Sendable, Value: Sendable>: Sendable {
    private struct Entry {
        var generation: UInt64
        var value: Value
        var weight: Int
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var order: [Key] = []
        var weight = 0
    }

    let maximumEntries: Int
    let maximumWeight: Int
    private let weight: @Sendable (Value) -> Int
    private let state = Mutex(State())

    init(maximumEntries: Int, maximumWeight: Int, weight: @escaping @Sendable (Value) -> Int) {
        self.maximumEntries = maximumEntries
        self.maximumWeight = maximumWeight
        self.weight = weight
    }

    /// The value kept for `key` under `generation`, or nil.
    func value(_ key: Key, generation: UInt64) -> Value? {
        state.withLock { state in
            guard let entry = state.entries[key], entry.generation == generation else { return nil }
            return entry.value
        }
    }

    /// Keeps `value` for `key`, read under `generation`.
    func keep(_ value: Value, for key: Key, generation: UInt64) {
        let added = weight(value)
        guard added <= maximumWeight else { return }
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) {
                state.weight -= old.weight
                state.order.removeAll { $0 == key }
            }
            while !state.order.isEmpty,
                state.order.count >= maximumEntries || state.weight + added > maximumWeight
            {
                let oldest = state.order.removeFirst()
                state.weight -= state.entries.removeValue(forKey: oldest)?.weight ?? 0
            }
            state.entries[key] = Entry(generation: generation, value: value, weight: added)
            state.order.append(key)
            state.weight += added
        }
    }
}

/// What a query matched, kept between its pages: the ids a statement matched for one user, in order. Paging through
/// a large result (a client reading 10,000 documents in pages of 1,000) then evaluates the statement once, not once
/// per page, and every page comes from the same snapshot. 64 results, 500,000 ids at most.
struct QueryResultKey: Hashable, Sendable {
    var repository: String
    var user: String
    /// What the user may read depends on it too (a user made administrator, or no longer one).
    var isAdministrator: Bool
    var statement: String
    var searchAllVersions: Bool
    /// A search that leaves out (or keeps to) the trash, and the trash's generation it was read under.
    var trash: TrashScope?
    var trashGeneration: UInt64 = 0

    static func cache() -> GenerationCache<QueryResultKey, [String]> {
        GenerationCache(maximumEntries: 64, maximumWeight: 500_000) { $0.count }
    }

    /// Results of at most 20,000 objects keep the objects themselves (16 results, 20,000 objects in all, as many as
    /// ``FolderContentsKey`` keeps): later pages then read nothing from the store.
    static func objectCache() -> GenerationCache<QueryResultKey, [StoredObject]> {
        GenerationCache(maximumEntries: 16, maximumWeight: 20_000) { $0.count }
    }
}

/// What a query matched, as kept between its pages (``QueryResultKey``).
enum KeptMatches {
    case objects([StoredObject])
    case ids([String])

    var count: Int {
        switch self {
        case .objects(let objects): objects.count
        case .ids(let ids): ids.count
        }
    }

    /// One page: each entry's id, and its object when it is kept.
    func page(skip: Int, limit: Int) -> [(id: String, object: StoredObject?)] {
        switch self {
        case .objects(let objects): objects.dropFirst(skip).prefix(limit).map { ($0.id, $0) }
        case .ids(let ids): ids.dropFirst(skip).prefix(limit).map { ($0, nil) }
        }
    }
}

/// A folder's children as the store gave them, for queries held to that folder (``CMISRepository/folderCandidates``):
/// the folder and document statements of one NXQL search, and searches that differ only in their other conditions,
/// read the folder once. 256 folders, 20,000 objects at most.
struct FolderContentsKey: Hashable, Sendable {
    var repository: String
    var folder: String

    static func cache() -> GenerationCache<FolderContentsKey, [StoredObject]> {
        GenerationCache(maximumEntries: 256, maximumWeight: 20_000) { $0.count }
    }
}

/// The objects of the last few pages the query engine answered, by id, while the repository's generation holds:
/// an API that asks where a page's objects are filed right after reading the page
/// (``CMISRepository/placements(repositoryId:objectIds:caller:)``, the Nuxeo API's search) finds them here instead
/// of reading and decoding them again. Four pages at most; only a sole writer's store has a generation.
final class RecentObjects: Sendable {
    private struct Page {
        var repository: String
        var generation: UInt64
        var objects: [String: StoredObject]
    }

    static let maximumPages = 4
    private let pages = Mutex<[Page]>([])

    init() {}

    /// Remembers a page read under `generation`.
    func remember(_ objects: [StoredObject], repository: String, generation: UInt64) {
        guard !objects.isEmpty else { return }
        var byId = [String: StoredObject](minimumCapacity: objects.count)
        for object in objects { byId[object.id] = object }
        let page = Page(repository: repository, generation: generation, objects: byId)
        pages.withLock { pages in
            pages.removeAll { $0.generation != generation && $0.repository == repository }
            if pages.count >= Self.maximumPages { pages.removeFirst() }
            pages.append(page)
        }
    }

    /// Those of `ids` remembered under `generation`, and the ids that are not.
    func objects(
        _ ids: [String], repository: String, generation: UInt64
    ) -> (found: [StoredObject], missing: [String]) {
        pages.withLock { pages in
            var found: [StoredObject] = []
            var missing: [String] = []
            let current = pages.filter { $0.repository == repository && $0.generation == generation }
            for id in ids {
                if let object = current.lazy.compactMap({ $0.objects[id] }).first {
                    found.append(object)
                } else {
                    missing.append(id)
                }
            }
            return (found, missing)
        }
    }
}
