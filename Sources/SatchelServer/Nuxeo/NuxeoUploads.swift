import Foundation
import HTTPTypes
import Hummingbird
import Logging
import SatchelCMISCore
import SatchelJSON
import SatchelRepository

/// Nuxeo's batch upload (docs/nuxeo.md): a batch of files, each sent whole or in chunks (`X-Upload-Type: chunked`,
/// `X-Upload-Chunk-Index`, `X-Upload-Chunk-Count`); an unfinished chunked file answers **308** with the chunks it
/// has, so a client that lost its connection asks (`GET upload/{batch}/{file}`) and sends only the missing ones.
///
/// Batches live in the metadata store (``UploadBatchStore``), so every server process sharing it sees them: chunks
/// of one file may reach different processes, and a batch outlives the process that opened it. A chunk goes into the
/// blob store as it arrives, and its row in the store is what keeps its blob until the batch is attached or dropped.
/// A batch belongs to the user who made it.
final class NuxeoUploads: Sendable {
    /// Per user: at most this many open batches, files per batch, chunks per file, and bytes in all their batches;
    /// a batch untouched for a day is dropped (its chunks released).
    static let maximumBatches = 64
    static let maximumFiles = 64
    static let maximumChunks = 10_000
    static let idleLifetime: TimeInterval = 24 * 3600
    /// A file claimed for attaching longer ago than this was claimed by a process that died: it may be claimed
    /// (or dropped) again.
    static let claimLifetime: TimeInterval = 3600

    /// Bytes one user's batches may hold together (one file is at most that too: a document's largest content).
    let maximumBytes: Int64
    /// Where batches are kept: the store the blob janitor asks, so that chunks count as references.
    let store: any UploadBatchStore
    /// Where chunks are.
    let blobs: BlobStore

    init(maximumBytes: Int64, store: any UploadBatchStore, blobs: BlobStore) {
        self.maximumBytes = maximumBytes
        self.store = store
        self.blobs = blobs
    }

    /// Bytes the user may still upload.
    func allowance(owner: String) async throws -> Int64 {
        maximumBytes - (try await store.uploadedBytes(owner: owner))
    }

    func create(owner: String) async throws -> String {
        // Abandoned batches (anyone's) go first; when that fails, the next batch opened tries again.
        let now = Date()
        do {
            try await releasing { try await store.expireUploadBatches(touchedBefore: now - Self.idleLifetime) }
        } catch {
            BlobStore.logger.warning("abandoned upload batches could not be dropped now: \(error)")
        }
        let id = "batchId-" + UUID().uuidString.lowercased()
        guard try await store.openUploadBatch(id: id, owner: owner, at: now, maximumPerOwner: Self.maximumBatches)
        else {
            throw CMISError(.constraint, "too many open upload batches: attach or drop some")
        }
        return id
    }

    /// The caller's batch (someone else's is not found, as a missing one).
    func batch(_ id: String, owner: String) async throws -> UploadBatch {
        guard let batch = try await store.uploadBatch(id: id, owner: owner) else {
            throw CMISError(.objectNotFound, "no upload batch \(id)")
        }
        return batch
    }

    /// Records one chunk (or the whole file, chunk 0 of 1); returns the file as it is now. The lease ends here: from
    /// now on the chunk's row keeps the blob (or, when it could not be recorded, nothing does and the blob goes).
    func store(
        _ lease: BlobLease, batch id: String, file index: Int, chunk: Int, header: UploadFileHeader, owner: String
    ) async throws -> UploadFile {
        defer { lease.end() }
        guard (0..<Self.maximumFiles).contains(index), (1...Self.maximumChunks).contains(header.chunkCount),
            (0..<header.chunkCount).contains(chunk)
        else {
            throw CMISError(
                .invalidArgument, "file \(index), chunk \(chunk) of \(header.chunkCount) is out of range")
        }
        let outcome = try await releasing { () async throws -> (UploadChunkOutcome, Set<String>) in
            let outcome = try await store.storeUploadChunk(
                batch: id, owner: owner, file: index, chunk: chunk, header: header, blob: lease.reference, at: Date())
            if case .stored(_, let released) = outcome { return (outcome, released) }
            return (outcome, [])
        }
        switch outcome {
        case .stored(let file, _): return file
        case .noBatch: throw CMISError(.objectNotFound, "no upload batch \(id)")
        case .busy: throw CMISError(.updateConflict, "file \(index) of batch \(id) is being attached")
        }
    }

