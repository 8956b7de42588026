/// What the offline store itself refuses or cannot do: its state, its local data, its configuration, a change of
/// the service's model it cannot migrate. One ``Code`` per cause, with the context that locates it.
///
/// What the service answered keeps its own type: a download's or an upload's `ODataError` (connection, status,
/// payload) passes through as it came, and requests an upload settles as refused go to the ErrorArchive
/// (``OfflineErrorArchiveEntry``).
///
/// ```swift
/// do {
///     try await store.update("Products", .key(.single(.int(3))), with: changes)
/// } catch let error as OfflineStoreError where error.code == .entityNotFound {
///     // not in the store (not downloaded, or deleted locally)
/// }
/// ```
public struct OfflineStoreError: Error, Sendable, CustomStringConvertible {
    /// The cause, one case per thing a caller can do something about.
    public enum Code: String, Sendable, Hashable, CaseIterable {
        /// The store is not open, or is closing: call `open()` first.
        case notOpen
        /// `open()` was called on a store already open (or opening).
        case alreadyOpen
        /// A download or an upload of this store is running: what was asked waits for it to end.
        case busy
        /// A local-only open found no store yet, or one without its `$metadata`: open it once with the service.
        case noLocalStore
        /// The store has no such entity set.
        case unknownEntitySet
        /// The set has no such property (or navigation, or key property).
        case unknownProperty
        /// The store has no defining query of that name.
        case unknownDefiningQuery
        /// A defining query the store cannot use (its text, its set, its options).
        case invalidDefiningQuery
        /// A query the store cannot read (a malformed `$orderby` expression).
        case invalidQuery
        /// A path, key or link that names no entity of the store, or the wrong kind of one.
        case invalidReference
        /// No such entity in the store (not downloaded, or deleted locally).
        case entityNotFound
        /// No such queued request or ErrorArchive entry.
        case queueEntryNotFound
        /// No content for a media entity in the store.
        case contentNotFound
        /// A local change the store does not take as asked (content in a transaction, media on a set without
        /// streams, a read inside a changeset).
        case invalidChange
        /// Something the offline store does not do (a query function it cannot evaluate, a deep insert deeper than
        /// one level, a service operation).
        case unsupported
        /// Requests are still queued: the store is not removed unless forced.
        case pendingRequests
        /// The service's `$metadata` changed in a way the store cannot migrate to (the message names what).
        case schemaChange
        /// The store's queue holds something it cannot read (a damaged link list, an unknown method).
        case damagedQueue
        /// A store built on the middle tier could not be received or put in place.
        case prebuiltStore
        /// The store's configuration cannot be used (an index on nothing, a per-user store without names).
        case invalidConfiguration
    }

    /// The cause.
    public var code: Code
    /// What happened, in words that name the thing concerned.
    public var message: String
    /// The store's file, when known.
    public var storePath: String?
    /// The error that caused this one, when there is one.
    public var underlying: (any Error & Sendable)?

    /// An error with this cause and message.
    public init(
        _ code: Code, _ message: String, storePath: String? = nil, underlying: (any Error & Sendable)? = nil
    ) {
        self.code = code
        self.message = message
        self.storePath = storePath
        self.underlying = underlying
    }

    /// `offline store (notOpen): the offline store is not open (call open() first) [store /data/a.store]`.
    public var description: String {
        "offline store (\(code.rawValue)): \(message)" + (storePath.map { " [store \($0)]" } ?? "")
    }

    /// The HTTP status an `ODataBatch` part answered from the store carries for this error.
    var status: Int {
        switch code {
        case .entityNotFound, .queueEntryNotFound, .contentNotFound, .unknownEntitySet: 404
        case .unsupported: 501
        case .busy: 409
        case .notOpen, .noLocalStore: 503
        default: 400
        }
    }
}
