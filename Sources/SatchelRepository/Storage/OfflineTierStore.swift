public import Foundation

/// The offline middle tier's row state (docs/offline-server.md, "Reads and deltas"), in the server's store beside
/// the repositories: per defining query and scope, every row's key, the hash of its content, the content itself,
/// the *version* at which it last changed, and the rows removed, so that a client holding version `n` receives only
/// what changed after `n`, whether or not the back-end tracks changes. Implemented by ``SQLiteMetadataStore``,
/// ``MemoryMetadataStore`` and the PostgreSQL store (`SatchelRepositoryPostgres`).
///
/// Each refresh is one transaction: a reader sees the query before or after it, never half of it.
public protocol OfflineTierStore: Sendable {
    /// The query's state; nil before its first refresh.
    func offlineState(_ query: OfflineQueryID) async throws -> OfflineQueryState?
    /// Applies a full read of the query: rows whose hash is new or differs get the next version, rows the read no
    /// longer holds are marked removed at it. Nothing changed: the version stays.
    func applyFullRead(
        _ query: OfflineQueryID, rows: [OfflineRow], at time: Date, backendDeltaLink: String?
    ) async throws -> OfflineRefresh
    /// Applies a back-end delta: `upserts` whose hash differs get the next version, `removedKeys` are marked removed.
    func applyDelta(
        _ query: OfflineQueryID, upserts: [OfflineRow], removedKeys: [String], at time: Date, backendDeltaLink: String?
    ) async throws -> OfflineRefresh
    /// The query's current rows (not removed), in key order, after `key` (nil: from the start), at most `limit`.
    func offlineRows(_ query: OfflineQueryID, after key: String?, limit: Int) async throws -> [OfflineRow]
    /// What changed after `version`, ordered by the version of each change and then by key, at most `limit`
    /// entries: rows changed or added, and the keys of rows removed. `key` is nil for the first page, else the
    /// ``OfflineChanges/continuation`` of the page before. Throws `OfflineTierError.tokenExpired` when `version` is older than the oldest
    /// removal still remembered.
    func offlineChanges(
        _ query: OfflineQueryID, since version: Int64, after key: String?, limit: Int
    ) async throws -> OfflineChanges
    /// Forgets removal markers made before `time` (a delta token older than them can no longer be answered).
    /// Returns how many were forgotten.
    func forgetRemovals(_ query: OfflineQueryID, before time: Date) async throws -> Int
    /// Records that `client` (a user name) was given `query` up to `version`: the client's sync point, for the
    /// operator's view.
    func recordSyncPoint(_ query: OfflineQueryID, client: String, version: Int64, at time: Date) async throws
    /// Every defining query's state and its clients' sync points, ordered by endpoint, query and scope.
    func offlineOverview() async throws -> [OfflineQueryOverview]
}

/// One defining query as the operator sees it (`satchel serve offline-status`).
public struct OfflineQueryOverview: Sendable, Hashable {
    /// The defining query.
    public var query: OfflineQueryID
    /// Where it stands.
    public var state: OfflineQueryState
    /// The clients given this query, with the version each last received, by client name.
    public var syncPoints: [OfflineSyncPoint]

    /// An overview with these values.
    public init(query: OfflineQueryID, state: OfflineQueryState, syncPoints: [OfflineSyncPoint]) {
        self.query = query
        self.state = state
        self.syncPoints = syncPoints
    }
}

extension OfflineQueryOverview {
    /// Each query's state with its sync points (as the durable stores read them apart, each in query order).
    package static func joining(
        states: [(OfflineQueryID, OfflineQueryState)], syncPoints: [(OfflineQueryID, OfflineSyncPoint)]
    ) -> [OfflineQueryOverview] {
        let points = Dictionary(grouping: syncPoints, by: \.0).mapValues { $0.map(\.1) }
        return states.map { OfflineQueryOverview(query: $0.0, state: $0.1, syncPoints: points[$0.0] ?? []) }
    }
}

/// The version of a defining query a client last received, and when.
public struct OfflineSyncPoint: Sendable, Hashable {
    /// The client's user name.
    public var client: String
    /// The version the client was last given.
    public var version: Int64
    /// When it was given.
    public var at: Date

    /// A sync point with these values.
    public init(client: String, version: Int64, at: Date) {
        self.client = client
        self.version = version
        self.at = at
    }
}

/// A defining query as the middle tier keeps it: the endpoint, the query's name, and whose rows (``shared``, or
/// ``user(_:)`` of a user's name).
public struct OfflineQueryID: Sendable, Hashable, CustomStringConvertible {
    /// The middle tier endpoint the query belongs to.
    public var endpoint: String
    /// The defining query's name.
    public var query: String
    /// Whose rows: `shared`, or `user:` and a user's name.
    public var scope: String

    /// The scope of shared data. A user's scope is ``user(_:)``, so no user name can be it. (Text only: SQLite
    /// reads a bound string up to its first NUL, and PostgreSQL refuses NUL in text.)
    public static let shared = "shared"

