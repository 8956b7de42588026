/// A store that tells when any process (this one included) commits a change: what lets an engine that shares its
/// store with other processes keep answers and folders cached, dropping them when another process changes the
/// repository. `PostgresMetadataStore` implements it with `LISTEN`/`NOTIFY`.
///
/// A feed cannot vouch for what happened while it was not listening: it reports ``StoreChangeEvent/lost`` then,
/// and ``StoreChangeEvent/following`` once it listens again, after which the follower must take everything it
/// kept to be stale.
public protocol StoreChangeFeed: Sendable {
    /// Calls `handler` for every event from now on, for as long as the store is open. The first event is
    /// ``StoreChangeEvent/following`` once the store listens (or ``StoreChangeEvent/lost`` when it cannot).
    func followChanges(_ handler: @escaping @Sendable (StoreChangeEvent) -> Void)
}

/// What a ``StoreChangeFeed`` reports.
public enum StoreChangeEvent: Sendable, Hashable {
    /// From now on every committed change is reported (a change committed before may not have been).
    case following
    /// Changes may go unreported until the next ``following``.
    case lost
    /// A change to the repository was committed; `folders` when it may have changed existing folders
    /// (``StoreBatch/changesFolders``).
    case changed(repositoryId: String, folders: Bool)
}
