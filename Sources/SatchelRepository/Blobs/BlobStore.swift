import Crypto
public import Foundation
import SatchelText

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Content-addressed storage for content streams: each blob is a file named by the SHA-256 of its bytes.
///
/// Blobs are written by a ``BlobWriter`` to a temporary file in the store's own `tmp/` folder (so the final
/// `rename(2)` stays on one file system), hashed while they are written, flushed to disk with `fsync`, and only
/// then renamed into `objects/ab/abcdef…`. A crash at any point leaves either no blob or a whole one, never half a
/// file under a blob's name. Identical content is stored once.
///
/// A blob's name is the SHA-256 of the file's first *n* bytes, where *n* is the length its ``BlobReference``
/// records; the file may be longer. An append writes only the new bytes, at the end of the file it extends, and
/// links the longer content's name to the same file (``append(_:to:)``), so uploading a document in many chunks
/// costs its size on disk, not the sum of every intermediate size. Every read stops at the recorded length.
///
/// A blob nothing refers to is removed soon after the last reference goes (``BlobLease``, and
/// ``connectJanitor(isReferenced:grace:)``), and at start-up (``collectGarbage(keeping:olderThan:)``).
///
/// ```
/// <directory>/objects/3a/3a7bd3e2360a3d…   blobs: whole from their first byte up to their length
/// <directory>/tmp/upload-XXXXXX             writers in progress (removed at start)
/// ```
public struct BlobStore: Sendable {
    /// The store's root folder.
    public let directory: URL
    private let objectsDirectory: URL
    private let temporaryDirectory: URL
    let claims: BlobClaims
    let janitor: BlobJanitor

    /// Opens (creating if needed) a blob store in `directory` and removes any temporary files a previous run left.
    /// Its folders are readable by their owner only, as are blob files (``BlobWriter`` creates them 0600).
    public init(directory: URL) throws(BlobStoreError) {
        self.directory = directory
        let objectsDirectory = directory.appendingPathComponent("objects", isDirectory: true)
        self.objectsDirectory = objectsDirectory
        temporaryDirectory = directory.appendingPathComponent("tmp", isDirectory: true)
        claims = BlobClaims()
        janitor = BlobJanitor(claims: claims) { hash in Self.url(for: hash, in: objectsDirectory).path }
        let manager = FileManager.default
        do {
            for folder in [directory, objectsDirectory, temporaryDirectory] { try PrivateFiles.createFolder(folder) }
            for leftover in try manager.contentsOfDirectory(atPath: temporaryDirectory.path) {
                try? manager.removeItem(at: temporaryDirectory.appendingPathComponent(leftover))
            }
        } catch {
            throw BlobStoreError(operation: "open", path: directory.path, reason: String(describing: error))
        }
    }

    /// Starts a new blob. Write its bytes, then call ``BlobWriter/finish()``; a writer dropped before that
    /// removes its temporary file.
    ///
    /// - Parameter maxBytes: fail with ``BlobStoreError`` once more than this many bytes arrive.
    public func makeWriter(maxBytes: Int64? = nil) throws(BlobStoreError) -> BlobWriter {
        try BlobWriter(store: self, temporaryDirectory: temporaryDirectory, maxBytes: maxBytes)
    }

    /// Stores `data` as a blob (for small content and tests), on a dispatch thread (`BlockingWork`).
    public func put(_ data: Data) async throws(BlobStoreError) -> BlobLease {
        try await BlockingWork.shared.run { [self] () throws(BlobStoreError) -> BlobLease in
            let writer = try makeWriter()
            try writer.write(data)
            return try writer.finishNow()
        }
    }

    /// Lets the store remove blobs once nothing refers to them: `isReferenced` asks the metadata store. `grace`
    /// spares blobs written or claimed that recently (several server processes sharing one blob folder cannot see
    /// each other's uploads in progress); they are checked again once it has passed.
    public func connectJanitor(isReferenced: @escaping @Sendable (String) async throws -> Bool, grace: Duration) {
        janitor.connect(isReferenced: isReferenced, grace: grace)
    }

    /// A point before a commit that may release blobs: pass it to ``release(_:since:)`` after the commit.
    public func ticket() -> BlobTicket { BlobTicket(claims.openTicket()) }

    /// Removes the blobs a commit released (``StoreBatchResult/releasedContentHashes``) unless a request claimed
    /// one since `ticket`, and closes the ticket.
    public func release(_ hashes: Set<String>, since ticket: BlobTicket) {
        janitor.release(hashes, since: ticket.claims)
        claims.close(ticket.claims)
    }

    /// Closes a ticket whose commit failed.
    public func discard(_ ticket: BlobTicket) { claims.close(ticket.claims) }

    /// The file of a blob (which may not exist: see ``contains(_:)``). It may be longer than the blob: read only
    /// the length its reference records.
    public func url(for hash: String) -> URL { Self.url(for: hash, in: objectsDirectory) }

    private static func url(for hash: String, in objects: URL) -> URL {
        let shard = hash.count >= 2 ? String(hash.prefix(2)) : "00"
        return objects.appendingPathComponent(shard, isDirectory: true).appendingPathComponent(hash)
    }

    /// Whether a blob is present.
    public func contains(_ hash: String) -> Bool {
        isValidHash(hash) && FileManager.default.fileExists(atPath: url(for: hash).path)
    }

