import Foundation
import Logging
import PostgresNIO
public import SatchelRepository
import Synchronization

/// ``StoreChangeFeed`` over `LISTEN`/`NOTIFY`: every transaction that changes objects sends
/// `pg_notify('satchel_changes', 'r:' || repository)`, or `'f:' || repository` when it may have changed existing
/// folders (delivered at commit, to every listening process, this one included), every change of a trash mark sends
/// `'t'`, and one pooled connection per process listens.
///
/// A notification arrives a few milliseconds after the commit: an answer kept by another process may be served that
/// long after the change (docs/server.md). When the listening connection fails, followers are told
/// ``StoreChangeEvent/lost`` (and keep nothing) until it listens again, a second later at the earliest.
extension PostgresMetadataStore: StoreChangeFeed {
    /// The channel changes are announced on.
    static let changeChannel = "satchel_changes"

    /// Starts listening with the first follower.
    public func followChanges(_ handler: @escaping @Sendable (StoreChangeEvent) -> Void) {
        followers.withLock { followers in
            followers.handlers.append(handler)
            if followers.listener == nil {
                followers.listener = Task { [self] in await listen() }
            }
        }
    }

    private func broadcast(_ event: StoreChangeEvent) {
        // A trash mark may have changed while nobody listened, or may from now on without a word.
        if event == .following || event == .lost { trashChanges.add(1, ordering: .relaxed) }
        for handler in followers.withLock({ $0.handlers }) { handler(event) }
    }

    private func listen() async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: Self.changeChannel) { notifications in
                        self.broadcast(.following)
                        for try await notification in notifications {
                            if notification.payload == "t" {
                                self.trashChanges.add(1, ordering: .relaxed)
                            } else if let kind = notification.payload.first, kind == "r" || kind == "f",
                                notification.payload.dropFirst().first == ":"
                            {
                                self.broadcast(
                                    .changed(
                                        repositoryId: String(notification.payload.dropFirst(2)), folders: kind == "f"))
                            }
                        }
                    }
                }
            } catch {
                if !Task.isCancelled { logger.warning("stopped listening for changes: \(error)") }
            }
            broadcast(.lost)
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Announces a change of the repository's objects, inside the caller's transaction (sent at its commit).
    func announceChange(of repositoryId: String, folders: Bool, on connection: PostgresConnection) async throws {
        try await run(
            "SELECT pg_notify(\(Self.changeChannel), \(Self.announcement(repositoryId, folders: folders)))",
            on: connection)
    }

    /// The payload announcing a change of `repositoryId`.
    static func announcement(_ repositoryId: String, folders: Bool) -> String {
        (folders ? "f:" : "r:") + repositoryId
    }

    /// Announces a change of a trash mark (after its statement).
    func announceTrashChange() async throws {
        _ = try await rows("SELECT pg_notify(\(Self.changeChannel), 't')")
    }
}
