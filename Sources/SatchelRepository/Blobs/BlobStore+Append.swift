import Crypto
import Foundation
import SatchelText

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension BlobStore {
    /// The blob of `existing`'s bytes followed by `chunk`'s, pinned until the lease ends.
    ///
    /// On the local disk, when `existing`'s file ends exactly where its blob does (nothing was appended to it yet),
    /// the chunk is written at the end of that file and the longer content's name is linked to it: only the chunk's
    /// bytes are written, and only they are hashed when the hash state after `existing` is still in memory (the state
    /// is kept for recent appends). `existing` stays valid: its name still covers its own first bytes. Otherwise
    /// (another append extended the file first, or the back-end is not the local disk) both are copied into a new
    /// blob.
    ///
    /// A crash in the middle leaves extra bytes at the end of `existing`'s file, which no read goes past, and at
    /// worst a complete blob nothing refers to yet.
    ///
    /// The local reads, writes and `fsync` run on a dispatch thread (`BlockingWork`), not the awaiting task's.
    public func append(_ chunk: BlobReference, to existing: BlobReference) async throws(BlobStoreError) -> BlobLease {
        if let local,
            let lease = try await BlockingWork.shared.run({ [self] () throws(BlobStoreError) -> BlobLease? in
                try appendInPlace(chunk, to: existing, in: local)
            })
        {
            return lease
        }
        let writer = try makeWriter()
        try await writer.write(existing, from: self)
        try await writer.write(chunk, from: self)
        return try await writer.finish()
    }

    /// The in-place append on the local disk, or nil when the content must be copied instead.
    private func appendInPlace(
        _ chunk: BlobReference, to existing: BlobReference, in local: LocalBlobBackend
    ) throws(BlobStoreError) -> BlobLease? {
        let file = local.url(for: existing.hash)
        let descriptor = open(file.path, O_RDWR | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw BlobStoreError(
                operation: "append", path: file.path, reason: String(cString: strerror(errno)),
                isMissing: errno == ENOENT)
        }
        defer { close(descriptor) }
        // One appender at a time per file, across processes; whoever finds the file locked copies instead of waiting
        // on a lock someone else holds. A copy reads only bytes up to the recorded length, which never change.
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else { return nil }
        defer { flock(descriptor, LOCK_UN) }
        var info = stat()
        guard fstat(descriptor, &info) == 0, Int64(info.st_size) == existing.length else { return nil }
        var hasher: SHA256
        if let remembered = claims.hashState(after: existing.hash) {
            hasher = remembered
        } else {
            hasher = try hashPrefix(of: existing, in: local)
        }
        try appendFile(
            local.url(for: chunk.hash), length: chunk.length, to: descriptor, at: existing.length, into: &hasher)
        guard fsync(descriptor) == 0 else {
            throw BlobStoreError(operation: "sync", path: file.path, reason: String(cString: strerror(errno)))
        }
        let combined = BlobReference(
            hash: BlobStore.hex(hasher.finalize()), length: existing.length + chunk.length)
        claims.remember(hasher, after: combined.hash)
        let destination = try local.preparedURL(for: combined.hash)
        let linked = try claims.pinningUnlessRemoving(combined.hash) { () throws(BlobStoreError) -> Bool in
            if link(file.path, destination.path) == 0 {
                // The name must lead to the file written to: if the existing blob was removed and stored again since
                // it was opened, the path leads to another file, without the appended bytes.
                var named = stat()
                guard stat(destination.path, &named) == 0, named.st_ino == info.st_ino, named.st_dev == info.st_dev
                else {
                    unlink(destination.path)
                    return false
                }
                return true
            }
            guard errno == EEXIST else {
                throw BlobStoreError(
                    operation: "link", path: destination.path, reason: String(cString: strerror(errno)))
            }
            // The same bytes are stored already: that file serves, and was claimed just now.
            _ = utimes(destination.path, nil)
            return true
        }
        // Being removed right now (nil), or the name led elsewhere (false): copy.
        guard let linked else { return nil }
        guard linked else {
            claims.unpin(combined.hash)
            return nil
        }
        LocalBlobBackend.syncFolder(destination.deletingLastPathComponent())
        return BlobLease(combined, claims: claims, janitor: janitor)
    }

    /// The hash state after a blob's bytes, read from its file.
    private func hashPrefix(of blob: BlobReference, in local: LocalBlobBackend) throws(BlobStoreError) -> SHA256 {
        var hasher = SHA256()
        try Self.readFile(local.url(for: blob.hash), length: blob.length) { hasher.update(bufferPointer: $0) }
        return hasher
    }

    /// Copies `length` bytes of `source` to `descriptor` at `offset`, hashing them on the way.
    private func appendFile(
        _ source: URL, length: Int64, to descriptor: Int32, at offset: Int64, into hasher: inout SHA256
    ) throws(BlobStoreError) {
        var position = off_t(offset)
        var failure: BlobStoreError?
        try Self.readFile(source, length: length) { bytes in
            guard failure == nil else { return }
            hasher.update(bufferPointer: bytes)
            var done = 0
            while done < bytes.count {
                let written = pwrite(descriptor, bytes.baseAddress! + done, bytes.count - done, position)
                if written < 0 {
                    if errno == EINTR { continue }
                    failure = BlobStoreError(
                        operation: "append", path: source.path, reason: String(cString: strerror(errno)))
                    return
                }
                done += written
                position += off_t(written)
            }
        }
        if let failure { throw failure }
    }

    /// Reads a file's first `length` bytes (all of it when nil) in 1 MiB pieces.
    static func readFile(
        _ file: URL, length: Int64?, _ body: (UnsafeRawBufferPointer) -> Void
    ) throws(BlobStoreError) {
        let source = open(file.path, O_RDONLY | O_CLOEXEC)
        guard source >= 0 else {
            throw BlobStoreError(operation: "read", path: file.path, reason: String(cString: strerror(errno)))
        }
        defer { close(source) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 16)
        defer { buffer.deallocate() }
        var remaining = length ?? .max
        while remaining > 0 {
            let count = SystemCalls.read(source, buffer.baseAddress!, Int(min(Int64(buffer.count), remaining)))
            if count < 0 {
                throw BlobStoreError(operation: "read", path: file.path, reason: String(cString: strerror(errno)))
            }
            if count == 0 {
                guard let length else { return }
                throw BlobStoreError(
                    operation: "read", path: file.path, reason: "the file is shorter than \(length) bytes")
            }
            body(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            remaining -= Int64(count)
        }
    }
}
