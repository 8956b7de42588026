import Crypto
public import Foundation
public import Logging
import SatchelText

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Content-addressed storage for content streams: each blob is named by the SHA-256 of its bytes, and kept by a
/// ``BlobBackend``: a folder on the local disk (``init(directory:)``, the default) or an object store several server
/// processes share (``init(backend:scratchDirectory:)``).
///
/// Blobs are written by a ``BlobWriter`` to a scratch file on the local disk, hashed while they are written, and
/// handed whole to the back-end under their hash: a crash at any point leaves either no blob or a whole one, never
/// half a file under a blob's name. Identical content is stored once.
///
/// A blob's name is the SHA-256 of its first *n* bytes, where *n* is the length its ``BlobReference`` records; on the
/// local disk the file may be longer: an append writes only the new bytes, at the end of the file it extends, and
/// links the longer content's name to the same file (``append(_:to:)``), so uploading a document in many chunks
/// costs its size on disk, not the sum of every intermediate size. Every read stops at the recorded length.
///
/// A blob nothing refers to is removed soon after the last reference goes (``BlobLease``, and
/// ``connectJanitor(isReferenced:grace:)``), and at start-up (``collectGarbage(keeping:olderThan:)``).
///
/// ```
/// <directory>/objects/3a/3a7bd3e2360a3d…   blobs (LocalBlobBackend): whole from their first byte up to their length
/// <directory>/tmp/upload-XXXXXX             writers in progress (removed at start)
/// ```
public struct BlobStore: Sendable {
    /// Where blob store failures are logged (`satchel.blobs`): the reasons callers are not told, since they name the
    /// store's hosts and objects.
    public static let logger = Logger(label: "satchel.blobs")

    /// Where whole blobs are kept (every call timed through ``timings``).
    public let backend: any BlobBackend
    /// How long the back-end's calls take (`store` with the blob's bytes: every upload; `open`, `remove`, …).
    public let timings: OperationTimings
    /// Where writers put their scratch files (on the local disk, this process's own).
    public let scratchDirectory: URL
    /// The back-end when it is the local disk: appends extend its files in place.
    let local: LocalBlobBackend?
    let claims: BlobClaims
    let janitor: BlobJanitor

    /// Opens (creating if needed) a blob store on the local disk in `directory` (``LocalBlobBackend``), its scratch
    /// files in `directory/tmp`, and removes any scratch files a previous run left. Its folders are readable by their
    /// owner only, as are blob files (``BlobWriter`` creates them 0600).
    public init(directory: URL) throws(BlobStoreError) {
        try self.init(
            backend: LocalBlobBackend(directory: directory),
            scratchDirectory: directory.appendingPathComponent("tmp", isDirectory: true))
    }

    /// A blob store keeping blobs in `backend`, writing scratch files to `scratchDirectory` (created owner-only if
    /// needed; what a previous run left there is removed). For a ``LocalBlobBackend`` the scratch folder must be on
    /// the same file system as its folder.
    public init(backend: any BlobBackend, scratchDirectory: URL) throws(BlobStoreError) {
        let timings = OperationTimings()
        let timed = TimedBlobBackend(base: backend, timings: timings)
        self.timings = timings
        self.backend = timed
        self.scratchDirectory = scratchDirectory
        local = backend as? LocalBlobBackend
        claims = BlobClaims()
        janitor = BlobJanitor(claims: claims, backend: timed)
        let manager = FileManager.default
        do {
            try PrivateFiles.createFolder(scratchDirectory)
            for leftover in try manager.contentsOfDirectory(atPath: scratchDirectory.path) {
                try? manager.removeItem(at: scratchDirectory.appendingPathComponent(leftover))
            }
        } catch {
            throw BlobStoreError(operation: "open", path: scratchDirectory.path, reason: String(describing: error))
        }
    }

    /// Where the blobs are: a folder's path, or `s3://bucket/prefix`.
    public var location: String { backend.location }