    /// Claims a complete file to attach it: a concurrent change or a second attach (on any process) finds it busy.
    /// ``settle(_:batch:file:owner:attached:)`` ends the claim.
    func claim(_ id: String, file index: Int, owner: String) async throws -> UploadFile {
        let now = Date()
        switch try await store.claimUploadFile(
            batch: id, owner: owner, file: index, at: now, staleBefore: now - Self.claimLifetime)
        {
        case .claimed(let file): return file
        case .notFound: throw CMISError(.objectNotFound, "no file \(index) in batch \(id)")
        case .incomplete:
            throw CMISError(.constraint, "file \(index) of batch \(id) is missing chunks: it cannot be attached yet")
        case .busy: throw CMISError(.updateConflict, "file \(index) of batch \(id) is being attached")
        }
    }

    /// Ends a claim: the file leaves the batch when it was attached, and is free again otherwise. A failure is
    /// logged: the claim then lapses after ``claimLifetime``.
    func settle(_ file: UploadFile, batch id: String, file index: Int, owner: String, attached: Bool) async {
        guard let claimed = file.claimed else { return }
        do {
            try await releasing {
                try await store.settleUploadFile(
                    batch: id, owner: owner, file: index, claimed: claimed, attached: attached)
            }
        } catch {
            BlobStore.logger.warning("upload batch \(id), file \(index): the claim could not be ended: \(error)")
        }
    }

    /// Removes a batch (or one of its files) and lets go of its chunks.
    func drop(_ id: String, file index: Int? = nil, owner: String) async throws {
        let outcome = try await releasing { () async throws -> (UploadDropOutcome, Set<String>) in
            let outcome = try await store.dropUpload(
                batch: id, owner: owner, file: index, staleBefore: Date() - Self.claimLifetime)
            if case .dropped(let released) = outcome { return (outcome, released) }
            return (outcome, [])
        }
        switch outcome {
        case .dropped: return
        case .notFound: throw CMISError(.objectNotFound, "no upload batch \(id)")
        case .busy: throw CMISError(.updateConflict, "batch \(id) has a file being attached")
        }
    }

    /// Runs a change of the store that lets go of blobs, and hands what it released to the blob janitor (unless a
    /// request claimed one since the change began).
    private func releasing<T>(_ change: () async throws -> (T, Set<String>)) async throws -> T {
        let ticket = blobs.ticket()
        let result: (T, Set<String>)
        do {
            result = try await change()
        } catch {
            blobs.discard(ticket)
            throw error
        }
        await blobs.release(result.1, since: ticket)
        return result.0
    }

    private func releasing(_ change: () async throws -> Set<String>) async throws {
        try await releasing { ((), try await change()) }
    }

    /// A file's state as Nuxeo writes it.
    static func info(_ file: UploadFile, batch: String, index: Int, uploaded: Bool) -> JSONValue {
        var object: JSONObject = [
            "name": .string(file.header.name), "size": file.header.size.map { .number(JSONNumber($0)) } ?? .null,
            "uploadType": .string(file.header.chunked ? "chunked" : "normal"),
        ]
        if uploaded {
            object.append(key: "uploaded", value: "true")
            object.append(key: "batchId", value: .string(batch))
            object.append(key: "fileIdx", value: .string(String(index)))
            object.append(key: "uploadedSize", value: .string(String(file.uploadedSize)))
        }
        if file.header.chunked {
            object.append(
                key: "uploadedChunkIds", value: .array(file.chunks.keys.sorted().map { .number(JSONNumber($0)) }))
            object.append(key: "chunkCount", value: .number(JSONNumber(file.header.chunkCount)))
        }
        return .object(object)
    }
}

extension NuxeoHandler {
    /// `upload[/{batch}[/{file}[/execute/{operation}]]]`.
    func upload(
        _ segments: [String], request: Request, context: ServerRequestContext, repository: String,
        caller: CallerContext
    ) async throws -> Response {
        switch (request.method, segments.count) {
        case (.post, 0):
            return Self.json(["batchId": .string(try await uploads.create(owner: caller.user))], status: 201)
        case (.get, 1) where segments[0] == "handlers":
            return Self.json(["handlers": [["name": "default"]]])
        case (.get, 1):
            let batch = try await uploads.batch(segments[0], owner: caller.user)
            let files = batch.files.keys.sorted().compactMap { index in
                batch.files[index].map { NuxeoUploads.info($0, batch: segments[0], index: index, uploaded: false) }
            }
            return Self.json(.array(files))
        case (.get, 2):
            let batch = try await uploads.batch(segments[0], owner: caller.user)
            guard let index = Int(segments[1]), let file = batch.files[index] else {
                throw CMISError(.objectNotFound, "no file \(segments[1]) in batch \(segments[0])")
            }
            let info = NuxeoUploads.info(file, batch: segments[0], index: index, uploaded: false)
            return Self.json(info, status: file.isComplete ? 200 : 308)
        case (.delete, 1):
            try await uploads.drop(segments[0], owner: caller.user)
            return Response(status: .noContent)
        case (.delete, 2):
            guard let index = Int(segments[1]) else {
                throw CMISError(.objectNotFound, "no file \(segments[1]) in batch \(segments[0])")
            }
            try await uploads.drop(segments[0], file: index, owner: caller.user)
            return Response(status: .noContent)
        case (.post, 2):
            return try await receive(segments[0], file: segments[1], request: request, caller: caller)
        case (.post, 3) where segments[1] == "execute":
            // The whole batch (Nuxeo's clients attach this way): its one file.
            let batch = try await uploads.batch(segments[0], owner: caller.user)
            guard batch.files.count == 1, let index = batch.files.keys.first else {
                throw CMISError(
                    .notSupported, "a batch of \(batch.files.count) files cannot be attached to one document here")
            }
            return try await attach(
                segments[0], file: String(index), operation: segments[2], request: request, repository: repository,
                caller: caller)
        case (.post, 4) where segments[2] == "execute":
            return try await attach(
                segments[0], file: segments[1], operation: segments[3], request: request, repository: repository,
                caller: caller)
        default:
            throw CMISError(
                .notSupported, "\(request.method) upload/\(segments.joined(separator: "/")) is not served here")
        }
    }

