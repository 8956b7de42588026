import Synchronization

/// The engine's read generations (``CMISRepository/readGeneration(repositoryId:)``): a number per repository that
/// changes whenever the repository may have changed, so that what was computed under one number is current while
/// the number holds.
///
/// A sole writer counts its own batches. An engine that shares its store counts them too, and the changes the store's
/// ``StoreChangeFeed`` reports from other processes; it has no generation (nothing is kept) while the feed is not
/// listening, and every number moves on when the feed listens again, since changes in between went unreported.
final class StoreGenerations: Sendable {
    private struct State {
        var perRepository: [String: UInt64] = [:]
        /// Raised whenever the feed is lost or found: added to every repository's count.
        var epoch: UInt64 = 0
        var live: Bool
    }

    private let state: Mutex<State>

    /// Generations that are `live` from the start (a sole writer), or once a feed says it follows.
    init(live: Bool) {
        state = Mutex(State(live: live))
    }

    /// The repository's generation, or nil while changes may go unseen. Both parts only grow, so a number never
    /// comes back.
    func current(_ repositoryId: String) -> UInt64? {
        state.withLock { state in
            state.live ? (state.perRepository[repositoryId] ?? 0) &+ state.epoch : nil
        }
    }

    /// Counts a change of the repository.
    func bump(_ repositoryId: String) {
        state.withLock { $0.perRepository[repositoryId, default: 0] &+= 1 }
    }

    /// Follows a store's feed.
    func handle(_ event: StoreChangeEvent) {
        switch event {
        case .following:
            state.withLock { state in
                state.epoch &+= 1
                state.live = true
            }
        case .lost:
            state.withLock { state in
                state.epoch &+= 1
                state.live = false
            }
        case .changed(let repositoryId, _):
            bump(repositoryId)
        }
    }
}