    /// Starts a new blob. Write its bytes, then call ``BlobWriter/finish()``; a writer dropped before that
    /// removes its scratch file.
    ///
    /// - Parameter maxBytes: fail with ``BlobStoreError`` once more than this many bytes arrive.
    public func makeWriter(maxBytes: Int64? = nil) throws(BlobStoreError) -> BlobWriter {
        try BlobWriter(store: self, temporaryDirectory: scratchDirectory, maxBytes: maxBytes)
    }

    /// Stores `data` as a blob (for small content and tests); the scratch file is written on a dispatch thread
    /// (`BlockingWork`).
    public func put(_ data: Data) async throws(BlobStoreError) -> BlobLease {
        let writer = try await BlockingWork.shared.run { [self] () throws(BlobStoreError) -> BlobWriterBox in
            let writer = try makeWriter()
            try writer.write(data)
            return BlobWriterBox(writer: writer)
        }
        return try await writer.writer.finish()
    }

    /// Lets the store remove blobs once nothing refers to them: `isReferenced` asks the metadata store. `grace`
    /// spares blobs written that recently (several server processes sharing the blobs cannot see each other's
    /// uploads in progress); they are checked again once it has passed.
    public func connectJanitor(isReferenced: @escaping @Sendable (String) async throws -> Bool, grace: Duration) {
        janitor.connect(isReferenced: isReferenced, grace: grace)
    }

    /// A point before a commit that may release blobs: pass it to ``release(_:since:)`` after the commit.
    public func ticket() -> BlobTicket { BlobTicket(claims.openTicket()) }

    /// Removes the blobs a commit released (``StoreBatchResult/releasedContentHashes``) unless a request claimed
    /// one since `ticket`, and closes the ticket.
    ///
    /// On the local disk this is done before it returns (an unlink each). Other back-ends remove in the background:
    /// a request that released many blobs does not wait for a round trip per blob after its commit.
    public func release(_ hashes: Set<String>, since ticket: BlobTicket) async {
        guard !hashes.isEmpty else {
            claims.close(ticket.claims)
            return
        }
        if local != nil {
            await janitor.release(hashes, since: ticket.claims)
            claims.close(ticket.claims)
            return
        }
        Task.detached { [janitor, claims] in
            await janitor.release(hashes, since: ticket.claims)
            claims.close(ticket.claims)
        }
    }

    /// Whether `lease` was handed out by this store (a lease proves its blob is stored only in the store it came
    /// from).
    /// A lease that has ended proves nothing.
    public func owns(_ lease: BlobLease) -> Bool { lease.claims === claims && !lease.hasEnded }

    /// Closes a ticket whose commit failed.
    public func discard(_ ticket: BlobTicket) { claims.close(ticket.claims) }

    /// The local file of a blob when the back-end keeps blobs on the local disk (it may not exist, and may be longer
    /// than the blob: read only the length its reference records); nil for other back-ends.
    public func localFile(for hash: String) -> URL? { local?.url(for: hash) }

    /// Whether a blob is stored.
    public func contains(_ hash: String) async throws(BlobStoreError) -> Bool {
        guard BlobName.isValid(hash) else { return false }
        return try await backend.lastWritten(hash) != nil
    }

    /// Starts reading a blob's bytes (`range`: inclusive offsets, the whole blob when nil), in chunks, in constant
    /// memory. A missing blob throws with ``BlobStoreError/isMissing``.
    public func read(
        _ blob: BlobReference, range: ClosedRange<Int64>? = nil
    ) async throws(BlobStoreError) -> AsyncThrowingStream<[UInt8], any Error> {
        guard BlobName.isValid(blob.hash) else {
            throw BlobStoreError(operation: "read", path: blob.hash, reason: "not a SHA-256 blob name")
        }
        if let range, range.lowerBound < 0 || range.upperBound >= blob.length {
            throw BlobStoreError(
                operation: "read", path: blob.hash,
                reason: "the range \(range.lowerBound)-\(range.upperBound) is outside its \(blob.length) bytes")
        }
        return try await backend.read(blob, range: range)
    }

