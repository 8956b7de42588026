import Crypto
public import Foundation
import GRDB
import SatchelStore
import SatchelText
import Synchronization

/// Blobs kept for offline use, least recently used evicted first: at most ``Limits/maximumCount`` files (100 by
/// default) and ``Limits/maximumBytes`` bytes (no limit by default). Each blob is a file named by the SHA-256 of its
/// key (so no key ever becomes a path), sealed (SatchelStore's `SealedContent`) when the cache is encrypted; the index
/// and the LRU order are rows of the cache's database, so they survive a restart. A digest given on save is checked
/// before anything is kept. Saves, reads and evictions from many tasks run one at a time, in order, on a queue of the
/// cache's own: the copies, hashing, sealing and database calls never hold a thread of the concurrency pool.
public final class BlobCache: Sendable {
    /// How much the cache may hold before the least recently used blobs are evicted; nil means no limit.
    public struct Limits: Sendable, Hashable {
        /// The most blobs kept; nil: no limit.
        public var maximumCount: Int?
        /// The most bytes kept, counted by content length (a sealed file on disk is a little larger); nil: no limit.
        public var maximumBytes: Int64?

        /// Limits of 100 blobs and no byte limit by default.
        public init(maximumCount: Int? = 100, maximumBytes: Int64? = nil) {
            self.maximumCount = maximumCount
            self.maximumBytes = maximumBytes
        }
    }

    /// What the cache holds.
    public struct Status: Sendable, Hashable {
        /// How many blobs are kept.
        public var count: Int
        /// Their total content length, in bytes.
        public var bytes: Int64
        /// The limits in force.
        public var limits: Limits
        /// Whether the blobs are sealed with the cache's content key.
        public var isEncrypted: Bool
    }

    /// The limits in force (``setLimits(_:)`` changes them).
    public var limits: Limits { currentLimits.withLock { $0 } }
    private let currentLimits: Mutex<Limits>
    let database: DatabasePool
    let directory: URL
    let sealer: SealedContent?
    /// Runs every operation, one at a time.
    private let work: BlockingWork

