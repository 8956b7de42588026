import Foundation
import HTTPTypes
import Hummingbird
import SatchelCMISCore
import SatchelJSON
import SatchelRepository
import Synchronization

/// Nuxeo's batch upload (docs/nuxeo.md): a batch of files, each sent whole or in chunks (`X-Upload-Type: chunked`,
/// `X-Upload-Chunk-Index`, `X-Upload-Chunk-Count`); an unfinished chunked file answers **308** with the chunks it
/// has, so a client that lost its connection asks (`GET upload/{batch}/{file}`) and sends only the missing ones.
/// Chunks go into the blob store as they arrive (leased until the batch is attached or dropped); a batch belongs to
/// the user who made it.
final class NuxeoUploads: Sendable {
    struct File {
        var name: String
        var mimeType: String
        var size: Int64?
        var chunkCount: Int
        var chunked: Bool
        var chunks: [Int: BlobLease] = [:]

        var isComplete: Bool { chunks.count == chunkCount }
        var uploadedSize: Int64 { chunks.values.reduce(0) { $0 + $1.reference.length } }
    }

    struct Batch {
        let owner: String
        var files: [Int: File] = [:]
        /// When it last changed: a batch left alone for ``idleLifetime`` is dropped.
        var touched = ContinuousClock.now

        var bytes: Int64 { files.values.reduce(0) { $0 + $1.uploadedSize } }
    }

    /// Per user: at most this many open batches, files per batch, chunks per file, and bytes in all their batches;
    /// a batch untouched for a day is dropped (its chunks released).
    static let maximumBatches = 64
    static let maximumFiles = 64
    static let maximumChunks = 10_000
    static let idleLifetime = Duration.seconds(24 * 3600)

    /// Bytes one user's batches may hold together (one file is at most that too: a document's largest content).
    let maximumBytes: Int64

    init(maximumBytes: Int64) {
        self.maximumBytes = maximumBytes
    }

    private let batches = Mutex<[String: Batch]>([:])

    /// Bytes the user may still upload.
    func allowance(owner: String) -> Int64 {
        batches.withLock { batches in
            maximumBytes - batches.values.filter { $0.owner == owner }.reduce(0) { $0 + $1.bytes }
        }
    }

    func create(owner: String) throws(CMISError) -> String {
        let id = "batchId-" + UUID().uuidString.lowercased()
        try batches.withLock { (batches: inout [String: Batch]) throws(CMISError) in
            // Abandoned batches go first.
            let now = ContinuousClock.now
            for (key, batch) in batches where batch.touched.duration(to: now) > Self.idleLifetime {
                for file in batch.files.values { for lease in file.chunks.values { lease.end() } }
                batches[key] = nil
            }
            guard batches.values.filter({ $0.owner == owner }).count < Self.maximumBatches else {
                throw CMISError(.constraint, "too many open upload batches: attach or drop some")
            }
            batches[id] = Batch(owner: owner)
        }
        return id
    }

    /// The caller's batch (someone else's is not found, as a missing one).
    func batch(_ id: String, owner: String) throws(CMISError) -> Batch {
        guard let batch = batches.withLock({ $0[id] }), batch.owner == owner else {
            throw CMISError(.objectNotFound, "no upload batch \(id)")
        }
        return batch
    }

    /// Stores one chunk (or the whole file, chunk 0 of 1); returns the file as it is now.
    func store(
        _ lease: BlobLease, batch id: String, file index: Int, chunk: Int, of count: Int, name: String,
        mimeType: String,
        size: Int64?, chunked: Bool, owner: String
    ) throws(CMISError) -> File {
        guard (0..<Self.maximumFiles).contains(index), (1...Self.maximumChunks).contains(count),
            (0..<count).contains(chunk)
        else {
            lease.end()
            throw CMISError(.invalidArgument, "file \(index), chunk \(chunk) of \(count) is out of range")
        }
        let fresh = File(name: name, mimeType: mimeType, size: size, chunkCount: count, chunked: chunked)
        return try batches.withLock { (batches: inout [String: Batch]) throws(CMISError) -> File in
            guard let batch = batches[id], batch.owner == owner else {
                lease.end()
                throw CMISError(.objectNotFound, "no upload batch \(id)")
            }
            if let existing = batch.files[index], existing.chunkCount != count || existing.chunked != chunked {
                // A new upload of that file index starts over.
                for old in existing.chunks.values { old.end() }
                batches[id]?.files[index] = nil
            }
            if batches[id]?.files[index] == nil { batches[id]?.files[index] = fresh }
            batches[id]?.touched = .now
            // In place: the chunk table is not copied for every chunk.
            batches[id]?.files[index]?.chunks[chunk]?.end()
            batches[id]?.files[index]?.chunks[chunk] = lease
            return batches[id]?.files[index] ?? fresh
        }
    }

    /// Takes a complete file out of its batch to attach it (a concurrent change or a second attach finds it gone);
    /// ``restore(_:batch:file:owner:)`` puts it back when the attach fails.
    func take(_ id: String, file index: Int, owner: String) throws(CMISError) -> File {
        try batches.withLock { (batches: inout [String: Batch]) throws(CMISError) -> File in
            guard let batch = batches[id], batch.owner == owner, let file = batch.files[index] else {
                throw CMISError(.objectNotFound, "no file \(index) in batch \(id)")
            }
            guard file.isComplete else {
                throw CMISError(
                    .constraint, "file \(index) of batch \(id) is missing chunks: it cannot be attached yet")
            }
            batches[id]?.files[index] = nil
            return file
        }
    }

