import CSatchelStoreVFS
import Foundation
import SatchelText
public import GRDB

/// An open store: a GRDB database (``database``) whose file is encrypted at rest when it was opened with a key, and
/// ordinary SQLite when it was not. Close it with ``close()``; a store released without closing closes when GRDB
/// releases the database.
///
/// ```swift
/// let store = try StoreFile(path: url.path).openPool(key: .passphrase(secret))
/// try await store.database.write { db in try db.execute(sql: "CREATE TABLE note(text)") }
/// try store.close()
/// ```
public final class LocalStore<Database: DatabaseWriter & Sendable>: Sendable {
    /// The GRDB database: use it as any other.
    public let database: Database
    /// The file the store was opened from.
    public let file: StoreFile
    /// Whether the file is encrypted.
    public var isEncrypted: Bool { registration != nil }
    private let registration: StoreVFS.Registration?

    init(database: Database, file: StoreFile, registration: StoreVFS.Registration?) {
        self.database = database
        self.file = file
        self.registration = registration
    }

    /// Closes the database (GRDB's `close()`: fails while a read or write is running) and forgets the key. The
    /// write-ahead log is folded into the store file first (a pool's last connection to close is a reader, which
    /// leaves the log as it is): the file alone then holds every commit and can be copied.
    public func close() throws {
        // Busy when another process reads: the log stays, and is still replayed by whoever opens the store next.
        _ = try? database.writeWithoutTransaction { try $0.checkpoint(.truncate) }
        try database.close()
        registration?.end()
    }

    /// The ``StoreError`` behind a GRDB error this store's database threw, when a page failed to open (SQLite reports
    /// those as a disk I/O error); nil for other errors.
    public func storeError(for error: any Error) -> StoreError? {
        guard let registration, error is DatabaseError else { return nil }
        return file.translate(error, cipher: registration.cipher) as? StoreError
    }
}

/// A store's file: open it (encrypted with a key, plain without), inspect, check, re-key, encrypt, export or destroy
/// it. Its companions (`-wal`, `-shm`, `-journal`) go with it.
public struct StoreFile: Sendable, Hashable {
    /// The absolute path of the database file, symbolic links resolved (for a file not created yet, its folder's).
    public let path: String

    /// The store file at `path` (a relative path starts at the current directory; symbolic links are resolved).
    /// Nothing is opened or created until you open it.
    public init(path: String) { self.path = Self.resolve(path) }

    private static func resolve(_ path: String) -> String {
        let url = URL(fileURLWithPath: path)
        if let real = realpath(url.path, nil) {
            defer { free(real) }
            return String(cString: real)
        }
        let folder = url.deletingLastPathComponent()
        guard let real = realpath(folder.path, nil) else { return url.standardizedFileURL.path }
        defer { free(real) }
        let resolved = String(cString: real)
        return (resolved == "/" ? "" : resolved) + "/" + url.lastPathComponent
    }

    static let ioErrorData: Int32 = 10 | (32 << 8)  // SQLITE_IOERR_DATA

    /// Opens a `DatabasePool` (WAL: readers beside one writer). Without a key the file is ordinary SQLite.
    public func openPool(
        key: StoreKey?, configuration: Configuration = Configuration()
    ) throws
        -> LocalStore<DatabasePool>
    {
        try open(key: key, configuration: configuration) { try DatabasePool(path: path, configuration: $0) }
    }

    /// ``openPool(key:configuration:)`` for async code: on a dispatch thread, not the task's (deriving a passphrase
    /// key takes tens of milliseconds of PBKDF2, and GRDB sets the pool up with blocking calls).
    public func openPoolDetached(
        key: StoreKey?, configuration: Configuration = Configuration()
    ) async throws -> LocalStore<DatabasePool> {
        try await BlockingWork.shared.run { try openPool(key: key, configuration: configuration) }
    }

    /// Opens a `DatabaseQueue` (one connection, rollback journal unless the app chooses WAL).
    public func openQueue(
        key: StoreKey?, configuration: Configuration = Configuration()
    ) throws
        -> LocalStore<DatabaseQueue>
    {
        try open(key: key, configuration: configuration) { try DatabaseQueue(path: path, configuration: $0) }
    }

