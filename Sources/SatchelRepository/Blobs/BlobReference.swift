import Foundation
import Synchronization

/// A blob in the ``BlobStore``: named by the SHA-256 of its first ``length`` bytes.
///
/// A blob file may be longer than that: an append extends the file of the content it appends to in place and
/// gives the longer content a second name (``BlobStore/append(_:to:)``). Every read stops at the length its
/// reference records.
public struct BlobReference: Sendable, Hashable {
    /// Lower-case hex SHA-256.
    public var hash: String
    /// The blob's length in bytes: every read stops here, even where the file is longer.
    public var length: Int64

    /// The first `length` bytes of the blob named `hash`.
    public init(hash: String, length: Int64) {
        self.hash = hash
        self.length = length
    }
}

/// A blob a request has stored and not yet committed: while the lease lives, the blob is not removed even though
/// nothing refers to it yet. When it ends (``end()``, or when the lease is released), the blob is removed unless
/// an object now refers to it, so a refused upload leaves nothing behind.
///
/// ```swift
/// let lease = try await writer.finish()
/// defer { lease.end() }
/// try await repository.createDocument(…, content: ContentInput(blob: lease, mimeType: "text/plain", fileName: nil), …)
/// ```
public final class BlobLease: Sendable, Hashable {
    /// The blob this lease keeps.
    public let reference: BlobReference
    let claims: BlobClaims
    private let janitor: BlobJanitor
    private let ended = Atomic<Bool>(false)

    init(_ reference: BlobReference, claims: BlobClaims, janitor: BlobJanitor) {
        self.reference = reference
        self.claims = claims
        self.janitor = janitor
    }

    deinit { end() }

    /// The blob's name: lower-case hex SHA-256 of its bytes.
    public var hash: String { reference.hash }
    /// The blob's length in bytes.
    public var length: Int64 { reference.length }

    /// Whether ``end()`` has been called.
    var hasEnded: Bool { ended.load(ordering: .acquiring) }

    /// Unpins the blob and removes it if nothing refers to it. Safe to call more than once.
    public func end() {
        guard !ended.exchange(true, ordering: .acquiringAndReleasing) else { return }
        claims.unpin(reference.hash)
        janitor.settle(reference.hash)
    }

    /// Whether the two are the same lease (identity): two leases on one blob are not equal.
    public static func == (lhs: BlobLease, rhs: BlobLease) -> Bool { lhs === rhs }
    /// Hashes the lease's identity, in step with `==`.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }
}
