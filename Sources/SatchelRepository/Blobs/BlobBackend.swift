public import Foundation

/// Where a ``BlobStore`` keeps whole blobs: a folder on the local disk (``LocalBlobBackend``, the default) or an
/// object store several server processes share (`S3BlobBackend` in SatchelObjectStore).
///
/// A back-end only keeps bytes under names. The store around it does the rest: content is written and hashed into a
/// local scratch file first (``BlobWriter``), so a back-end receives whole files whose SHA-256 is known; requests pin
/// the blobs they use until they commit; the janitor decides what may go. A back-end must make these hold:
///
/// - ``store(_:as:partDigests:)`` is atomic: a reader sees the whole blob under its name or nothing, never part of one.
/// - Storing bytes already stored marks them as written now (``BlobListing/lastWritten``): the janitor of another
///   process spares blobs written within its grace period, and a duplicate upload is one it must spare.
/// - A missing blob is reported as such (``BlobStoreError/isMissing``), never as empty content.
public protocol BlobBackend: Sendable {
    /// Where the blobs are, for messages and logs: a folder's path, or `s3://bucket/prefix`.
    var location: String { get }

    /// The size of the slices whose SHA-256s the back-end wants with a blob longer than one slice (an object store
    /// checks a multipart upload part by part); nil when it wants none. The writer hashes them as the bytes arrive.
    var partSize: Int64? { get }

    /// Stores the scratch file `file`, whose first `reference.length` bytes hash to `reference.hash`, under that
    /// name, and consumes the file (moves or removes it) whether it succeeds or not. `partDigests` are the lower-case
    /// hex SHA-256s of its consecutive ``partSize`` slices, the last one shorter, when the blob is longer than one
    /// slice; empty otherwise.
    func store(_ file: URL, as reference: BlobReference, partDigests: [String]) async throws(BlobStoreError)

    /// Starts reading the bytes of `range` (inclusive offsets within the blob; all of its `length` bytes when nil)
    /// and returns them in order, in chunks, in constant memory. A blob that is not there throws at once, with
    /// ``BlobStoreError/isMissing`` set; a blob shorter than its reference says fails the sequence.
    func read(
        _ blob: BlobReference, range: ClosedRange<Int64>?
    ) async throws(BlobStoreError) -> AsyncThrowingStream<[UInt8], any Error>

    /// When the blob was last stored, or nil when it is not there.
    func lastWritten(_ hash: String) async throws(BlobStoreError) -> Date?

    /// Removes a blob; one that is not there is no error.
    func remove(_ hash: String) async throws(BlobStoreError)

    /// Every blob, with when each was last stored.
    func list() async throws(BlobStoreError) -> [BlobListing]

    /// Throws unless the back-end can be used now: one cheap call (for readiness probes).
    func checkAvailable() async throws(BlobStoreError)

    /// The local file holding the blob, for a back-end on the local disk (content is then sent from the file, and
    /// appends extend it in place); nil for every other back-end.
    func localFile(for hash: String) -> URL?
}

extension BlobBackend {
    /// No local files.
    public func localFile(for hash: String) -> URL? { nil }

    /// No part digests.
    public var partSize: Int64? { nil }

    /// Asks for the date of a blob nobody stores.
    public func checkAvailable() async throws(BlobStoreError) {
        _ = try await lastWritten(String(repeating: "0", count: 64))
    }
}

/// One blob as ``BlobBackend/list()`` sees it.
public struct BlobListing: Sendable, Hashable {
    /// The blob's name: lower-case hex SHA-256.
    public var hash: String
    /// When it was last stored.
    public var lastWritten: Date

    /// A listing entry.
    public init(hash: String, lastWritten: Date) {
        self.hash = hash
        self.lastWritten = lastWritten
    }
}

/// Blob names: 64 lower-case hex digits.
package enum BlobName {
    package static func isValid(_ hash: String) -> Bool {
        hash.utf8.count == 64 && hash.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}
