public import Foundation
import SatchelText
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Blobs as files in a folder on the local disk: `objects/ab/abcdef…`, readable by their owner only.
///
/// A blob is put in place by `fsync` of the scratch file, `rename(2)` and an `fsync` of the shard folder, so a crash
/// leaves either no blob or a whole one. Storing bytes already stored drops the scratch file and touches the existing
/// file's modification time (``BlobListing/lastWritten``). The scratch folder must be on the same file system as the
/// blobs (``BlobStore/init(directory:)`` keeps both in one folder).
///
/// A blob file may be longer than the blob: an append extends the file it appends to in place and links the longer
/// content's name to it (``BlobStore/append(_:to:)``). Every read stops at the length the reference records.
public struct LocalBlobBackend: BlobBackend {
    /// The folder holding `objects/`.
    public let directory: URL
    let objectsDirectory: URL

    /// Blobs under `directory/objects`, created (owner-only) if needed.
    public init(directory: URL) throws(BlobStoreError) {
        self.directory = directory
        objectsDirectory = directory.appendingPathComponent("objects", isDirectory: true)
        do {
            for folder in [directory, objectsDirectory] { try PrivateFiles.createFolder(folder) }
        } catch {
            throw BlobStoreError(operation: "open", path: directory.path, reason: String(describing: error))
        }
    }

    /// The folder's path.
    public var location: String { directory.path }

    /// The file of a blob (which may not exist, and may be longer than the blob).
    public func localFile(for hash: String) -> URL? { url(for: hash) }

    func url(for hash: String) -> URL {
        let shard = hash.count >= 2 ? String(hash.prefix(2)) : "00"
        return objectsDirectory.appendingPathComponent(shard, isDirectory: true).appendingPathComponent(hash)
    }

    /// Flushes the scratch file and renames it into place (or drops it, touching the stored copy), on a dispatch
    /// thread.
    public func store(_ file: URL, as reference: BlobReference, partDigests: [String]) async throws(BlobStoreError) {
        try await BlockingWork.shared.run { [self] () throws(BlobStoreError) in try storeNow(file, as: reference) }
    }

    func storeNow(_ file: URL, as reference: BlobReference) throws(BlobStoreError) {
        let scratch = file.path
        let descriptor = open(scratch, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let reason = String(cString: strerror(errno))
            unlink(scratch)
            throw BlobStoreError(operation: "sync", path: scratch, reason: reason)
        }
        let synced = fsync(descriptor) == 0
        let reason = synced ? "" : String(cString: strerror(errno))
        close(descriptor)
        guard synced else {
            unlink(scratch)
            throw BlobStoreError(operation: "sync", path: scratch, reason: reason)
        }
        let destination: URL
        do throws(BlobStoreError) {
            destination = try preparedURL(for: reference.hash)
        } catch {
            unlink(scratch)
            throw error
        }
        if FileManager.default.fileExists(atPath: destination.path) {
            unlink(scratch)  // the same bytes are already stored
            _ = utimes(destination.path, nil)  // written just now, for another process's grace
            return
        }
        guard rename(scratch, destination.path) == 0 else {
            let reason = String(cString: strerror(errno))
            unlink(scratch)
            throw BlobStoreError(operation: "store", path: destination.path, reason: reason)
        }
        Self.syncFolder(destination.deletingLastPathComponent())
    }

    /// Reads the file in 1 MiB pieces, each on a dispatch thread.
    public func read(
        _ blob: BlobReference, range: ClosedRange<Int64>?
    ) async throws(BlobStoreError) -> AsyncThrowingStream<[UInt8], any Error> {
        let file = url(for: blob.hash)
        let descriptor = open(file.path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw BlobStoreError(
                operation: "read", path: file.path, reason: String(cString: strerror(errno)), isMissing: errno == ENOENT
            )
        }
        let reader = FileRangeReader(
            descriptor: descriptor, path: file.path, start: range?.lowerBound ?? 0,
            end: range.map { $0.upperBound + 1 } ?? blob.length, length: blob.length)
        return AsyncThrowingStream { try await reader.next() }
    }

    /// The file's modification time.
    public func lastWritten(_ hash: String) async throws(BlobStoreError) -> Date? {
        Self.modificationTime(url(for: hash).path)
    }

    /// Unlinks the file.
    public func remove(_ hash: String) async throws(BlobStoreError) {
        let path = url(for: hash).path
        if unlink(path) != 0 && errno != ENOENT {
            throw BlobStoreError(operation: "remove", path: path, reason: String(cString: strerror(errno)))
        }
    }

    /// Every file named as a blob, with its modification time.
    public func list() async throws(BlobStoreError) -> [BlobListing] {
        let manager = FileManager.default
        var listings: [BlobListing] = []
        do {
            for shard in try manager.contentsOfDirectory(atPath: objectsDirectory.path) {
                let folder = objectsDirectory.appendingPathComponent(shard, isDirectory: true)
                for name in try manager.contentsOfDirectory(atPath: folder.path) where BlobName.isValid(name) {
                    let modified = Self.modificationTime(folder.appendingPathComponent(name).path)
                    listings.append(BlobListing(hash: name, lastWritten: modified ?? .distantPast))
                }
            }
        } catch {
            throw BlobStoreError(operation: "list", path: objectsDirectory.path, reason: String(describing: error))
        }
        return listings
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

    static func modificationTime(_ path: String) -> Date? {
        (try? FileManager.default.attributesOfItem(atPath: path))?[.modificationDate] as? Date
    }
}

/// Reads a range of an open file in 1 MiB pieces on a dispatch thread, closing the file at the end (or when dropped).
private final class FileRangeReader: Sendable {
    private let descriptor: Int32
    private let path: String
    private let end: Int64
    private let length: Int64
    private let state: Mutex<(position: Int64, closed: Bool)>

    /// Bytes `start..<end` of the file; `length` is the blob's, for messages.
    init(descriptor: Int32, path: String, start: Int64, end: Int64, length: Int64) {
        self.descriptor = descriptor
        self.path = path
        self.end = end
        self.length = length
        state = Mutex((start, false))
    }

    deinit { release() }

    func next() async throws -> [UInt8]? {
        let start = state.withLock { $0.closed ? end : $0.position }
        guard start < end else {
            release()
            return nil
        }
        let count = Int(min(Int64(1 << 20), end - start))
        let (descriptor, path, length) = (self.descriptor, self.path, self.length)
        let bytes = try await BlockingWork.shared.run { () throws(BlobStoreError) -> [UInt8] in
            var bytes = [UInt8](repeating: 0, count: count)
            let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress!, count, off_t(start)) }
            if read < 0 {
                throw BlobStoreError(operation: "read", path: path, reason: String(cString: strerror(errno)))
            }
            if read == 0 {
                throw BlobStoreError(operation: "read", path: path, reason: "the file is shorter than \(length) bytes")
            }
            bytes.removeLast(count - read)
            return bytes
        }
        state.withLock { $0.position = start + Int64(bytes.count) }
        return bytes
    }

    private func release() {
        let open = state.withLock { state -> Bool in
            defer { state.closed = true }
            return !state.closed
        }
        if open { close(descriptor) }
    }
}
