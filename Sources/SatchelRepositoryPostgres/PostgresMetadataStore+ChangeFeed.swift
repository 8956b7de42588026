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
/// long after the change (docs/server.md). When the listening connection fails, or stops hearing the heartbeat it
/// sends itself through the pool every ``heartbeatInterval`` (a network that drops packets without closing, a pooler
/// in transaction mode), followers are told ``StoreChangeEvent/lost`` (and keep nothing) until it listens again, a
/// second later at the earliest.
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

    /// How often the listener checks that it still hears: a heartbeat sent through the pool must come back on the
    /// listening connection, or the connection is taken for dead (a network that drops packets without closing).
    static let heartbeatInterval = Duration.seconds(5)

    private struct Deaf: Error, CustomStringConvertible {
        var description: String { "the listening connection heard no heartbeat for two intervals" }
    }

    private final class Heard: Sendable {
        let last = Mutex(ContinuousClock.now)
    }

    private func listen() async {
        while !Task.isCancelled {
            do {
                try await client.withConnection { connection in
                    try await connection.listen(on: Self.changeChannel) { notifications in
                        self.broadcast(.following)
                        try await self.follow(notifications)
                    }
                }
            } catch {
                if !Task.isCancelled { logger.warning("stopped listening for changes: \(error)") }
            }
            broadcast(.lost)
            try? await Task.sleep(for: .seconds(1))
        }
    }

    /// Hands notifications on until the connection fails, or stops hearing its own heartbeat.
    private func follow(_ notifications: PostgresNotificationSequence) async throws {
        let heartbeat = "h:" + UUID().uuidString
        let heard = Heard()
        try await withThrowingTaskGroup(of: Void.self) { group in
            group.addTask {
                for try await notification in notifications {
                    if notification.payload == heartbeat {
                        heard.last.withLock { $0 = .now }
                    } else {
                        self.handle(notification.payload)
                    }
                }
            }
            group.addTask {
                while true {
                    try await Task.sleep(for: Self.heartbeatInterval)
                    if ContinuousClock.now - heard.last.withLock({ $0 }) > Self.heartbeatInterval * 2 { throw Deaf() }
                    _ = try? await self.rows("SELECT pg_notify(\(Self.changeChannel), \(heartbeat))")
                }
            }
            // Either ends the listening: the notifications (the connection failed) or the heartbeat (deaf).
            _ = try await group.next()
            group.cancelAll()
        }
    }

    /// One notification: a trash change (`t`), or a change of a repository's objects (`r:`) or folders (`f:`).
    private func handle(_ payload: String) {
        if payload == "t" {
            trashChanges.add(1, ordering: .relaxed)
        } else if let kind = payload.first, kind == "r" || kind == "f", payload.dropFirst().first == ":" {
            broadcast(.changed(repositoryId: String(payload.dropFirst(2)), folders: kind == "f"))
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

}