    /// One file or chunk, streamed into the blob store.
    private func receive(
        _ batch: String, file: String, request: Request, caller: CallerContext
    ) async throws -> Response {
        _ = try await uploads.batch(batch, owner: caller.user)
        guard let index = Int(file) else { throw CMISError(.invalidArgument, "file index \(file) is not a number") }
        func header(_ name: String) -> String? { request.headers[HTTPField.Name(name)!] }
        let chunked = header("X-Upload-Type")?.lowercased() == "chunked"
        let count = chunked ? Int(header("X-Upload-Chunk-Count") ?? "") ?? 0 : 1
        let chunk = chunked ? Int(header("X-Upload-Chunk-Index") ?? "") ?? -1 : 0
        let name = header("X-File-Name").map { $0.removingPercentEncoding ?? $0 } ?? "file-\(index)"
        // Checked before a byte is stored: it goes back out in headers, and to a gateway's back-end.
        let mimeType = try MediaTypeSyntax.checked(header("X-File-Type") ?? request.headers[.contentType] ?? "")
        // No more than the user may still hold in batches.
        let allowance = try await uploads.allowance(owner: caller.user)
        guard allowance > 0 else { throw CMISError(.constraint, "your upload batches are full: attach or drop some") }
        let writer = try environment.blobs.makeWriter(maxBytes: allowance)
        do {
            for try await buffer in request.body {
                try buffer.withUnsafeReadableBytes { bytes throws(BlobStoreError) in try writer.write(bytes) }
            }
        } catch {
            writer.cancel()
            throw CMISError(.invalidArgument, "the upload could not be read: \(error)")
        }
        let fileHeader = UploadFileHeader(
            name: name, mimeType: mimeType, size: header("X-File-Size").flatMap { Int64($0) }, chunkCount: count,
            chunked: chunked)
        let stored = try await uploads.store(
            try await writer.finish(), batch: batch, file: index, chunk: chunk, header: fileHeader, owner: caller.user)
        return Self.json(
            NuxeoUploads.info(stored, batch: batch, index: index, uploaded: true), status: stored.isComplete ? 201 : 308
        )
    }

    /// `upload/{batch}/{file}/execute/{operation}`, the batch's file as the operation's input (used up when it
    /// succeeds): `Blob.AttachOnDocument` / `Blob.Attach` (`params.document`) make it the document's content;
    /// `FileManager.Import` makes it a new document, named after the file, in `context.currentDocument`.
    private func attach(
        _ batch: String, file: String, operation: String, request: Request, repository: String, caller: CallerContext
    ) async throws -> Response {
        guard let index = Int(file) else { throw CMISError(.objectNotFound, "no file \(file) in batch \(batch)") }
        let target = try await blobTarget(
            operation, call: try await body(request), repository: repository, caller: caller)
        // Claimed while it is attached: a concurrent change or a second attach, on any process, finds it busy.
        let stored = try await uploads.claim(batch, file: index, owner: caller.user)
        let updated: CMISObject
        do {
            // The chunks, in order, as one blob.
            let writer = try environment.blobs.makeWriter(maxBytes: environment.limits.maxContentBytes)
            for chunk in 0..<stored.header.chunkCount {
                guard let reference = stored.chunks[chunk] else { continue }
                try await writer.write(reference, from: environment.blobs)
            }
            let content = try await writer.finish()
            defer { content.end() }
            updated = try await applyBlob(
                try ContentInput(blob: content, mimeType: stored.header.mimeType, fileName: stored.header.name),
                name: stored.header.name, to: target, repository: repository, caller: caller)
        } catch {
            await uploads.settle(stored, batch: batch, file: index, owner: caller.user, attached: false)
            throw error
        }
        await uploads.settle(stored, batch: batch, file: index, owner: caller.user, attached: true)
        if request.headers[HTTPField.Name("X-NXVoidOperation")!] == "true" { return Response(status: .noContent) }
        return Self.json(try await render(updated, repository: repository, caller: caller))
    }