    /// Reads a whole blob into memory (for small content: text search, tests).
    public func data(for blob: BlobReference) async throws(BlobStoreError) -> Data {
        var data = Data()
        data.reserveCapacity(Int(min(blob.length, 1 << 24)))
        do {
            for try await chunk in try await read(blob) { data.append(contentsOf: chunk) }
        } catch let error as BlobStoreError {
            throw error
        } catch {
            throw BlobStoreError(operation: "read", path: blob.hash, reason: String(describing: error))
        }
        guard data.count == blob.length else {
            throw BlobStoreError(
                operation: "read", path: blob.hash,
                reason: "\(data.count) bytes were read where the blob has \(blob.length)")
        }
        return data
    }

    /// A stored blob as content going out: the local file (sent with Range support) when the back-end is the local
    /// disk, else a stream read from the back-end as it is sent (a range read for a Range request). The hash is the
    /// entity tag either way. A blob missing from the back-end throws ``BlobStoreError/isMissing``: at once for a
    /// local file, when the stream is opened otherwise.
    public func content(
        _ blob: BlobReference, mimeType: String, fileName: String?
    ) async throws(BlobStoreError) -> ContentOutput {
        if let local {
            let file = local.url(for: blob.hash)
            guard FileManager.default.fileExists(atPath: file.path) else {
                throw BlobStoreError(operation: "read", path: file.path, reason: "no such blob", isMissing: true)
            }
            return ContentOutput(
                file: file, length: blob.length, mimeType: mimeType, fileName: fileName, hash: blob.hash)
        }
        let streamer = ContentStreamer { [self] range in try await read(blob, range: range) }
        return ContentOutput(
            stream: streamer, length: blob.length, mimeType: mimeType, fileName: fileName, hash: blob.hash)
    }

    /// Runs `body` with a local file of exactly the blob's bytes: the blob's own file when the back-end is the local
    /// disk and the file is no longer than the blob, else a scratch copy read from the back-end and removed once
    /// `body` returns.
    public func withFile<T>(_ blob: BlobReference, _ body: (URL) async throws -> T) async throws -> T {
        if let file = localFile(for: blob.hash),
            let size = (try? FileManager.default.attributesOfItem(atPath: file.path))?[.size] as? NSNumber,
            size.int64Value == blob.length
        {
            return try await body(file)
        }
        let scratch = scratchDirectory.appendingPathComponent("copy-" + UUID().uuidString.lowercased())
        guard
            FileManager.default.createFile(atPath: scratch.path, contents: nil, attributes: [.posixPermissions: 0o600])
        else {
            throw BlobStoreError(operation: "create", path: scratch.path, reason: "the scratch file cannot be created")
        }
        defer { try? FileManager.default.removeItem(at: scratch) }
        let handle = try FileHandle(forWritingTo: scratch)
        do {
            for try await chunk in try await read(blob) { try handle.write(contentsOf: chunk) }
            try handle.close()
        } catch {
            try? handle.close()
            throw error
        }
        return try await body(scratch)
    }

    /// Every blob in the store, with when each was last stored.
    public func list() async throws(BlobStoreError) -> [BlobListing] { try await backend.list() }

    /// Removes every blob that `referenced` (asked once, after this call has started watching this process's
    /// requests) does not name, and says what it did.
    ///
    /// A blob is written before the metadata that refers to it is committed, so an upload in flight (in this
    /// process or another one sharing the blobs) owns a blob nothing refers to yet: pass `olderThan` to spare
    /// blobs written since then; on a shared back-end each blob's date is read again just before it goes. Blobs this
    /// process's requests hold are spared too. A removal that fails is counted and the others go on.
    ///
    /// On a back-end other than the local disk, whose blobs outlive any one server's metadata, nothing is removed
    /// when more than half of its blobs would go: that is a metadata store that is not the one these blobs belong
    /// to (a new database, another deployment's bucket), not garbage.
    @discardableResult
    public func collectGarbage(
        keeping referenced: () async throws -> Set<String>, olderThan cutoff: Date? = nil
    ) async throws -> BlobCollection {
        let ticket = claims.openTicket()
        defer { claims.close(ticket) }
        let kept = try await referenced()
        let listed = try await backend.list()
        let candidates = listed.filter { blob in
            !kept.contains(blob.hash) && (cutoff.map { blob.lastWritten < $0 } ?? true)
        }
        var collection = BlobCollection(listed: listed.count)
        if local == nil, !candidates.isEmpty, candidates.count * 2 > listed.count {
            collection.refusal =
                "\(candidates.count) of the \(listed.count) blobs in \(backend.location) are not referenced by this "
                + "metadata store: more than half, so none was removed (is this the store these blobs belong to?)"
            return collection
        }
        for blob in candidates {
            if let cutoff, local == nil {
                // Stored again by another process since the listing was read: it is that upload's now.
                guard let written = try? await backend.lastWritten(blob.hash), written < cutoff else { continue }
            }
            guard case .started = claims.beginRemoval(blob.hash, since: ticket) else { continue }
            defer { claims.endRemoval(blob.hash) }
            do {
                try await backend.remove(blob.hash)
                collection.removed += 1
            } catch {
                collection.failures.append("\(error)")
            }
        }
        return collection
    }

