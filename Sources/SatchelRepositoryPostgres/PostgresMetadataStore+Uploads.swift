public import Foundation
import PostgresNIO
public import SatchelRepository

/// ``UploadBatchStore`` in the database every server process shares: a chunk one process received is the others' as
/// soon as its transaction commits. Every change to a batch locks the batch's row first (`FOR UPDATE`), so changes to
/// one batch go one at a time whichever process makes them.
extension PostgresMetadataStore: UploadBatchStore {
    /// One transaction under the owner's advisory lock: the count and the insert.
    public func openUploadBatch(id: String, owner: String, at time: Date, maximumPerOwner: Int) async throws -> Bool {
        try await transaction { connection in
            try await self.run(
                "SELECT pg_advisory_xact_lock(\(PostgresSchema.uploadLockClass), hashtext(\(owner)))", on: connection)
            let held =
                try await self.rows(
                    "SELECT COUNT(*) FROM upload_batches WHERE owner = \(owner)", on: connection
                ).first?.decode(Int64.self) ?? 0
            guard held < maximumPerOwner else { return false }
            return try await !self.rows(
                """
                INSERT INTO upload_batches (id, owner, touched_at) VALUES (\(id), \(owner), \(StoredTime.milliseconds(time)))
                ON CONFLICT DO NOTHING RETURNING id
                """, on: connection
            ).isEmpty
        }
    }

    /// One transaction: the batches' rows locked and deleted, then their files and chunks.
    public func expireUploadBatches(touchedBefore time: Date) async throws -> Set<String> {
        try await transaction { connection in
            let expired = try await self.rows(
                """
                DELETE FROM upload_batches WHERE id IN (
                    SELECT id FROM upload_batches WHERE touched_at < \(StoredTime.milliseconds(time)) FOR UPDATE
                ) RETURNING id
                """, on: connection
            ).map { try $0.decode(String.self) }
            guard !expired.isEmpty else { return [] }
            let hashes = try await self.rows(
                "DELETE FROM upload_chunks WHERE batch = ANY(\(expired)) RETURNING hash", on: connection
            ).map { try $0.decode(String.self) }
            try await self.run("DELETE FROM upload_files WHERE batch = ANY(\(expired))", on: connection)
            return try await self.unreferenced(hashes, on: connection)
        }
    }

    /// One read-only transaction on one snapshot.
    public func uploadBatch(id: String, owner: String) async throws -> UploadBatch? {
        try await transaction(snapshot: true) { connection in
            guard
                let touched = try await self.rows(
                    "SELECT touched_at FROM upload_batches WHERE id = \(id) AND owner = \(owner)", on: connection
                ).first?.decode(Int64.self)
            else { return nil }
            var batch = UploadBatch(id: id, owner: owner, touched: StoredTime.date(milliseconds: touched))
            batch.files = try await self.uploadFiles(id, nil, on: connection)
            return batch
        }
    }

    /// One SUM over the owner's chunks.
    public func uploadedBytes(owner: String) async throws -> Int64 {
        try await rows(
            """
            SELECT COALESCE(SUM(c.length), 0)::bigint FROM upload_chunks c
            JOIN upload_batches b ON b.id = c.batch WHERE b.owner = \(owner)
            """
        ).first?.decode(Int64.self) ?? 0
    }

    /// One transaction, the batch's row locked.
    public func storeUploadChunk(
        batch id: String, owner: String, file index: Int, chunk: Int, header: UploadFileHeader, blob: BlobReference,
        at time: Date
    ) async throws -> UploadChunkOutcome {
        try await transaction { connection in
            guard try await self.lockBatch(id, owner, on: connection) else { return .noBatch }
            var dropped: [String] = []
            if let existing = try await self.uploadFiles(id, index, on: connection)[index] {
                guard existing.claimed == nil else { return .busy }
                if existing.header.chunkCount != header.chunkCount || existing.header.chunked != header.chunked {
                    dropped = existing.chunks.values.map(\.hash)
                    try await self.run(
                        "DELETE FROM upload_chunks WHERE batch = \(id) AND file = \(index)", on: connection)
                    try await self.run(
                        """
                        UPDATE upload_files SET name = \(header.name), mime_type = \(header.mimeType),
                            size = \(header.size), chunk_count = \(header.chunkCount), chunked = \(header.chunked)
                        WHERE batch = \(id) AND file = \(index)
                        """, on: connection)
                } else if let replaced = existing.chunks[chunk] {
                    dropped.append(replaced.hash)
                }
            } else {
                try await self.run(
                    """
                    INSERT INTO upload_files (batch, file, name, mime_type, size, chunk_count, chunked)
                    VALUES (\(id), \(index), \(header.name), \(header.mimeType), \(header.size), \(header.chunkCount),
                        \(header.chunked))
                    """, on: connection)
            }
            try await self.run(
                """
                INSERT INTO upload_chunks (batch, file, chunk, hash, length)
                VALUES (\(id), \(index), \(chunk), \(blob.hash), \(blob.length))
                ON CONFLICT (batch, file, chunk) DO UPDATE SET hash = excluded.hash, length = excluded.length
                """, on: connection)
            try await self.touch(id, time, on: connection)
            guard let file = try await self.uploadFiles(id, index, on: connection)[index] else { return .noBatch }
            return .stored(file, released: try await self.unreferenced(dropped, on: connection))
        }
    }

