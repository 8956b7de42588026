import Crypto
import Foundation

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
/// ```
/// <directory>/objects/3a/3a7bd3e2360a3d…   whole blobs, read-only once in place
/// <directory>/tmp/upload-XXXXXX             writers in progress (removed at start)
/// ```
public struct BlobStore: Sendable {
    /// The store's root folder.
    public let directory: URL
    private let objectsDirectory: URL
    private let temporaryDirectory: URL

    /// Opens (creating if needed) a blob store in `directory` and removes any temporary files a previous run left.
    /// Its folders are readable by their owner only, as are blob files (``BlobWriter`` creates them 0600).
    public init(directory: URL) throws(BlobStoreError) {
        self.directory = directory
        objectsDirectory = directory.appendingPathComponent("objects", isDirectory: true)
        temporaryDirectory = directory.appendingPathComponent("tmp", isDirectory: true)
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

    /// Stores `data` as a blob (for small content and tests).
    public func put(_ data: Data) throws(BlobStoreError) -> BlobReference {
        let writer = try makeWriter()
        try writer.write(data)
        return try writer.finish()
    }

    /// The file of a blob (which may not exist: see ``contains(_:)``).
    public func url(for hash: String) -> URL {
        let shard = hash.count >= 2 ? String(hash.prefix(2)) : "00"
        return objectsDirectory.appendingPathComponent(shard, isDirectory: true).appendingPathComponent(hash)
    }

    /// Whether a blob is present.
    public func contains(_ hash: String) -> Bool {
        isValidHash(hash) && FileManager.default.fileExists(atPath: url(for: hash).path)
    }

    /// Reads a whole blob into memory (for small content: text search, tests).
    public func data(for hash: String) throws(BlobStoreError) -> Data {
        guard isValidHash(hash) else {
            throw BlobStoreError(operation: "read", path: hash, reason: "not a SHA-256 blob name")
        }
        do {
            return try Data(contentsOf: url(for: hash))
        } catch {
            throw BlobStoreError(operation: "read", path: url(for: hash).path, reason: String(describing: error))
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

    /// Moves a finished temporary file into place under `hash`.
    fileprivate func install(temporaryPath: String, hash: String) throws(BlobStoreError) {
        let destination = url(for: hash)
        let shard = destination.deletingLastPathComponent()
        if mkdir(shard.path, 0o700) != 0 && errno != EEXIST {
            throw BlobStoreError(operation: "store", path: shard.path, reason: String(cString: strerror(errno)))
        }
        if FileManager.default.fileExists(atPath: destination.path) {
            unlink(temporaryPath)  // the same bytes are already stored
            return
        }
        guard rename(temporaryPath, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(temporaryPath)
            throw BlobStoreError(operation: "store", path: destination.path, reason: reason)
        }
        // Make the rename itself durable.
        let folder = open(shard.path, O_RDONLY)
        if folder >= 0 {
            _ = fsync(folder)
            close(folder)
        }
    }

    private func isValidHash(_ hash: String) -> Bool {
        hash.utf8.count == 64 && hash.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}

/// Writes one blob: bytes go to a temporary file and into a SHA-256 hash at the same time.
///
/// Not thread-safe: one task writes. ``finish()`` makes the blob durable and visible; ``cancel()`` (or dropping
/// the writer) throws the bytes away.
public final class BlobWriter {
    private let store: BlobStore
    private let path: String
    private var descriptor: Int32
    private var hasher = SHA256()
    private let maxBytes: Int64?
    /// Bytes written so far.
    public private(set) var length: Int64 = 0

    fileprivate init(store: BlobStore, temporaryDirectory: URL, maxBytes: Int64?) throws(BlobStoreError) {
        self.store = store
        self.maxBytes = maxBytes
        var template = Array(temporaryDirectory.appendingPathComponent("upload-XXXXXX").path.utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        guard descriptor >= 0 else {
            throw BlobStoreError(
                operation: "create", path: temporaryDirectory.path, reason: String(cString: strerror(errno)))
        }
        self.descriptor = descriptor
        path = template.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }
    }

    deinit { cancel() }

    /// Appends bytes.
    public func write(_ bytes: UnsafeRawBufferPointer) throws(BlobStoreError) {
        guard descriptor >= 0 else { throw BlobStoreError(operation: "write", path: path, reason: "writer is closed") }
        if let maxBytes, length + Int64(bytes.count) > maxBytes {
            cancel()
            throw BlobStoreError(
                operation: "write", path: path, reason: "content is larger than the limit of \(maxBytes) bytes",
                limitExceeded: true)
        }
        hasher.update(bufferPointer: bytes)
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                let reason = String(cString: strerror(errno))
                cancel()
                throw BlobStoreError(operation: "write", path: path, reason: reason)
            }
            offset += written
        }
        length += Int64(bytes.count)
    }

    /// Appends bytes.
    public func write(_ data: Data) throws(BlobStoreError) {
        var failure: BlobStoreError?
        data.withUnsafeBytes { buffer in
            do throws(BlobStoreError) { try write(buffer) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Appends bytes.
    public func write(_ bytes: [UInt8]) throws(BlobStoreError) {
        var failure: BlobStoreError?
        bytes.withUnsafeBytes { buffer in
            do throws(BlobStoreError) { try write(buffer) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Appends a whole file (an existing blob, for appendContentStream), in 1 MiB pieces.
    public func write(contentsOf file: URL) throws(BlobStoreError) {
        let source = open(file.path, O_RDONLY)
        guard source >= 0 else {
            throw BlobStoreError(operation: "read", path: file.path, reason: String(cString: strerror(errno)))
        }
        defer { close(source) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        while true {
            let count = read(source, buffer.baseAddress!, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                throw BlobStoreError(operation: "read", path: file.path, reason: String(cString: strerror(errno)))
            }
            if count == 0 { break }
            try write(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }

    /// Flushes the bytes to disk, moves the blob into place and returns its reference.
    public func finish() throws(BlobStoreError) -> BlobReference {
        guard descriptor >= 0 else { throw BlobStoreError(operation: "finish", path: path, reason: "writer is closed") }
        if fsync(descriptor) != 0 {
            let reason = String(cString: strerror(errno))
            cancel()
            throw BlobStoreError(operation: "sync", path: path, reason: reason)
        }
        close(descriptor)
        descriptor = -1
        let hash = hasher.finalize().map { String(format: "%02x", $0) }.joined()
        try store.install(temporaryPath: path, hash: hash)
        return BlobReference(hash: hash, length: length)
    }

    /// Throws the bytes away. Safe to call more than once.
    public func cancel() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        unlink(path)
    }
}

/// A blob store failure: what was being done, on which file, and why.
public struct BlobStoreError: Error, Sendable, Hashable, CustomStringConvertible {
    public var operation: String
    public var path: String
    public var reason: String
    /// True when the content was larger than the writer's limit.
    public var limitExceeded: Bool

    public init(operation: String, path: String, reason: String, limitExceeded: Bool = false) {
        self.operation = operation
        self.path = path
        self.reason = reason
        self.limitExceeded = limitExceeded
    }

    public var description: String { "blob store: \(operation) \(path): \(reason)" }
}

/// `write(2)`, called where the method of the same name shadows it.
private func systemWrite(_ descriptor: Int32, _ buffer: UnsafeRawPointer, _ count: Int) -> Int {
    #if canImport(Darwin)
        return Darwin.write(descriptor, buffer, count)
    #elseif canImport(Musl)
        return Musl.write(descriptor, buffer, count)
    #else
        return Glibc.write(descriptor, buffer, count)
    #endif
}