    /// Reads a whole blob into memory (for small content: text search, tests).
    public func data(for blob: BlobReference) throws(BlobStoreError) -> Data {
        guard isValidHash(blob.hash) else {
            throw BlobStoreError(operation: "read", path: blob.hash, reason: "not a SHA-256 blob name")
        }
        let file = url(for: blob.hash)
        do {
            let handle = try FileHandle(forReadingFrom: file)
            defer { try? handle.close() }
            let data = try handle.read(upToCount: Int(blob.length)) ?? Data()
            guard data.count == blob.length else {
                throw BlobStoreError(
                    operation: "read", path: file.path, reason: "the file is shorter than \(blob.length) bytes")
            }
            return data
        } catch let error as BlobStoreError {
            throw error
        } catch {
            throw BlobStoreError(operation: "read", path: file.path, reason: String(describing: error))
        }
    }

    /// Every blob in the store.
    public func allHashes() throws(BlobStoreError) -> Set<String> {
        let manager = FileManager.default
        var hashes: Set<String> = []
        do {
            for shard in try manager.contentsOfDirectory(atPath: objectsDirectory.path) {
                let folder = objectsDirectory.appendingPathComponent(shard, isDirectory: true)
                for name in try manager.contentsOfDirectory(atPath: folder.path) where isValidHash(name) {
                    hashes.insert(name)
                }
            }
        } catch {
            throw BlobStoreError(operation: "list", path: objectsDirectory.path, reason: String(describing: error))
        }
        return hashes
    }

    /// Removes every blob not in `referenced` and returns how many were removed.
    ///
    /// A blob is written before the metadata that refers to it is committed, so an upload in flight (in this
    /// process or another one sharing the store) owns a blob nothing refers to yet: pass `olderThan` to spare
    /// blobs written since then.
    @discardableResult
    public func collectGarbage(
        keeping referenced: Set<String>, olderThan cutoff: Date? = nil
    ) throws(BlobStoreError)
        -> Int
    {
        var removed = 0
        for hash in try allHashes() where !referenced.contains(hash) {
            let path = url(for: hash).path
            if let cutoff {
                let attributes = try? FileManager.default.attributesOfItem(atPath: path)
                guard let modified = attributes?[.modificationDate] as? Date, modified < cutoff else { continue }
            }
            if unlink(path) == 0 { removed += 1 }
        }
        return removed
    }

    /// Moves a finished temporary file into place under its hash (or drops it when those bytes are already
    /// stored) and pins the blob, in one step.
    func install(temporaryPath: String, reference: BlobReference) throws(BlobStoreError) -> BlobLease {
        let destination = try preparedURL(for: reference.hash)
        let shard = destination.deletingLastPathComponent()
        let renamed = try claims.pinning(reference.hash) { () throws(BlobStoreError) -> Bool in
            if FileManager.default.fileExists(atPath: destination.path) {
                unlink(temporaryPath)  // the same bytes are already stored
                _ = utimes(destination.path, nil)  // recently claimed, for another process's grace
                return false
            }
            guard rename(temporaryPath, destination.path) == 0 else {
                let reason = String(cString: strerror(errno))
                unlink(temporaryPath)
                throw BlobStoreError(operation: "store", path: destination.path, reason: reason)
            }
            return true
        }
        let lease = BlobLease(reference, claims: claims, janitor: janitor)
        if renamed { Self.syncFolder(shard) }
        return lease
    }

    /// The file of a blob about to be put in place, its shard folder created.
    func preparedURL(for hash: String) throws(BlobStoreError) -> URL {
        let destination = url(for: hash)
        let shard = destination.deletingLastPathComponent()
        if mkdir(shard.path, 0o700) != 0 && errno != EEXIST {
            throw BlobStoreError(operation: "store", path: shard.path, reason: String(cString: strerror(errno)))
        }
        return destination
    }

    /// Makes a rename or link in `folder` durable.
    static func syncFolder(_ folder: URL) {
        let descriptor = open(folder.path, O_RDONLY)
        if descriptor >= 0 {
            _ = fsync(descriptor)
            close(descriptor)
        }
    }

    /// Renders a digest as lower-case hex.
    static func hex(_ digest: SHA256.Digest) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        bytes.reserveCapacity(64)
        for byte in digest {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 15)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    func isValidHash(_ hash: String) -> Bool {
        hash.utf8.count == 64 && hash.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}

/// A blob store failure: what was being done, on which file, and why.
public struct BlobStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being done: `open`, `create`, `write`, `sync`, `finish`, `store`, `read`, `list`, `append` or `link`.
    public var operation: String
    /// The file or folder concerned (for a name that is not a blob name, the name itself).
    public var path: String
    /// Why it failed: the system's error text, or the store's own explanation.
    public var reason: String
    /// True when the content was larger than the writer's limit.
    public var limitExceeded: Bool

    /// An error of `operation` on `path`; `limitExceeded` only for content over a writer's limit.
    public init(operation: String, path: String, reason: String, limitExceeded: Bool = false) {
        self.operation = operation
        self.path = path
        self.reason = reason
        self.limitExceeded = limitExceeded
    }

    /// `blob store: <operation> <path>: <reason>`.
    public var description: String { "blob store: \(operation) \(path): \(reason)" }
}

/// A point before a commit that may release blobs (``BlobStore/ticket()``).
public struct BlobTicket: Sendable {
    let claims: BlobClaims.Ticket
    init(_ claims: BlobClaims.Ticket) { self.claims = claims }
}
