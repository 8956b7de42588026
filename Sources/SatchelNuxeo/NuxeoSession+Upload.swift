public import Foundation
import SatchelHTTP
import SatchelJSON

/// A file uploaded into a batch, ready to attach to a document.
public struct NuxeoUpload: Sendable, Hashable {
    /// The batch the file is in (`batchId`).
    public var batchID: String
    /// The file's index in the batch.
    public var fileIndex: Int

    /// A file already uploaded to the server, by batch and index (e.g. one kept to resume or attach later).
    public init(batchID: String, fileIndex: Int) {
        self.batchID = batchID
        self.fileIndex = fileIndex
    }
}

extension NuxeoSession {
    /// Uploads a file into a batch (a new one unless `batchID` is given): whole, or in chunks of `chunkSize` bytes.
    /// A chunked upload asks the server which chunks it already has — an unfinished one answers 308, which is not a
    /// redirect — and sends only the others, so a call after a dropped connection resumes where the server stands;
    /// a chunk that fails is sent again (at most three times in a row).
    public func upload(
        file: URL, name: String? = nil, mimeType: String = "application/octet-stream", chunkSize: Int? = nil,
        batchID: String? = nil, fileIndex: Int = 0, progress: (@Sendable (Int64, Int64) -> Void)? = nil
    ) async throws -> NuxeoUpload {
        let size = Int64((try? FileManager.default.attributesOfItem(atPath: file.path)[.size] as? Int) ?? 0)
        let batch: String
        if let batchID {
            batch = batchID
        } else {
            let created = try JSONValue(parsing: try await send(NuxeoRequest.resource("upload").method(.post)).body)
            guard let id = created["batchId"]?.stringValue else {
                throw NuxeoError(.invalidResponse, "the server made a batch without a batchId")
            }
            batch = id
        }
        let upload = NuxeoUpload(batchID: batch, fileIndex: fileIndex)
        let path = NuxeoRequest.resource("upload", batch, String(fileIndex)).method(.post)
            .header("X-File-Name", NuxeoRequest.encodeQuery(name ?? file.lastPathComponent))
            .header("X-File-Size", String(size)).header("X-File-Type", mimeType)
        guard let chunkSize, chunkSize > 0, size > Int64(chunkSize) else {
            _ = try await sendUpload(path, body: try .file(file, contentType: mimeType))
            progress?(size, size)
            return upload
        }
        let count = Int((size + Int64(chunkSize) - 1) / Int64(chunkSize))
        let handle = try FileHandle(forReadingFrom: file)
        defer { try? handle.close() }
        var failures = 0
        while true {
            // What the server has (404: nothing yet).
            var have: Set<Int> = []
            do {
                let state = try await sendUpload(NuxeoRequest.resource("upload", batch, String(fileIndex)))
                if let value = try? JSONValue(parsing: state.body), value["chunkCount"]?.int64Value == Int64(count) {
                    have = Set((value["uploadedChunkIds"]?.arrayValue ?? []).compactMap { $0.int64Value.map(Int.init) })
                }
            } catch let error as NuxeoError where error.status == 404 {}
            let missing = (0..<count).filter { !have.contains($0) }
            guard !missing.isEmpty else { return upload }
            do {
                for chunk in missing {
                    try Task.checkCancellation()
                    try handle.seek(toOffset: UInt64(chunk * chunkSize))
                    let data = try handle.read(upToCount: chunkSize) ?? Data()
                    let request = path.header("X-Upload-Type", "chunked").header("X-Upload-Chunk-Count", String(count))
                        .header("X-Upload-Chunk-Index", String(chunk))
                    _ = try await sendUpload(request, body: .data(data, contentType: "application/octet-stream"))
                    have.insert(chunk)
                    progress?(min(size, Int64(have.count * chunkSize)), size)
                }
                failures = 0
            } catch let error as NuxeoError where error.code == .transport {
                failures += 1
                if failures > 3 { throw error }
            }
        }
    }

    /// Attaches an uploaded file to a document as its content (`Blob.AttachOnDocument`); returns the document.
    public func attach(_ upload: NuxeoUpload, to document: String) async throws -> NuxeoDocument {
        let request = NuxeoRequest.resource(
            "upload", upload.batchID, String(upload.fileIndex), "execute", "Blob.AttachOnDocument"
        ).method(.post)
        guard
            case .document(let attached) = try await entity(
                request, body: .json(["params": ["document": .string(document)]]))
        else { throw NuxeoError(.invalidResponse, "Blob.AttachOnDocument answered no document") }
        return attached
    }

    /// Makes an uploaded file a new document in the folder `folder` (a path or uid), named after the file
    /// (`FileManager.Import`, which picks the document type from the file on a Nuxeo server).
    public func importFile(_ upload: NuxeoUpload, into folder: String) async throws -> NuxeoDocument {
        let request = NuxeoRequest.resource(
            "upload", upload.batchID, String(upload.fileIndex), "execute", "FileManager.Import"
        ).method(.post)
        let reference = folder.hasPrefix("/") ? "doc:" + folder : folder
        guard
            case .document(let imported) = try await entity(
                request, body: .json(["params": [:], "context": ["currentDocument": .string(reference)]]))
        else { throw NuxeoError(.invalidResponse, "FileManager.Import answered no document") }
        return imported
    }

    /// An upload request: 308 is an answer here (a chunked file not complete yet), not a refusal.
    private func sendUpload(_ request: NuxeoRequest, body: HTTPClient.Body? = nil) async throws -> HTTPClient.Response {
        try await send(request, body: body, accepting308: true)
    }
}