    /// One transaction, the batch's row locked.
    public func claimUploadFile(
        batch id: String, owner: String, file index: Int, at time: Date, staleBefore: Date
    ) async throws -> UploadClaimOutcome {
        try await transaction { connection in
            guard try await self.lockBatch(id, owner, on: connection),
                var file = try await self.uploadFiles(id, index, on: connection)[index]
            else { return .notFound }
            guard file.isComplete else { return .incomplete }
            if let claimed = file.claimed, claimed >= staleBefore { return .busy }
            let claimed = StoredTime.milliseconds(time)
            try await self.run(
                "UPDATE upload_files SET claimed_at = \(claimed) WHERE batch = \(id) AND file = \(index)",
                on: connection)
            try await self.touch(id, time, on: connection)
            file.claimed = StoredTime.date(milliseconds: claimed)
            return .claimed(file)
        }
    }

    /// One transaction, the batch's row locked.
    public func settleUploadFile(
        batch id: String, owner: String, file index: Int, claimed: Date, attached: Bool
    ) async throws -> Set<String> {
        try await transaction { connection in
            guard try await self.lockBatch(id, owner, on: connection),
                let file = try await self.uploadFiles(id, index, on: connection)[index], let current = file.claimed,
                StoredTime.milliseconds(current) == StoredTime.milliseconds(claimed)
            else { return [] }
            guard attached else {
                try await self.run(
                    "UPDATE upload_files SET claimed_at = NULL WHERE batch = \(id) AND file = \(index)",
                    on: connection)
                return []
            }
            try await self.deleteFiles(id, index, on: connection)
            return try await self.unreferenced(file.chunks.values.map(\.hash), on: connection)
        }
    }

    /// One transaction, the batch's row locked.
    public func dropUpload(
        batch id: String, owner: String, file index: Int?, staleBefore: Date
    ) async throws -> UploadDropOutcome {
        try await transaction { connection in
            guard try await self.lockBatch(id, owner, on: connection) else { return .notFound }
            let files = Array(try await self.uploadFiles(id, index, on: connection).values)
            guard !files.contains(where: { ($0.claimed ?? .distantPast) >= staleBefore }) else { return .busy }
            try await self.deleteFiles(id, index, on: connection)
            if index == nil { try await self.run("DELETE FROM upload_batches WHERE id = \(id)", on: connection) }
            return .dropped(
                released: try await self.unreferenced(files.flatMap { $0.chunks.values.map(\.hash) }, on: connection))
        }
    }

    // MARK: Rows

    /// Locks the batch's row until the transaction ends; false when the owner holds no such batch.
    private func lockBatch(_ id: String, _ owner: String, on connection: PostgresConnection) async throws -> Bool {
        try await !rows(
            "SELECT 1 FROM upload_batches WHERE id = \(id) AND owner = \(owner) FOR UPDATE", on: connection
        ).isEmpty
    }

    private func touch(_ id: String, _ time: Date, on connection: PostgresConnection) async throws {
        try await run(
            "UPDATE upload_batches SET touched_at = \(StoredTime.milliseconds(time)) WHERE id = \(id)", on: connection)
    }

    /// The rows of one file (every file of the batch when `index` is nil).
    private func deleteFiles(_ id: String, _ index: Int?, on connection: PostgresConnection) async throws {
        let file = index ?? -1
        let every = index == nil
        try await run(
            "DELETE FROM upload_chunks WHERE batch = \(id) AND (\(every) OR file = \(file))", on: connection)
        try await run("DELETE FROM upload_files WHERE batch = \(id) AND (\(every) OR file = \(file))", on: connection)
    }

    /// One file of the batch (every file when `index` is nil), with its chunks: two SELECTs.
    private func uploadFiles(
        _ id: String, _ index: Int?, on connection: PostgresConnection
    ) async throws -> [Int: UploadFile] {
        let file = index ?? -1
        let every = index == nil
        var files: [Int: UploadFile] = [:]
        for row in try await rows(
            """
            SELECT file, name, mime_type, size, chunk_count, chunked, claimed_at FROM upload_files
            WHERE batch = \(id) AND (\(every) OR file = \(file))
            """, on: connection)
        {
            let (index, name, mimeType, size, count, chunked, claimed) = try decoding {
                try row.decode((Int, String, String, Int64?, Int, Bool, Int64?).self)
            }
            files[index] = UploadFile(
                header: UploadFileHeader(
                    name: name, mimeType: mimeType, size: size, chunkCount: count, chunked: chunked),
                claimed: claimed.map(StoredTime.date(milliseconds:)))
        }
        guard !files.isEmpty else { return [:] }
        for row in try await rows(
            """
            SELECT file, chunk, hash, length FROM upload_chunks WHERE batch = \(id) AND (\(every) OR file = \(file))
            """, on: connection)
        {
            let (index, chunk, hash, length) = try decoding {
                try row.decode((Int, Int, String, Int64).self)
            }
            files[index]?.chunks[chunk] = BlobReference(hash: hash, length: length)
        }
        return files
    }

    /// Those of `hashes` no object's content and no chunk is, seen from the transaction.
    func unreferenced(_ hashes: some Sequence<String>, on connection: PostgresConnection) async throws -> Set<String> {
        let candidates = Array(Set(hashes))
        guard !candidates.isEmpty else { return [] }
        let referenced = try await rows(
            """
            SELECT h FROM unnest(\(candidates)::text[]) AS h
            WHERE EXISTS (SELECT 1 FROM objects WHERE content_hash = h)
                OR EXISTS (SELECT 1 FROM upload_chunks WHERE hash = h)
            """, on: connection
        ).map { try $0.decode(String.self) }
        return Set(candidates).subtracting(referenced)
    }
}