    private func open<D: DatabaseWriter & Sendable>(
        key: StoreKey?, configuration: Configuration, make: (Configuration) throws -> D
    ) throws -> LocalStore<D> {
        guard let key else {
            if case .header = try StoreHeader.read(path: path) { throw StoreError(.keyRequired, path: path) }
            return LocalStore(database: try make(configuration), file: self, registration: nil)
        }
        return try open(cipher: cipher(key: key, creating: true), configuration: configuration, make: make)
    }

    /// Opens the file with a cipher already derived and checked (``cipher(key:creating:)``).
    func open<D: DatabaseWriter & Sendable>(
        cipher: PageCipher, configuration: Configuration, make: (Configuration) throws -> D
    ) throws -> LocalStore<D> {
        let registration = try register(cipher)
        var configuration = configuration
        configuration.prepareDatabase { db in
            // The closure holds the registration: the key stays known while GRDB can still open a connection (a
            // pool's readers), even if the app kept only `store.database`.
            withExtendedLifetime(registration) {}
            _ = satchel_vfs_request_reserve(UnsafeMutableRawPointer(db.sqliteConnection!), Int32(StoreFormat.reserve))
            try db.execute(sql: "PRAGMA temp_store = MEMORY")
        }
        do {
            if case .empty = try StoreHeader.read(path: path) {
                // The owner's alone from the start (SQLite gives its journals, WAL and -shm the database's mode).
                if FileManager.default.fileExists(atPath: path) {
                    try PrivateFile.protect(path)
                } else {
                    try PrivateFile.create(path)
                }
                try createDatabase()
            }
            return LocalStore(database: try make(configuration), file: self, registration: registration)
        } catch {
            registration.end()
            throw translate(error, cipher: registration.cipher)
        }
    }

