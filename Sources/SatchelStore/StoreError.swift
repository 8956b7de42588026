/// Why a store could not be opened, read, re-keyed or checked. One type, one ``Code`` per cause a person can act on;
/// never carries key material.
///
/// ```swift
/// do { _ = try StoreFile(path: path).openPool(key: key) }
/// catch let error as StoreError where error.code == .wrongKey { askForThePassphraseAgain() }
/// ```
public struct StoreError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The cause, one case per thing a person can do something about.
    public enum Code: String, Sendable {
        /// The key or passphrase does not open this store.
        case wrongKey
        /// The file is an ordinary (plaintext) SQLite database; open it without a key, or encrypt it.
        case notEncrypted
        /// The file is already an encrypted store (``StoreFile/encrypt(with:)``).
        case alreadyEncrypted
        /// The file is an encrypted store and no key was given.
        case keyRequired
        /// The file is neither an encrypted store nor an SQLite database.
        case notAStore
        /// The store was written by a newer format version than this library reads.
        case newerFormat
        /// The file ends before its last page (or inside a page).
        case truncated
        /// A page fails authentication: changed on disk (a flipped bit, a partial write, tampering).
        case corruptPage
        /// A page is authentic but belongs elsewhere (pages swapped or copied within the file).
        case misplacedPage
        /// The key given is unusable (a raw key that is not 32 bytes, an empty passphrase).
        case invalidKey
        /// The store is open in this process with a different key.
        case openWithAnotherKey
        /// Reading, writing or renaming a file failed.
        case io
    }

    /// The cause.
    public let code: Code
    /// The store's path.
    public let path: String
    /// The page concerned (``Code/corruptPage``, ``Code/misplacedPage``; the expected page count for
    /// ``Code/truncated``).
    public var page: Int?
    /// ``Code/misplacedPage``: the page whose data was found; ``Code/truncated``: the pages present;
    /// ``Code/newerFormat``: the store's format version.
    public var found: Int?
    /// More context (an SQLite or system error message).
    public var detail: String?

    /// An error with `code` about the store at `path`; `page`, `found` and `detail` as their properties say.
    public init(_ code: Code, path: String, page: Int? = nil, found: Int? = nil, detail: String? = nil) {
        self.code = code
        self.path = path
        self.page = page
        self.found = found
        self.detail = detail
    }

    /// `SatchelStore: <path>: <what went wrong>`, the page numbers and the detail included when known.
    public var description: String {
        var text: String
        switch code {
        case .wrongKey: text = "the key does not open the store"
        case .notEncrypted: text = "the file is a plaintext SQLite database, not an encrypted store"
        case .keyRequired: text = "the store is encrypted: a key is required"
        case .alreadyEncrypted: text = "the file is already an encrypted store"
        case .notAStore: text = "the file is neither an encrypted store nor an SQLite database"
        case .newerFormat:
            text = "the store has format version \(found ?? 0); this library reads version \(StoreFormat.version)"
        case .truncated:
            text = "the file is truncated"
            if let page, let found { text += " (\(page) pages expected, \(found) present)" }
        case .corruptPage: text = "page \(page ?? 0) is corrupt or was changed on disk"
        case .misplacedPage: text = "page \(page ?? 0) holds the data of page \(found ?? 0)"
        case .invalidKey: text = "the key is unusable"
        case .openWithAnotherKey: text = "the store is already open in this process with another key"
        case .io: text = "file error"
        }
        if let detail { text += ": \(detail)" }
        return "SatchelStore: \(path): \(text)"
    }
}