    func restore(_ file: File, batch id: String, file index: Int, owner: String) {
        let kept = batches.withLock { batches -> Bool in
            guard batches[id]?.owner == owner, batches[id]?.files[index] == nil else { return false }
            batches[id]?.files[index] = file
            return true
        }
        if !kept { for lease in file.chunks.values { lease.end() } }
    }

    /// Removes a batch (or one of its files) and ends its chunks' leases.
    func drop(_ id: String, file index: Int? = nil, owner: String) throws(CMISError) {
        try batches.withLock { (batches: inout [String: Batch]) throws(CMISError) in
            guard let batch = batches[id], batch.owner == owner else {
                throw CMISError(.objectNotFound, "no upload batch \(id)")
            }
            if let index {
                for lease in batch.files[index]?.chunks.values ?? [:].values { lease.end() }
                batches[id]?.files[index] = nil
            } else {
                for file in batch.files.values { for lease in file.chunks.values { lease.end() } }
                batches[id] = nil
            }
        }
    }

    /// A file's state as Nuxeo writes it.
    static func info(_ file: File, batch: String, index: Int, uploaded: Bool) -> JSONValue {
        var object: JSONObject = [
            "name": .string(file.name), "size": file.size.map { .number(JSONNumber($0)) } ?? .null,
            "uploadType": .string(file.chunked ? "chunked" : "normal"),
        ]
        if uploaded {
            object.append(key: "uploaded", value: "true")
            object.append(key: "batchId", value: .string(batch))
            object.append(key: "fileIdx", value: .string(String(index)))
            object.append(key: "uploadedSize", value: .string(String(file.uploadedSize)))
        }
        if file.chunked {
            object.append(
                key: "uploadedChunkIds", value: .array(file.chunks.keys.sorted().map { .number(JSONNumber($0)) }))
            object.append(key: "chunkCount", value: .number(JSONNumber(file.chunkCount)))
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
            return Self.json(["batchId": .string(try uploads.create(owner: caller.user))], status: 201)
        case (.get, 1) where segments[0] == "handlers":
            return Self.json(["handlers": [["name": "default"]]])
        case (.get, 1):
            let batch = try uploads.batch(segments[0], owner: caller.user)
            let files = batch.files.keys.sorted().compactMap { index in
                batch.files[index].map { NuxeoUploads.info($0, batch: segments[0], index: index, uploaded: false) }
            }
            return Self.json(.array(files))
        case (.get, 2):
            let batch = try uploads.batch(segments[0], owner: caller.user)
            guard let index = Int(segments[1]), let file = batch.files[index] else {
                throw CMISError(.objectNotFound, "no file \(segments[1]) in batch \(segments[0])")
            }
            let info = NuxeoUploads.info(file, batch: segments[0], index: index, uploaded: false)
            return Self.json(info, status: file.isComplete ? 200 : 308)
        case (.delete, 1):
            try uploads.drop(segments[0], owner: caller.user)
            return Response(status: .noContent)
        case (.delete, 2):
            guard let index = Int(segments[1]) else {
                throw CMISError(.objectNotFound, "no file \(segments[1]) in batch \(segments[0])")
            }
            try uploads.drop(segments[0], file: index, owner: caller.user)
            return Response(status: .noContent)
        case (.post, 2):
            return try await receive(segments[0], file: segments[1], request: request, caller: caller)
        case (.post, 3) where segments[1] == "execute":
            // The whole batch (Nuxeo's clients attach this way): its one file.
            let batch = try uploads.batch(segments[0], owner: caller.user)
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
        _ = try uploads.batch(batch, owner: caller.user)
        guard let index = Int(file) else { throw CMISError(.invalidArgument, "file index \(file) is not a number") }
        func header(_ name: String) -> String? { request.headers[HTTPField.Name(name)!] }
        let chunked = header("X-Upload-Type")?.lowercased() == "chunked"
        let count = chunked ? Int(header("X-Upload-Chunk-Count") ?? "") ?? 0 : 1
        let chunk = chunked ? Int(header("X-Upload-Chunk-Index") ?? "") ?? -1 : 0
        let name = header("X-File-Name").map { $0.removingPercentEncoding ?? $0 } ?? "file-\(index)"
        // Checked before a byte is stored: it goes back out in headers, and to a gateway's back-end.
        let mimeType = try MediaTypeSyntax.checked(header("X-File-Type") ?? request.headers[.contentType] ?? "")
        // No more than the user may still hold in batches.
        let allowance = uploads.allowance(owner: caller.user)
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
        let stored = try uploads.store(
            try await writer.finish(), batch: batch, file: index, chunk: chunk, of: count, name: name,
            mimeType: mimeType,
            size: header("X-File-Size").flatMap { Int64($0) }, chunked: chunked, owner: caller.user)
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
        // Out of the batch while it is attached: a concurrent change or a second attach finds it gone.
        let stored = try uploads.take(batch, file: index, owner: caller.user)
        var attached = false
        defer {
            if attached {
                for lease in stored.chunks.values { lease.end() }
            } else {
                uploads.restore(stored, batch: batch, file: index, owner: caller.user)
            }
        }
        // The chunks, in order, as one blob.
        let writer = try environment.blobs.makeWriter(maxBytes: environment.limits.maxContentBytes)
        for chunk in 0..<stored.chunkCount {
            guard let lease = stored.chunks[chunk] else { continue }
            try await writer.write(lease.reference, from: environment.blobs)
        }
        let content = try await writer.finish()
        defer { content.end() }
        let updated = try await applyBlob(
            try ContentInput(blob: content, mimeType: stored.mimeType, fileName: stored.name), name: stored.name,
            to: target, repository: repository, caller: caller)
        attached = true
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
