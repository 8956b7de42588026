import Crypto
import Foundation
import Synchronization

/// Which blobs requests are using but have not committed yet, and when that last changed.
///
/// A blob is *pinned* from the moment an upload is about to store it until the request that holds its ``BlobLease``
/// is done. A blob may only be removed when nothing refers to it in the metadata store *and* no request claimed it:
/// an upload of the same bytes may be between "the blob is stored" and "the object referring to it is committed".
/// Removal checks the store first, then, under this lock, that the blob is not pinned and was not pinned or unpinned
/// since a ``Ticket`` taken before the check; it is then marked as being removed until the back-end has removed it,
/// and an upload of the same bytes pinned meanwhile waits for that before it stores them
/// (``waitWhileRemoving(_:)``).
final class BlobClaims: Sendable {
    /// A point in the sequence of pin events.
    struct Ticket: Sendable, Hashable {
        fileprivate let epoch: UInt64
    }

    private struct State {
        var epoch: UInt64 = 0
        var pins: [String: Int] = [:]
        /// The epoch of each blob's last pin or unpin, kept while an older ticket is open.
        var lastEvent: [String: UInt64] = [:]
        var openTickets: [UInt64: Int] = [:]
        /// Blobs the janitor is removing now.
        var removing: Set<String> = []
        /// Who waits for a removal to end, by blob.
        var waiters: [String: [CheckedContinuation<Void, Never>]] = [:]
        /// SHA-256 states after a blob's bytes, so an append hashes only the new bytes (most recent last).
        var hashStates: [(hash: String, state: SHA256)] = []
    }

    private let state = Mutex(State())
    static let hashStateCapacity = 64

    func openTicket() -> Ticket {
        state.withLock { state in
            state.openTickets[state.epoch, default: 0] += 1
            return Ticket(epoch: state.epoch)
        }
    }

    func close(_ ticket: Ticket) {
        state.withLock { state in
            if let count = state.openTickets[ticket.epoch], count > 1 {
                state.openTickets[ticket.epoch] = count - 1
            } else {
                state.openTickets[ticket.epoch] = nil
            }
            Self.prune(&state)
        }
    }

    /// Pins `hash`. Before storing its bytes, the caller waits for a removal in progress (``waitWhileRemoving(_:)``).
    func pin(_ hash: String) {
        state.withLock { state in
            state.epoch += 1
            state.pins[hash, default: 0] += 1
            state.lastEvent[hash] = state.epoch
        }
    }

    /// Runs `body` under the lock and, when it returns, pins `hash` in the same step (so no removal slips between
    /// the two); returns nil without running it while `hash` is being removed. `body` must not call back into the
    /// claims.
    func pinningUnlessRemoving<T, Failure: Error>(
        _ hash: String, _ body: () throws(Failure) -> T
    ) throws(Failure) -> T? {
        try state.withLock { (state: inout State) throws(Failure) -> T? in
            guard !state.removing.contains(hash) else { return nil }
            let result = try body()
            state.epoch += 1
            state.pins[hash, default: 0] += 1
            state.lastEvent[hash] = state.epoch
            return result
        }
    }

    func unpin(_ hash: String) {
        state.withLock { state in
            state.epoch += 1
            if let count = state.pins[hash], count > 1 { state.pins[hash] = count - 1 } else { state.pins[hash] = nil }
            state.lastEvent[hash] = state.epoch
            Self.prune(&state)
        }
    }

    /// What ``beginRemoval(_:since:)`` found.
    enum Removal {
        /// Marked as being removed: remove it, then call ``endRemoval(_:)``.
        case started
        /// Pinned now, or pinned or unpinned since the ticket: leave it.
        case claimed
        /// Another removal of it is under way.
        case underWay
    }

    /// Marks `hash` as being removed when it is not pinned, was not pinned or unpinned since `ticket`, and is not
    /// being removed already.
    func beginRemoval(_ hash: String, since ticket: Ticket) -> Removal {
        state.withLock { state in
            guard !state.removing.contains(hash) else { return .underWay }
            guard state.pins[hash] == nil, (state.lastEvent[hash] ?? 0) <= ticket.epoch else { return .claimed }
            state.removing.insert(hash)
            return .started
        }
    }

    /// Ends a removal and wakes whoever waits for it.
    func endRemoval(_ hash: String) {
        let waiting = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.removing.remove(hash)
            return state.waiters.removeValue(forKey: hash) ?? []
        }
        for waiter in waiting { waiter.resume() }
    }

    /// Returns once no removal of `hash` is in progress (at once when none is). A removal cannot begin while the
    /// caller holds a pin, so after this the bytes can be stored without a removal undoing them. Not cut short by
    /// cancellation: the removal ends on its own.
    func waitWhileRemoving(_ hash: String) async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let now = state.withLock { state -> Bool in
                guard state.removing.contains(hash) else { return true }
                state.waiters[hash, default: []].append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func isPinned(_ hash: String) -> Bool { state.withLock { $0.pins[hash] != nil } }

    func hashState(after hash: String) -> SHA256? {
        state.withLock { state in state.hashStates.last { $0.hash == hash }?.state }
    }

    func remember(_ hasher: SHA256, after hash: String) {
        state.withLock { state in
            state.hashStates.removeAll { $0.hash == hash }
            state.hashStates.append((hash, hasher))
            if state.hashStates.count > Self.hashStateCapacity { state.hashStates.removeFirst() }
        }
    }

    /// Forgets events no open ticket can ask about.
    private static func prune(_ state: inout State) {
        guard let oldest = state.openTickets.keys.min() else {
            state.lastEvent.removeAll(keepingCapacity: true)
            return
        }
        if state.lastEvent.count > 1_024 { state.lastEvent = state.lastEvent.filter { $0.value > oldest } }
    }
}
