public import Foundation

/// Upload batches (the Nuxeo API's batch upload) kept in the metadata store, so that every server process sharing
/// it sees every batch: a chunked upload whose chunks reach different processes completes, and a batch outlives the
/// process that opened it.
///
/// A chunk's blob is referenced by its row, as a document's content is by its object: the blob janitor of every
/// process asks ``MetadataStore/isContentReferenced(_:)``, which counts chunks, so no process removes a chunk a batch
/// holds. Every change that lets go of chunks answers the hashes nothing refers to any more (as
/// ``StoreBatchResult/releasedContentHashes`` does), for the caller to hand to `BlobStore.release(_:since:)`.
///
/// Every change is one atomic statement or transaction, and every one but ``expireUploadBatches(touchedBefore:)``
/// is the owner's only: someone else's batch is not found, as a missing one.
public protocol UploadBatchStore: Sendable {
    /// Opens an empty batch `id` for `owner`, unless the owner holds `maximumPerOwner` batches already: then
    /// nothing changes and the answer is false.
    func openUploadBatch(id: String, owner: String, at time: Date, maximumPerOwner: Int) async throws -> Bool
    /// Drops every batch (anyone's) last touched before `time`; answers the hashes no longer referenced.
    func expireUploadBatches(touchedBefore time: Date) async throws -> Set<String>
    /// The batch `id` with its files and chunks, if `owner` holds it.
    func uploadBatch(id: String, owner: String) async throws -> UploadBatch?
    /// The bytes of every chunk in `owner`'s batches.
    func uploadedBytes(owner: String) async throws -> Int64
    /// Records `blob` as chunk `chunk` of file `file` in the owner's batch and touches the batch. A file whose
    /// header changes its chunk count or kind starts over with the new header (its chunks are let go of); a chunk
    /// sent again replaces the one before.
    func storeUploadChunk(
        batch: String, owner: String, file: Int, chunk: Int, header: UploadFileHeader, blob: BlobReference,
        at time: Date
    ) async throws -> UploadChunkOutcome
    /// Claims a complete file for attaching it to a document, so no other request (of any process) changes or
    /// attaches it meanwhile. A claim made before `staleBefore` is taken to be a dead process's, and is taken over.
    func claimUploadFile(
        batch: String, owner: String, file: Int, at time: Date, staleBefore: Date
    ) async throws -> UploadClaimOutcome
    /// Ends the claim made at `claimed`: when `attached`, the file leaves its batch (its chunks are let go of);
    /// otherwise it is free again. Does nothing when the claim is no longer this one. Answers the hashes no longer
    /// referenced.
    func settleUploadFile(
        batch: String, owner: String, file: Int, claimed: Date, attached: Bool
    ) async throws -> Set<String>
    /// Drops the owner's batch, or one file of it, unless a file it would drop is claimed (since `staleBefore`).
    func dropUpload(batch: String, owner: String, file: Int?, staleBefore: Date) async throws -> UploadDropOutcome
}

/// A batch of files being uploaded.
public struct UploadBatch: Sendable, Hashable {
    /// The batch's id.
    public var id: String
    /// The user who opened it: nobody else sees it.
    public var owner: String
    /// When it last changed (whole milliseconds in the durable stores).
    public var touched: Date
    /// Its files, by index.
    public var files: [Int: UploadFile]

    /// A batch with these values.
    public init(id: String, owner: String, touched: Date, files: [Int: UploadFile] = [:]) {
        self.id = id
        self.owner = owner
        self.touched = touched
        self.files = files
    }
}

/// What the client said of a file when it sent its first chunk.
public struct UploadFileHeader: Sendable, Hashable {
    /// The file's name.
    public var name: String
    /// The file's media type (checked before it is stored).
    public var mimeType: String
    /// The size the client announced, if any.
    public var size: Int64?
    /// How many chunks make the file (1 when it is sent whole).
    public var chunkCount: Int
    /// Whether it is sent in chunks.
    public var chunked: Bool

    /// A header with these values.
    public init(name: String, mimeType: String, size: Int64?, chunkCount: Int, chunked: Bool) {
        self.name = name
        self.mimeType = mimeType
        self.size = size
        self.chunkCount = chunkCount
        self.chunked = chunked
    }
}

/// A file of a batch: its header and the chunks received so far.
public struct UploadFile: Sendable, Hashable {
    /// What the client said of the file.
    public var header: UploadFileHeader
    /// The chunks received, by index.
    public var chunks: [Int: BlobReference]
    /// When a request claimed it to attach it, if one has.
    public var claimed: Date?

    /// A file with these values.
    public init(header: UploadFileHeader, chunks: [Int: BlobReference] = [:], claimed: Date? = nil) {
        self.header = header
        self.chunks = chunks
        self.claimed = claimed
    }

    /// Whether every chunk is there.
    public var isComplete: Bool { chunks.count == header.chunkCount }
    /// The bytes received.
    public var uploadedSize: Int64 { chunks.values.reduce(0) { $0 + $1.length } }
}

/// What ``UploadBatchStore/storeUploadChunk(batch:owner:file:chunk:header:blob:at:)`` did.
public enum UploadChunkOutcome: Sendable, Hashable {
    /// The chunk is recorded: the file as it is now, and the hashes the change let go of that nothing refers to.
    case stored(UploadFile, released: Set<String>)
    /// The owner holds no such batch; nothing changed.
    case noBatch
    /// The file is being attached; nothing changed.
    case busy
}

/// What ``UploadBatchStore/claimUploadFile(batch:owner:file:at:staleBefore:)`` did.
public enum UploadClaimOutcome: Sendable, Hashable {
    /// The file is the caller's to attach (its ``UploadFile/claimed`` is the claim's time).
    case claimed(UploadFile)
    /// No such batch or file.
    case notFound
    /// The file lacks chunks; nothing changed.
    case incomplete
    /// Another request is attaching it; nothing changed.
    case busy
}

/// What ``UploadBatchStore/dropUpload(batch:owner:file:staleBefore:)`` did.
public enum UploadDropOutcome: Sendable, Hashable {
    /// The batch or file is gone: the hashes nothing refers to any more.
    case dropped(released: Set<String>)
    /// No such batch.
    case notFound
    /// A file it would drop is being attached; nothing changed.
    case busy
}

/// The SQL both durable stores share for upload batches.
package enum UploadBatchSQL {
    /// A condition (SQLite and PostgreSQL alike) true when an object's content or a batch's chunk is the blob
    /// `placeholder` names (the placeholder appears twice: bind it twice, or use a numbered one).
    package static func referenced(_ placeholder: String) -> String {
        """
        (EXISTS (SELECT 1 FROM objects WHERE content_hash = \(placeholder)) \
        OR EXISTS (SELECT 1 FROM upload_chunks WHERE hash = \(placeholder)))
        """
    }

    /// Every blob an object or a chunk refers to.
    package static let referencedHashes = """
        SELECT content_hash FROM objects WHERE content_hash IS NOT NULL UNION SELECT hash FROM upload_chunks
        """
}
