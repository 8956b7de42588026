import Foundation
import Synchronization

/// Removes blobs soon after the last reference to them goes: when a commit releases them (the metadata store says
/// which, from inside its transaction), and when a request's ``BlobLease`` ends without anything referring to its
/// blob (an upload that was refused, or replaced before it was committed).
///
/// Until ``connect(isReferenced:grace:)`` tells it how to ask the metadata store, it removes nothing; blobs
/// are then only collected at start-up (``BlobStore/collectGarbage(keeping:olderThan:)``).
final class BlobJanitor: Sendable {
    private struct Connection {
        var isReferenced: @Sendable (String) async throws -> Bool
        var grace: Duration
    }

    private let claims: BlobClaims
    private let connection = Mutex<Connection?>(nil)
    private let backend: any BlobBackend

    init(claims: BlobClaims, backend: any BlobBackend) {
        self.claims = claims
        self.backend = backend
    }

    func connect(isReferenced: @escaping @Sendable (String) async throws -> Bool, grace: Duration) {
        connection.withLock { $0 = Connection(isReferenced: isReferenced, grace: grace) }
    }

    /// Removes the blobs a commit released; `ticket` was taken before the commit.
    func release(_ hashes: Set<String>, since ticket: BlobClaims.Ticket) async {
        guard let grace = connection.withLock({ $0?.grace }) else { return }
        for hash in hashes { await remove(hash, since: ticket, grace: grace) }
    }

    /// Checks, off the caller's path, whether anything refers to `hash`, and removes the blob when nothing does.
    func settle(_ hash: String) {
        guard let connection = connection.withLock({ $0 }) else { return }
        Task.detached { [self] in
            let ticket = claims.openTicket()
            defer { claims.close(ticket) }
            guard let referenced = try? await connection.isReferenced(hash), !referenced else { return }
            await remove(hash, since: ticket, grace: connection.grace)
        }
    }

    /// Removes the blob unless a request claimed it since `ticket`. With a grace (other server processes may share
    /// the blobs and be about to commit a reference this process cannot see), a blob written within it, or whose
    /// date cannot be read now, is checked again once the grace has passed: an unanswered question never removes.
    private func remove(_ hash: String, since ticket: BlobClaims.Ticket, grace: Duration) async {
        if grace > .zero {
            let written: Date?
            do {
                written = try await backend.lastWritten(hash)
            } catch {
                recheck(hash, after: grace)
                return
            }
            guard let written else { return }  // already gone
            if Date().timeIntervalSince(written) < Self.seconds(grace) {
                recheck(hash, after: grace)
                return
            }
        }
        switch claims.beginRemoval(hash, since: ticket) {
        case .started:
            defer { claims.endRemoval(hash) }
            // A failed removal leaves an unreferenced blob, which a later start-up's collection removes.
            try? await backend.remove(hash)
        case .claimed:
            // Claimed since the ticket but not held now: the claim's own check may have run before this commit, so
            // check again (once: a new check's ticket comes after every claim so far).
            if !claims.isPinned(hash) { settle(hash) }
        case .underWay:
            break  // another removal of the same blob is doing it
        }
    }

    private func recheck(_ hash: String, after grace: Duration) {
        Task.detached { [self] in
            try? await Task.sleep(for: grace + .seconds(1))
            settle(hash)
        }
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