    /// Writes page 1 of a new store with the cipher's reserve at each page's end, before the app's own
    /// `prepareDatabase` runs (whatever it writes first, say `PRAGMA journal_mode = WAL`, would otherwise create the
    /// file without the reserve, and the VFS refuses to write such a page 1).
    private func createDatabase() throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            _ = satchel_vfs_request_reserve(UnsafeMutableRawPointer(db.sqliteConnection!), Int32(StoreFormat.reserve))
            try db.execute(sql: "PRAGMA page_size = \(StoreFormat.pageSize)")
        }
        let queue = try DatabaseQueue(path: path, configuration: configuration)
        try queue.writeWithoutTransaction { try $0.execute(sql: "PRAGMA user_version = 0") }
        try queue.close()
    }

    // MARK: Keys and pages

    /// The cipher for this file under `key`, after checking the header, the key and page 1. `creating`: an empty or
    /// missing file gets a new header (fresh salt).
    func cipher(key: StoreKey, creating: Bool) throws(StoreError) -> PageCipher {
        let reading = try StoreHeader.read(path: path)
        if let open = StoreVFS.registeredCipher(fullPath: try StoreVFS.fullPath(path)) {
            // Open in this process (perhaps not written yet): the same key shares its cipher.
            let header = open.header
            let master = try key.master(
                salt: header.salt, derivation: header.derivation, iterations: header.iterations, path: path)
            guard constantTimeEqual(PageCipher.keyCheck(master: master, salt: header.salt), header.keyCheck) else {
                if case .header = reading { throw StoreError(.wrongKey, path: path) }
                throw StoreError(.openWithAnotherKey, path: path)
            }
            return open
        }
        switch reading {
        case .empty:
            guard creating else { throw StoreError(.notAStore, path: path, detail: "the file is empty or missing") }
            var salt = [UInt8](repeating: 0, count: StoreFormat.saltSize)
            var generator = SystemRandomNumberGenerator()
            for i in salt.indices { salt[i] = generator.next() }
            let master = try key.master(
                salt: salt, derivation: key.derivation, iterations: key.iterations, path: path)
            let header = StoreHeader(
                salt: salt, version: StoreFormat.version, derivation: key.derivation, iterations: key.iterations,
                keyCheck: PageCipher.keyCheck(master: master, salt: salt))
            return PageCipher(master: master, header: header)
        case .plaintext: throw StoreError(.notEncrypted, path: path)
        case .notAStore, .implausible, .newerFormat, .truncated:
            throw reading.failure(path: path) ?? StoreError(.notAStore, path: path)
        case .header(let header):
            let master = try key.master(
                salt: header.salt, derivation: header.derivation, iterations: header.iterations, path: path)
            let check = PageCipher.keyCheck(master: master, salt: header.salt)
            guard constantTimeEqual(check, header.keyCheck) else { throw StoreError(.wrongKey, path: path) }
            let cipher = PageCipher(master: master, header: header)
            try verifyFirstPage(cipher)
            return cipher
        }
    }

    /// Page 1 opens, and the file holds every page its header counts.
    private func verifyFirstPage(_ cipher: PageCipher) throws(StoreError) {
        let pageCount: Int
        var page: [UInt8]
        do {
            let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
            defer { try? handle.close() }
            pageCount = Int(try handle.seekToEnd()) / StoreFormat.pageSize
            try handle.seek(toOffset: 0)
            page = [UInt8](try handle.read(upToCount: StoreFormat.pageSize) ?? Data())
        } catch {
            throw StoreError(.io, path: path, detail: "\(error)")
        }
        let opened = page.withUnsafeMutableBytes {
            cipher.open(kind: PageCipher.database, page: $0.baseAddress!, size: $0.count, location: 1)
        }
        // A WAL or a hot journal may restore page 1 and complete the file (a crash during a commit or checkpoint):
        // SQLite gets to replay it, and reports a page that stays damaged when it reads it.
        let replay = hasWAL || hasHotJournal
        guard opened || replay else { throw pageError(cipher.lastFailure, detail: nil) }
        // SQLite's in-header page count (bytes 28–31) is valid when bytes 24–27 equal bytes 92–95.
        if opened, !replay, page[24..<28] == page[92..<96] {
            let declared = page[28..<32].reduce(0) { $0 << 8 | Int($1) }
            if declared > pageCount {
                throw StoreError(.truncated, path: path, page: declared, found: pageCount)
            }
        }
    }

    /// Whether a non-empty `-wal` is beside the database.
    var hasWAL: Bool { (fileSize(path + "-wal") ?? 0) > 0 }

    /// Whether a hot rollback journal is beside the database (one that starts with SQLite's journal magic; a
    /// persisted or truncated journal after a commit does not).
    var hasHotJournal: Bool {
        guard let handle = FileHandle(forReadingAtPath: path + "-journal") else { return false }
        defer { try? handle.close() }
        let magic: [UInt8] = [0xd9, 0xd5, 0x05, 0xf9, 0x20, 0xa1, 0x63, 0xd7]
        return (try? handle.read(upToCount: 8)).map { [UInt8]($0) == magic } ?? false
    }

    func register(_ cipher: PageCipher) throws(StoreError) -> StoreVFS.Registration {
        try StoreVFS.register(cipher, fullPath: try StoreVFS.fullPath(path), path: path)
    }

    func pageError(_ failure: PageCipher.Failure?, detail: String?) -> StoreError {
        let kinds = ["", " (journal)", " (WAL)"]
        switch failure {
        case .corrupt(let kind, let location):
            return StoreError(
                .corruptPage, path: path, page: kind == PageCipher.database ? Int(location) : nil,
                detail: kind == PageCipher.database ? detail : "at byte \(location)\(kinds[Int(kind)])")
        case .misplaced(let kind, let location, let found):
            return StoreError(
                .misplacedPage, path: path, page: Int(location), found: Int(found),
                detail: kind == PageCipher.database ? detail : kinds[Int(kind)])
        case nil:
            return StoreError(.corruptPage, path: path, detail: detail)
        }
    }

    func translate(_ error: any Error, cipher: PageCipher) -> any Error {
        if let error = error as? DatabaseError, error.extendedResultCode.rawValue == Self.ioErrorData {
            return pageError(cipher.lastFailure, detail: error.message)
        }
        return error
    }
}

func constantTimeEqual(_ a: [UInt8], _ b: [UInt8]) -> Bool {
    guard a.count == b.count else { return false }
    var difference: UInt8 = 0
    for i in a.indices { difference |= a[i] ^ b[i] }
    return difference == 0
}

func fileSize(_ path: String) -> Int? {
    (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? NSNumber)?.intValue
}
