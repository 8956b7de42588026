public import Foundation

/// ``UploadBatchStore`` in memory: each change is one step under the store's lock.
extension MemoryMetadataStore: UploadBatchStore {
    /// Counts the owner's batches and opens the new one in one step.
    public func openUploadBatch(id: String, owner: String, at time: Date, maximumPerOwner: Int) async throws -> Bool {
        withState { state in
            guard state.uploads[id] == nil,
                state.uploads.values.count(where: { $0.owner == owner }) < maximumPerOwner
            else { return false }
            state.uploads[id] = UploadBatch(id: id, owner: owner, touched: time)
            return true
        }
    }

    /// Drops the batches touched before `time`.
    public func expireUploadBatches(touchedBefore time: Date) async throws -> Set<String> {
        withState { state in
            let expired = state.uploads.values.filter { $0.touched < time }
            for batch in expired { state.uploads[batch.id] = nil }
            return state.unreferenced(expired.flatMap { $0.files.values.flatMap { $0.chunks.values.map(\.hash) } })
        }
    }

    /// A dictionary lookup.
    public func uploadBatch(id: String, owner: String) async throws -> UploadBatch? {
        withState { state in state.uploads[id].flatMap { $0.owner == owner ? $0 : nil } }
    }

    /// Sums the owner's chunks.
    public func uploadedBytes(owner: String) async throws -> Int64 {
        withState { state in
            state.uploads.values.filter { $0.owner == owner }.reduce(0) { total, batch in
                batch.files.values.reduce(total) { $0 + $1.uploadedSize }
            }
        }
    }

    /// One step under the store's lock.
    public func storeUploadChunk(
        batch id: String, owner: String, file index: Int, chunk: Int, header: UploadFileHeader, blob: BlobReference,
        at time: Date
    ) async throws -> UploadChunkOutcome {
        withState { state in
            guard var batch = state.uploads[id], batch.owner == owner else { return .noBatch }
            var file = batch.files[index] ?? UploadFile(header: header)
            guard file.claimed == nil else { return .busy }
            var dropped: [String] = []
            if file.header.chunkCount != header.chunkCount || file.header.chunked != header.chunked {
                dropped = file.chunks.values.map(\.hash)
                file = UploadFile(header: header)
            }
            if let replaced = file.chunks.updateValue(blob, forKey: chunk) { dropped.append(replaced.hash) }
            batch.files[index] = file
            batch.touched = time
            state.uploads[id] = batch
            return .stored(file, released: state.unreferenced(dropped))
        }
    }

    /// One step under the store's lock.
    public func claimUploadFile(
        batch id: String, owner: String, file index: Int, at time: Date, staleBefore: Date
    ) async throws -> UploadClaimOutcome {
        withState { state in
            guard let batch = state.uploads[id], batch.owner == owner, var file = batch.files[index] else {
                return .notFound
            }
            guard file.isComplete else { return .incomplete }
            if let claimed = file.claimed, claimed >= staleBefore { return .busy }
            file.claimed = time
            state.uploads[id]?.files[index] = file
            state.uploads[id]?.touched = time
            return .claimed(file)
        }
    }

    /// One step under the store's lock.
    public func settleUploadFile(
        batch id: String, owner: String, file index: Int, claimed: Date, attached: Bool
    ) async throws -> Set<String> {
        withState { state in
            guard let batch = state.uploads[id], batch.owner == owner, let file = batch.files[index],
                file.claimed == claimed
            else { return [] }
            guard attached else {
                state.uploads[id]?.files[index]?.claimed = nil
                return []
            }
            state.uploads[id]?.files[index] = nil
            return state.unreferenced(file.chunks.values.map(\.hash))
        }
    }

    /// One step under the store's lock.
    public func dropUpload(
        batch id: String, owner: String, file index: Int?, staleBefore: Date
    ) async throws -> UploadDropOutcome {
        withState { state in
            guard let batch = state.uploads[id], batch.owner == owner else { return .notFound }
            let files = index.map { batch.files[$0].map { [$0] } ?? [] } ?? Array(batch.files.values)
            guard !files.contains(where: { ($0.claimed ?? .distantPast) >= staleBefore }) else { return .busy }
            if let index { state.uploads[id]?.files[index] = nil } else { state.uploads[id] = nil }
            return .dropped(released: state.unreferenced(files.flatMap { $0.chunks.values.map(\.hash) }))
        }
    }
}
