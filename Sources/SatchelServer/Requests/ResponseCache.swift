import Foundation
import Synchronization

/// Rendered answers to reads, kept while the repository they come from has not changed: the bytes a `getObject`
/// produced, found again by the caller and the exact request (path and query), and valid while the repository's
/// ``CMISService/readGeneration(repositoryId:)`` is what it was before they were computed.
///
/// A single object read then costs about what `/health` costs: no store read, no permission walk, no JSON. The
/// key holds the user, since what an object offers (allowable actions, ACL) depends on who asks; a change anywhere
/// in the repository (ACLs, moves, deletes included) makes every entry of it stale. Nothing is cached when the
/// service cannot tell (a store other processes write). Bounded in entries and bytes; the oldest go first.
final class ResponseCache: Sendable {
    struct Entry: Sendable {
        let repositoryId: String
        let generation: UInt64
        /// A JSON document.
        let body: [UInt8]
    }

    private struct State {
        var entries: [String: Entry] = [:]
        /// Keys in insertion order (may hold keys already replaced or dropped).
        var order: [String] = []
        var head = 0
        var bytes = 0
    }

    let maximumEntries: Int
    let maximumBytes: Int
    /// Larger answers are not kept.
    let maximumEntryBytes: Int
    private let state = Mutex(State())

    init(maximumEntries: Int = 8_192, maximumBytes: Int = 32 << 20, maximumEntryBytes: Int = 256 << 10) {
        self.maximumEntries = maximumEntries
        self.maximumBytes = maximumBytes
        self.maximumEntryBytes = maximumEntryBytes
    }

    static func key(user: String, pathAndQuery: String) -> String { user + "\u{0}" + pathAndQuery }

    /// The entry for `key` if its repository is still at the generation it was computed under.
    func entry(_ key: String, current: (String) -> UInt64?) -> Entry? {
        guard let entry = state.withLock({ $0.entries[key] }) else { return nil }
        guard current(entry.repositoryId) == entry.generation else {
            state.withLock { state in
                if let stored = state.entries[key], stored.generation == entry.generation {
                    state.entries[key] = nil
                    state.bytes -= stored.body.count
                }
            }
            return nil
        }
        return entry
    }

    func insert(_ key: String, _ entry: Entry) {
        guard entry.body.count <= maximumEntryBytes else { return }
        state.withLock { state in
            if let old = state.entries.updateValue(entry, forKey: key) {
                state.bytes -= old.body.count
            } else {
                state.order.append(key)
            }
            state.bytes += entry.body.count
            while state.entries.count > maximumEntries || state.bytes > maximumBytes, state.head < state.order.count {
                let oldest = state.order[state.head]
                state.head += 1
                if let removed = state.entries.removeValue(forKey: oldest) { state.bytes -= removed.body.count }
            }
            if state.head > 1_024 && state.head * 2 > state.order.count {
                state.order.removeFirst(state.head)
                state.head = 0
            }
            // Keys invalidated and stored again pile up in the order: keep each present key once.
            if state.order.count - state.head > 4 * maximumEntries + 1_024 {
                var seen: Set<String> = []
                state.order = state.order[state.head...].reversed().filter {
                    state.entries[$0] != nil && seen.insert($0).inserted
                }.reversed()
                state.head = 0
            }
        }
    }
}