    /// Where a blob operation puts its blob: a new document in `context.currentDocument` (`FileManager.Import`), or
    /// the content of `params.document` (`Blob.AttachOnDocument`, `Blob.Attach`). Checked before any content is
    /// stored.
    func blobTarget(
        _ operation: String, call: JSONValue, repository: String, caller: CallerContext
    ) async throws -> (importing: Bool, document: CMISObject) {
        let importing = operation == "FileManager.Import"
        guard importing || operation == "Blob.AttachOnDocument" || operation == "Blob.Attach" else {
            throw CMISError(.notSupported, "\(operation) on a blob is not served here")
        }
        let parameter = importing ? call["context"]?["currentDocument"] : call["params"]?["document"]
        guard let reference = parameter?.stringValue else {
            throw CMISError(
                .invalidArgument,
                importing
                    ? "FileManager.Import needs context.currentDocument" : "\(operation) needs the parameter document")
        }
        let document = try await resolve(reference, repository: repository, caller: caller)
        if importing, document.baseType != .folder {
            throw CMISError(.invalidArgument, "FileManager.Import needs a folder as context.currentDocument")
        }
        if importing {
            try await require(
                \.canCreateDocument, on: document, repository: repository, caller: caller, "add to", "import into it")
        } else {
            try await checkUnlocked(document, repository: repository, caller: caller)
            try await require(
                \.canSetContentStream, on: document, repository: repository, caller: caller, "change",
                "attach a blob to it")
        }
        return (importing, document)
    }

    /// Makes stored content a new document named `name` in the target folder, or the target document's content.
    func applyBlob(
        _ input: ContentInput, name: String, to target: (importing: Bool, document: CMISObject), repository: String,
        caller: CallerContext
    ) async throws -> CMISObject {
        guard let id = target.document.id else { throw CMISError(.objectNotFound, "no such document") }
        if target.importing {
            return try await service(repository).createDocument(
                repositoryId: repository, parentId: id,
                properties: Properties([
                    CMISProperty(id: "cmis:name", type: .string, values: [.string(name)]),
                    CMISProperty(id: "cmis:objectTypeId", type: .id, values: [.id("cmis:document")]),
                ]), content: input, versioningState: nil, policies: [], addACEs: [], removeACEs: [], caller: caller)
        }
        return try await service(repository).setContentStream(
            repositoryId: repository, objectId: id, overwrite: true, changeToken: nil, content: input, caller: caller)
    }

    /// `automation/{operation}` with a `multipart/related` body (Automation's own way to send a blob): the call
    /// (`application/json+nxrequest`, Content-ID `request`) first, then the blob, streamed into the blob store only
    /// once the call has been checked.
    func automationWithBlob(
        _ operation: String, contentType: String, request: Request, repository: String, caller: CallerContext
    ) async throws -> Response {
        guard let boundary = MultipartReader.boundary(of: contentType) else {
            throw CMISError(.invalidArgument, "the multipart body has no boundary")
        }
        let reader = MultipartReader(boundary: boundary, limits: environment.limits, blobs: environment.blobs)
        var target: (importing: Bool, document: CMISObject)?
        let read: (fields: [(String, String)], upload: MultipartReader.Upload?)
        do {
            read = try await reader.read(request.body) { fields in
                guard let text = fields.first?.1 else {
                    throw CMISError(.invalidArgument, "the call (application/json+nxrequest) must come before the blob")
                }
                let call: JSONValue
                do {
                    call = try JSONValue(parsing: Data(text.utf8))
                } catch {
                    throw CMISError(.invalidArgument, "the call part is not JSON: \(error)")
                }
                target = try await blobTarget(operation, call: call, repository: repository, caller: caller)
            }
        } catch {
            throw error.cmisError
        }
        guard let upload = read.upload, let target else {
            throw CMISError(.invalidArgument, "\(operation) needs a blob part after the call")
        }
        defer { upload.blob.end() }
        let name = upload.fileName ?? "file"
        let updated = try await applyBlob(
            try ContentInput(blob: upload.blob, mimeType: upload.mimeType, fileName: name), name: name, to: target,
            repository: repository, caller: caller)
        if request.headers[HTTPField.Name("X-NXVoidOperation")!] == "true" { return Response(status: .noContent) }
        return Self.json(try await render(updated, repository: repository, caller: caller))
    }
}
