import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

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
    /// Where blob files are: a closure, since the store that owns them is a value.
    private let path: @Sendable (String) -> String

    init(claims: BlobClaims, path: @escaping @Sendable (String) -> String) {
        self.claims = claims
        self.path = path
    }

    func connect(isReferenced: @escaping @Sendable (String) async throws -> Bool, grace: Duration) {
        connection.withLock { $0 = Connection(isReferenced: isReferenced, grace: grace) }
    }

    /// Removes the blobs a commit released; `ticket` was taken before the commit.
    func release(_ hashes: Set<String>, since ticket: BlobClaims.Ticket) {
        guard let grace = connection.withLock({ $0?.grace }) else { return }
        for hash in hashes { remove(hash, since: ticket, grace: grace) }
    }

    /// Checks, off the caller's path, whether anything refers to `hash`, and removes the blob when nothing does.
    func settle(_ hash: String) {
        guard let connection = connection.withLock({ $0 }) else { return }
        Task.detached { [self] in
            let ticket = claims.openTicket()
            defer { claims.close(ticket) }
            guard let referenced = try? await connection.isReferenced(hash), !referenced else { return }
            remove(hash, since: ticket, grace: connection.grace)
        }
    }

    /// Removes the blob unless a request claimed it since `ticket`. With a grace (another server process may share
    /// the blob folder and be about to commit a reference this process cannot see), a blob written or claimed
    /// within it is checked again once the grace has passed.
    private func remove(_ hash: String, since ticket: BlobClaims.Ticket, grace: Duration) {
        let file = path(hash)
        var young = false
        let removable = claims.ifUnclaimed(hash, since: ticket) {
            if grace > .zero, let modified = Self.modificationTime(file),
                Date().timeIntervalSince(modified) < Self.seconds(grace)
            {
                young = true
                return
            }
            unlink(file)
        }
        // Claimed since the ticket but not held now: the claim's own check may have run before this commit, so
        // check again (once: a new check's ticket comes after every claim so far).
        if !removable && !claims.isPinned(hash) {
            settle(hash)
            return
        }
        guard young else { return }
        Task.detached { [self] in
            try? await Task.sleep(for: grace + .seconds(1))
            settle(hash)
        }
    }

    private static func modificationTime(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }

    private static func seconds(_ duration: Duration) -> TimeInterval {
        Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
    }
}
