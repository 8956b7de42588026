public import Foundation

/// The knobs of a ``CMISRepository``: names, limits, and the clock and id generator (replaceable in tests).
///
/// ```swift
/// var configuration = RepositoryConfiguration()
/// configuration.sharedRepositoryName = "Team"
/// configuration.defaultMaxItems = 50
/// let repository = CMISRepository(store: store, blobs: blobs, configuration: configuration)
/// ```
public struct RepositoryConfiguration: Sendable {
    /// The id of the repository every user shares.
    public var sharedRepositoryId: String
    /// The shared repository's name, given when the repository is created.
    public var sharedRepositoryName: String
    /// The shared repository's description, given when the repository is created.
    public var sharedRepositoryDescription: String
    /// The name of each user's MyDocuments repository.
    public var myDocumentsName: String
    /// The vendor name repository info shows.
    public var vendorName: String
    /// The product name repository info shows.
    public var productName: String
    /// The product version repository info shows.
    public var productVersion: String
    /// The page size when a caller gives no `maxItems`.
    public var defaultMaxItems: Int
    /// The largest page a caller may ask for (larger requests are cut to this).
    public var maximumMaxItems: Int
    /// The longest string property value, in characters (`cmis:name` has its own limit).
    public var maximumStringLength: Int
    /// The longest `cmis:name`, in characters.
    public var maximumNameLength: Int
    /// The most values a multi-valued property may hold.
    public var maximumValuesPerProperty: Int
    /// The most objects getDescendants, getFolderTree and deleteTree walk in one call.
    public var maximumTreeSize: Int
    /// How long folder names, parents and ACEs stay cached. Changes made through this engine drop the cache at
    /// once; the lifetime bounds how long changes made by another process on the same store go unseen.
    public var folderCacheLifetime: Duration
    /// How long a blob nothing refers to is kept after it was last written or claimed, before it is removed. Zero
    /// when this process alone uses the blob folder; several processes sharing a PostgreSQL store and one blob
    /// folder cannot see each other's uploads in progress and need a few minutes.
    public var blobRemovalGrace: Duration
    /// Whether this engine is the only writer of its store (SQLite, memory). Then ``CMISService/readGeneration(repositoryId:)``
    /// counts its changes and answers may be cached; with a store other processes write (PostgreSQL) it is nil.
    public var isSoleWriter: Bool
    /// The current time (fixed or stepping in tests).
    public var clock: @Sendable () -> Date
    /// New object ids: opaque, unique, URL-safe.
    public var idGenerator: @Sendable () -> String

    /// A configuration with the given values; each has a default: the shared repository `shared` (named `Shared`),
    /// pages of 100 and at most 10,000 items, names of at most 255 characters, strings of at most 65,536, 1,000 values
    /// per property, trees of at most 100,000 objects, a folder cache kept 5 seconds, no blob removal grace, not a sole
    /// writer, the system clock and random ids (`randomId()`).
    public init(
        sharedRepositoryId: String = "shared", sharedRepositoryName: String = "Shared",
        sharedRepositoryDescription: String = "Documents every user of this server can reach",
        myDocumentsName: String = "My Documents", vendorName: String = "Satchel", productName: String = "Satchel",
        productVersion: String = "1.0", defaultMaxItems: Int = 100, maximumMaxItems: Int = 10_000,
        maximumStringLength: Int = 65_536, maximumNameLength: Int = 255, maximumValuesPerProperty: Int = 1_000,
        maximumTreeSize: Int = 100_000, folderCacheLifetime: Duration = .seconds(5), blobRemovalGrace: Duration = .zero,
        isSoleWriter: Bool = false,
        clock: @escaping @Sendable () -> Date = { Date() },
        idGenerator: @escaping @Sendable () -> String = RepositoryConfiguration.randomId
    ) {
        self.sharedRepositoryId = sharedRepositoryId
        self.sharedRepositoryName = sharedRepositoryName
        self.sharedRepositoryDescription = sharedRepositoryDescription
        self.myDocumentsName = myDocumentsName
        self.vendorName = vendorName
        self.productName = productName
        self.productVersion = productVersion
        self.defaultMaxItems = defaultMaxItems
        self.maximumMaxItems = maximumMaxItems
        self.maximumStringLength = maximumStringLength
        self.maximumNameLength = maximumNameLength
        self.maximumValuesPerProperty = maximumValuesPerProperty
        self.maximumTreeSize = maximumTreeSize
        self.folderCacheLifetime = folderCacheLifetime
        self.blobRemovalGrace = blobRemovalGrace
        self.isSoleWriter = isSoleWriter
        self.clock = clock
        self.idGenerator = idGenerator
    }

    /// 128 random bits as 26 lower-case base-32 characters (URL- and path-safe).
    @Sendable public static func randomId() -> String {
        let alphabet = Array("abcdefghijklmnopqrstuvwxyz234567".utf8)
        var generator = SystemRandomNumberGenerator()
        var high = generator.next() as UInt64
        var low = generator.next() as UInt64
        var bytes: [UInt8] = []
        bytes.reserveCapacity(26)
        for _ in 0..<26 {
            bytes.append(alphabet[Int(low & 31)])
            low = (low >> 5) | ((high & 31) << 59)
            high >>= 5
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The id of `user`'s MyDocuments repository.
    public static func myDocumentsRepositoryId(user: String) -> String { "mydocs-\(user)" }

    /// Whether `id` names a user's MyDocuments repository (of whichever user).
    public static func isMyDocumentsRepositoryId(_ id: String) -> Bool { id.hasPrefix("mydocs-") }
}