    /// Opens the blob folder (sweeping what a killed process left). Blocking: call it through ``BlockingWork``.
    init(database: DatabasePool, directory: URL, sealer: SealedContent?, limits: Limits) throws {
        try FileManager.default.createDirectory(
            at: directory, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o700])
        self.database = database
        self.directory = directory
        self.sealer = sealer
        self.currentLimits = Mutex(limits)
        self.work = BlockingWork(label: "satchel.blob-cache")
        try Self.sweep(directory, database: database)
    }

    /// Removes what a killed process left: partial and incoming files, and files no row names.
    private static func sweep(_ directory: URL, database: DatabasePool) throws {
        let indexed = Set(try database.read { db in try String.fetchAll(db, sql: "SELECT file FROM blob") })
        for name in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
        where !indexed.contains(name) {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(name))
        }
    }

    /// A new file in the blob folder (owner-only, swept if left behind) for content on its way in: a download that
    /// ``save(_:file:digest:)`` then keeps.
    func incomingFile() -> URL {
        directory.appendingPathComponent(".incoming-\(UUID().uuidString)")
    }

    private func file(for key: String) -> URL {
        let name = SHA256.hash(data: Data(key.utf8)).map { String(format: "%02x", $0) }.joined()
        return directory.appendingPathComponent(name)
    }

    /// Whether a blob is kept under `key` (its file is not checked, and it is not marked as used).
    public func contains(_ key: String) async throws -> Bool {
        try await work.run { [database] in
            try database.read { db in
                try Bool.fetchOne(db, sql: "SELECT 1 FROM blob WHERE key = ?", arguments: [key]) ?? false
            }
        }
    }

    /// Keeps the content of `file` (left where it is) under `key`, after checking it against `digest`; then evicts
    /// the least recently used blobs beyond the limits (never the one just saved).
    public func save(_ key: String, file source: URL, digest: ContentDigest? = nil) async throws {
        try await work.run { [self] in try saveNow(key, file: source, digest: digest) }
    }

    private func saveNow(_ key: String, file source: URL, digest: ContentDigest?) throws {
        if let digest {
            let actual = try Self.digest(of: source, algorithm: digest.algorithm)
            guard actual == digest.hex else {
                throw CacheError(
                    .digestMismatch,
                    "the content for \(key) has \(digest.algorithm.rawValue) \(actual), not \(digest.hex): not kept")
            }
        }
        let destination = file(for: key)
        let length: Int64
        if let sealer {
            length = try sealer.seal(contentsOf: source, to: destination, context: key)
        } else {
            let temporary = directory.appendingPathComponent(".\(UUID().uuidString).partial")
            defer { try? FileManager.default.removeItem(at: temporary) }
            try FileManager.default.copyItem(at: source, to: temporary)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: temporary.path)
            length = Int64(
                (try FileManager.default.attributesOfItem(atPath: temporary.path)[.size] as? NSNumber)?
                    .int64Value ?? 0)
            try SealedContent.moveIntoPlace(temporary, destination)
        }
        try database.write { db in
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO blob(key, file, length, digest, used, saved)
                    VALUES (?, ?, ?, ?, (SELECT coalesce(max(used), 0) + 1 FROM blob), ?)
                    """,
                arguments: [
                    key, destination.lastPathComponent, length, digest?.description, Date().timeIntervalSince1970,
                ])
        }
        _ = try evictNow(sparing: key)
    }

    /// The content of `key` in memory, or nil when it is not cached. A blob whose file is gone or fails its check
    /// is forgotten, and the failure thrown.
    public func data(for key: String) async throws -> Data? {
        try await work.run { [self] in try dataNow(for: key) }
    }

    private func dataNow(for key: String) throws -> Data? {
        guard let file = try readable(key) else { return nil }
        do {
            if let sealer { return try sealer.open(file, context: key) }
            return try Data(contentsOf: file)
        } catch {
            try forgetIfDamaged(key, error)
            throw error
        }
    }

    /// Writes the content of `key` to `destination` (replaced only on success); false when it is not cached. A
    /// failure to write the destination leaves the blob as it is.
    public func write(_ key: String, to destination: URL) async throws -> Bool {
        try await work.run { [self] in try writeNow(key, to: destination) }
    }

    private func writeNow(_ key: String, to destination: URL) throws -> Bool {
        guard let file = try readable(key) else { return false }
        do {
            if let sealer {
                try sealer.open(file, to: destination, context: key)
            } else {
                let temporary = destination.deletingLastPathComponent().appendingPathComponent(
                    ".\(destination.lastPathComponent).\(UUID().uuidString).partial")
                defer { try? FileManager.default.removeItem(at: temporary) }
                try FileManager.default.copyItem(at: file, to: temporary)
                try SealedContent.moveIntoPlace(temporary, destination)
            }
            return true
        } catch {
            try forgetIfDamaged(key, error)
            throw error
        }
    }

    /// The file of `key` marked as just used; nil when not cached. A row whose file is gone is forgotten.
    private func readable(_ key: String) throws -> URL? {
        guard let file = try use(key) else { return nil }
        guard FileManager.default.fileExists(atPath: file.path) else {
            try forgetNow(key)
            return nil
        }
        return file
    }

    /// Forgets `key` when `error` says its stored bytes are bad (not when the destination could not be written).
    private func forgetIfDamaged(_ key: String, _ error: any Error) throws {
        if let failure = error as? SealedContent.Failure, failure.reason != .io,
            failure.path.hasPrefix(directory.path)
        {
            try forgetNow(key)
        }
    }

    /// Marks `key` as just used and returns its file; nil when it is not cached.
    private func use(_ key: String) throws -> URL? {
        let name = try database.write { db -> String? in
            guard let name = try String.fetchOne(db, sql: "SELECT file FROM blob WHERE key = ?", arguments: [key])
            else { return nil }
            try db.execute(
                sql: "UPDATE blob SET used = (SELECT max(used) + 1 FROM blob) WHERE key = ?", arguments: [key])
            return name
        }
        return name.map { directory.appendingPathComponent($0) }
    }

    /// Removes one blob.
    public func forget(_ key: String) async throws {
        try await work.run { [self] in try forgetNow(key) }
    }

    private func forgetNow(_ key: String) throws {
        try database.write { db in try db.execute(sql: "DELETE FROM blob WHERE key = ?", arguments: [key]) }
        try? FileManager.default.removeItem(at: file(for: key))
    }

    /// Changes the limits (kept for the next opens) and evicts what they no longer allow.
    public func setLimits(_ limits: Limits) async throws {
        try await work.run { [self] in
            currentLimits.withLock { $0 = limits }
            try database.write { db in try Schema.storeBlobLimits(limits, db) }
            _ = try evictNow(sparing: nil)
        }
    }

    /// Evicts least recently used blobs until the limits hold (`sparing` stays, even if it alone is over them).
    /// Returns how many went.
    @discardableResult
    public func evict(sparing: String? = nil) async throws -> Int {
        try await work.run { [self] in try evictNow(sparing: sparing) }
    }

    private func evictNow(sparing: String?) throws -> Int {
        let limits = self.limits
        let victims = try database.write { db -> [(String, String)] in
            var count = try Int.fetchOne(db, sql: "SELECT count(*) FROM blob") ?? 0
            var bytes = try Int64.fetchOne(db, sql: "SELECT coalesce(sum(length), 0) FROM blob") ?? 0
            var victims: [(String, String)] = []
            let rows = try Row.fetchCursor(db, sql: "SELECT key, file, length FROM blob ORDER BY used")
            while let row = try rows.next() {
                let overCount = limits.maximumCount.map { count > $0 } ?? false
                let overBytes = limits.maximumBytes.map { bytes > $0 } ?? false
                guard overCount || overBytes else { break }
                let key: String = row["key"]
                if key == sparing { continue }
                victims.append((key, row["file"]))
                count -= 1
                bytes -= row["length"]
            }
            for (key, _) in victims { try db.execute(sql: "DELETE FROM blob WHERE key = ?", arguments: [key]) }
            return victims
        }
        for (_, name) in victims { try? FileManager.default.removeItem(at: directory.appendingPathComponent(name)) }
        return victims.count
    }

    /// Removes every blob.
    public func clear() async throws {
        try await work.run { [self] in try clearNow() }
    }

    private func clearNow() throws {
        let names = try database.write { db -> [String] in
            let names = try String.fetchAll(db, sql: "SELECT file FROM blob")
            try db.execute(sql: "DELETE FROM blob")
            return names
        }
        for name in names { try? FileManager.default.removeItem(at: directory.appendingPathComponent(name)) }
        // Files no row names: what a process killed between writing a file and its row left.
        for leftover in (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? [] {
            try? FileManager.default.removeItem(at: directory.appendingPathComponent(leftover))
        }
    }

    /// How many blobs the cache holds, their size, the limits and whether they are encrypted.
    public func status() async throws -> Status {
        try await work.run { [self] in
            try database.read { db in
                Status(
                    count: try Int.fetchOne(db, sql: "SELECT count(*) FROM blob") ?? 0,
                    bytes: try Int64.fetchOne(db, sql: "SELECT coalesce(sum(length), 0) FROM blob") ?? 0,
                    limits: limits, isEncrypted: sealer != nil)
            }
        }
    }

    static func digest(of file: URL, algorithm: ContentDigest.Algorithm) throws -> String {
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        func hex(_ digest: some Digest) -> String { digest.map { String(format: "%02x", $0) }.joined() }
        func run<H: HashFunction>(_ hasher: inout H) throws -> String {
            while let chunk = try handle.read(upToCount: 1 << 20), !chunk.isEmpty { hasher.update(data: chunk) }
            return hex(hasher.finalize())
        }
        switch algorithm {
        case .md5:
            var hasher = Insecure.MD5()
            return try run(&hasher)
        case .sha1:
            var hasher = Insecure.SHA1()
            return try run(&hasher)
        case .sha256:
            var hasher = SHA256()
            return try run(&hasher)
        }
    }
}