    /// Throws unless the back-end can be used now (for readiness): a bucket that answers, a folder that is there.
    public func checkAvailable() async throws(BlobStoreError) { try await backend.checkAvailable() }

    /// Hands a finished scratch file to the back-end under its hash and pins the blob. The pin comes first: from
    /// then on no removal of the same name can begin, and one already under way is waited for.
    func install(
        temporaryPath: String, reference: BlobReference, partDigests: [String]
    ) async throws(BlobStoreError) -> BlobLease {
        claims.pin(reference.hash)
        await claims.waitWhileRemoving(reference.hash)
        do {
            try await backend.store(URL(fileURLWithPath: temporaryPath), as: reference, partDigests: partDigests)
        } catch {
            claims.unpin(reference.hash)
            throw error
        }
        return BlobLease(reference, claims: claims, janitor: janitor)
    }

    /// Renders a digest as lower-case hex.
    static func hex(_ digest: SHA256.Digest) -> String { Hex.lowercase(digest) }
}

/// What ``BlobStore/collectGarbage(keeping:olderThan:)`` did.
public struct BlobCollection: Sendable, Hashable {
    /// Blobs the back-end listed.
    public var listed: Int
    /// Blobs removed.
    public var removed = 0
    /// Why each failed removal failed (the others went on).
    public var failures: [String] = []
    /// Why nothing was removed, when the collection refused to run.
    public var refusal: String?

    /// A collection that has listed `listed` blobs and done nothing yet.
    public init(listed: Int) { self.listed = listed }
}

/// A writer handed from the dispatch thread that filled it back to the task that finishes it.
struct BlobWriterBox: @unchecked Sendable {
    let writer: BlobWriter
}

/// A blob store failure: what was being done, on which file, and why.
public struct BlobStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What was being done: `open`, `create`, `write`, `sync`, `finish`, `store`, `read`, `list`, `remove`, `append` or `link`.
    public var operation: String
    /// The file or folder concerned (for a name that is not a blob name, the name itself).
    public var path: String
    /// Why it failed: the system's error text, or the store's own explanation.
    public var reason: String
    /// True when the content was larger than the writer's limit.
    public var limitExceeded: Bool
    /// True when the blob is not in the store.
    public var isMissing: Bool

    /// An error of `operation` on `path`; `limitExceeded` only for content over a writer's limit, `isMissing` only
    /// for a blob that is not there.
    public init(
        operation: String, path: String, reason: String, limitExceeded: Bool = false, isMissing: Bool = false
    ) {
        self.operation = operation
        self.path = path
        self.reason = reason
        self.limitExceeded = limitExceeded
        self.isMissing = isMissing
    }

    /// `blob store: <operation> <path>: <reason>`.
    public var description: String { "blob store: \(operation) \(path): \(reason)" }
}

/// A point before a commit that may release blobs (``BlobStore/ticket()``).
public struct BlobTicket: Sendable {
    let claims: BlobClaims.Ticket
    init(_ claims: BlobClaims.Ticket) { self.claims = claims }
}
