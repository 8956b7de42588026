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

/// Writes one blob: bytes go to a temporary file and into a SHA-256 hash at the same time.
///
/// Not thread-safe: one task writes. ``finish()`` makes the blob durable and visible; ``cancel()`` (or dropping the
/// writer) throws the bytes away.
public final class BlobWriter {
    private let store: BlobStore
    private let path: String
    private var descriptor: Int32
    private var hasher = SHA256()
    /// The SHA-256 of each `partSize` slice, for a back-end that checks uploads part by part
    /// (``BlobBackend/partSize``): the first part's is the whole hash's state at its end, so only later parts are
    /// hashed twice.
    private let partSize: Int64?
    private var partHasher = SHA256()
    private var partDigests: [String] = []
    private let maxBytes: Int64?
    /// Bytes written so far.
    public private(set) var length: Int64 = 0

    init(store: BlobStore, temporaryDirectory: URL, maxBytes: Int64?) throws(BlobStoreError) {
        self.store = store
        self.maxBytes = maxBytes
        partSize = store.backend.partSize.flatMap { $0 > 0 ? $0 : nil }
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
        if let partSize { hashParts(bytes, partSize: partSize) } else { hasher.update(bufferPointer: bytes) }
        var offset = 0
        while offset < bytes.count {
            let written = SystemCalls.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                let reason = String(cString: strerror(errno))
                cancel()
                throw BlobStoreError(operation: "write", path: path, reason: reason)
            }
            offset += written
        }
        length += Int64(bytes.count)
    }

    /// Feeds the whole hash and, past the first part, the current part's, finishing a part at each boundary.
    private func hashParts(_ bytes: UnsafeRawBufferPointer, partSize: Int64) {
        var offset = 0
        var position = length
        while offset < bytes.count {
            let room = Int(min(Int64(bytes.count - offset), partSize - position % partSize))
            let slice = UnsafeRawBufferPointer(rebasing: bytes[offset..<(offset + room)])
            hasher.update(bufferPointer: slice)
            if position >= partSize { partHasher.update(bufferPointer: slice) }
            offset += room
            position += Int64(room)
            if position % partSize == 0 {
                if position == partSize {
                    let firstPart = hasher  // a copy: the whole hash goes on
                    partDigests.append(BlobStore.hex(firstPart.finalize()))
                } else {
                    partDigests.append(BlobStore.hex(partHasher.finalize()))
                    partHasher = SHA256()
                }
            }
        }
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

    /// Appends a file's first `length` bytes (all of it when nil), in 1 MiB pieces.
    public func write(contentsOf file: URL, length: Int64? = nil) throws(BlobStoreError) {
        var failure: BlobStoreError?
        try BlobStore.readFile(file, length: length) { bytes in
            guard failure == nil else { return }
            do throws(BlobStoreError) { try write(bytes) } catch { failure = error }
        }
        if let failure { throw failure }
    }

    /// Appends a stored blob's bytes (read from the store's back-end, in constant memory).
    public func write(_ blob: BlobReference, from store: BlobStore) async throws(BlobStoreError) {
        do {
            for try await chunk in try await store.read(blob) { try write(chunk) }
        } catch let error as BlobStoreError {
            cancel()
            throw error
        } catch {
            cancel()
            throw BlobStoreError(operation: "read", path: blob.hash, reason: String(describing: error))
        }
    }

    /// Hands the bytes to the store's back-end under their hash and returns the blob, pinned until the lease ends.
    /// On the local disk the scratch file is flushed and renamed into place on a dispatch thread (`BlockingWork`):
    /// the awaiting task holds no thread of the pool.
    public func finish() async throws(BlobStoreError) -> BlobLease {
        guard descriptor >= 0 else { throw BlobStoreError(operation: "finish", path: path, reason: "writer is closed") }
        close(descriptor)
        descriptor = -1
        let reference = BlobReference(hash: BlobStore.hex(hasher.finalize()), length: length)
        if let partSize, length > partSize, length % partSize != 0 {
            partDigests.append(BlobStore.hex(partHasher.finalize()))  // the last, shorter part
        }
        // The back-end consumes the scratch file from here on, whatever happens.
        return try await store.install(
            temporaryPath: path, reference: reference, partDigests: length > (partSize ?? .max) ? partDigests : [])
    }

    /// Throws the bytes away. Safe to call more than once.
    public func cancel() {
        guard descriptor >= 0 else { return }
        close(descriptor)
        descriptor = -1
        unlink(path)
    }
}
