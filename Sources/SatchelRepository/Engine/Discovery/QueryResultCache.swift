import Synchronization

/// What a query matched, kept between its pages: the ids a statement matched for one user, in order, while the
/// repository's change generation (``CMISRepository/readGeneration(repositoryId:)``) is the one they were read
/// under. Paging through a large result (a client reading 10,000 documents in pages of 1,000) then evaluates the
/// statement once, not once per page, and every page comes from the same snapshot. Only a store the engine is the
/// sole writer of has a generation; with none, nothing is kept.
///
/// Bounded: at most ``maximumEntries`` results and ``maximumIds`` ids in all; the oldest go first.
final class QueryResultCache: Sendable {
    struct Key: Hashable {
        var repository: String
        var user: String
        /// What the user may read depends on it too (a user made administrator, or no longer one).
        var isAdministrator: Bool
        var statement: String
        var searchAllVersions: Bool
    }

    private struct Entry {
        var generation: UInt64
        var ids: [String]
    }

    private struct State {
        var entries: [Key: Entry] = [:]
        var order: [Key] = []
        var idCount = 0
    }

    static let maximumEntries = 64
    static let maximumIds = 500_000

    private let state = Mutex(State())

    /// The ids kept for `key` under `generation`, or nil.
    func ids(_ key: Key, generation: UInt64) -> [String]? {
        state.withLock { state in
            guard let entry = state.entries[key], entry.generation == generation else { return nil }
            return entry.ids
        }
    }

    /// Keeps `ids` for `key`, read under `generation` (nothing when they alone are more than the bound).
    func keep(_ ids: [String], for key: Key, generation: UInt64) {
        guard ids.count <= Self.maximumIds else { return }
        state.withLock { state in
            if let old = state.entries.removeValue(forKey: key) {
                state.idCount -= old.ids.count
                state.order.removeAll { $0 == key }
            }
            while !state.order.isEmpty,
                state.order.count >= Self.maximumEntries || state.idCount + ids.count > Self.maximumIds
            {
                let oldest = state.order.removeFirst()
                state.idCount -= state.entries.removeValue(forKey: oldest)?.ids.count ?? 0
            }
            state.entries[key] = Entry(generation: generation, ids: ids)
            state.order.append(key)
            state.idCount += ids.count
        }
    }
}