    /// The scope of `name`'s own data.
    public static func user(_ name: String) -> String { "user:" + name }

    /// The query `query` of `endpoint`, for `scope`.
    public init(endpoint: String, query: String, scope: String) {
        self.endpoint = endpoint
        self.query = query
        self.scope = scope
    }

    /// `endpoint/query (shared)`, or `endpoint/query (user name)` for a user's scope.
    public var description: String {
        "\(endpoint)/\(query) (\(scope == Self.shared ? "shared" : scope.hasPrefix("user:") ? "user \(scope.dropFirst(5))" : scope))"
    }
}

/// One row of a defining query: its key (the entity's key predicate), the SHA-256 of its content, the content.
public struct OfflineRow: Sendable, Hashable {
    /// The entity's key predicate.
    public var key: String
    /// The SHA-256 of the content: a row changed when its hash did.
    public var hash: Data
    /// The row's content.
    public var body: Data

    /// A row with these values.
    public init(key: String, hash: Data, body: Data) {
        self.key = key
        self.hash = hash
        self.body = body
    }
}

/// Where a query stands.
public struct OfflineQueryState: Sendable, Hashable {
    /// Rises by one with each refresh that changed something.
    public var version: Int64
    /// Delta tokens older than this cannot be answered (the removals before it are forgotten).
    public var oldestVersion: Int64
    /// When the query was last refreshed (whole milliseconds in every store).
    public var refreshedAt: Date
    /// The back-end's own delta link, for the next refresh.
    public var backendDeltaLink: String?
    /// Current rows and their bytes.
    public var rows: Int
    /// The size of the current rows' content, in bytes.
    public var bytes: Int64

    /// A state with these values.
    public init(
        version: Int64, oldestVersion: Int64, refreshedAt: Date, backendDeltaLink: String?, rows: Int, bytes: Int64
    ) {
        self.version = version
        self.oldestVersion = oldestVersion
        self.refreshedAt = refreshedAt
        self.backendDeltaLink = backendDeltaLink
        self.rows = rows
        self.bytes = bytes
    }
}

/// What a refresh changed.
public struct OfflineRefresh: Sendable, Hashable {
    /// The query's state after the refresh.
    public var state: OfflineQueryState
    /// How many rows were new.
    public var added: Int
    /// How many rows had a new hash.
    public var changed: Int
    /// How many rows were marked removed.
    public var removed: Int

    /// A refresh with these values.
    public init(state: OfflineQueryState, added: Int, changed: Int, removed: Int) {
        self.state = state
        self.added = added
        self.changed = changed
        self.removed = removed
    }
}

/// Changes after a version, one page of them.
public struct OfflineChanges: Sendable, Hashable {
    /// Rows added or changed.
    public var rows: [OfflineRow]
    /// Keys of rows removed.
    public var removedKeys: [String]
    /// The version these changes bring the client to.
    public var version: Int64
    /// The key to continue after, when the page was full.
    public var continuation: String?

    /// A page of changes with these values.
    public init(rows: [OfflineRow], removedKeys: [String], version: Int64, continuation: String?) {
        self.rows = rows
        self.removedKeys = removedKeys
        self.version = version
        self.continuation = continuation
    }
}

/// A refusal of the row state.
public enum OfflineTierError: StoreRefusal, Sendable, Hashable, CustomStringConvertible {
    /// The client's version is older than the oldest removal remembered: it must read the query in full.
    case tokenExpired(query: OfflineQueryID, version: Int64, oldest: Int64)
    /// A continuation that no page of changes gave (shown as received, cut to 80 characters).
    case invalidContinuation(String)

    /// A message a person can act on.
    public var description: String {
        switch self {
        case .invalidContinuation(let text): "not a continuation of these changes: \(text)"
        case .tokenExpired(let query, let version, let oldest):
            "the delta token of \(query) at version \(version) has expired (the oldest kept is \(oldest)): read in full"
        }
    }
}

/// The diff every implementation applies: which rows of a read are new, which changed, which keys went.
package enum OfflineRowDiff {
    /// `existing`: key → (hash, removed) as stored. Returns the rows to write (added or changed, with counts) and,
    /// for a full read, the keys to mark removed. A key that comes twice is taken as it came last (the newer copy,
    /// when a back-end's delta spans pages).
    package static func diff(
        existing: [String: (hash: Data, removed: Bool)], incoming: [OfflineRow], fullRead: Bool
    ) -> (write: [OfflineRow], added: Int, changed: Int, removedKeys: [String]) {
        var write: [OfflineRow] = []
        var added = 0
        var changed = 0
        var seen = Set<String>()
        for row in incoming.reversed() where seen.insert(row.key).inserted {
            if let stored = existing[row.key], !stored.removed {
                if stored.hash != row.hash {
                    changed += 1
                    write.append(row)
                }
            } else {
                added += 1
                write.append(row)
            }
        }
        let removed =
            fullRead ? existing.filter { !$0.value.removed && !seen.contains($0.key) }.map(\.key).sorted() : []
        return (write, added, changed, removed)
    }
}
