public import Foundation
import GRDB

/// ``UploadBatchStore`` in the same SQLite file as the objects (tables in ``SQLiteSchema/uploadBatchTables``): each
/// change is one write transaction.
extension SQLiteMetadataStore: UploadBatchStore {
    /// Counts the owner's batches and inserts the new one in one transaction.
    public func openUploadBatch(id: String, owner: String, at time: Date, maximumPerOwner: Int) async throws -> Bool {
        try await stateWrite { db in
            let held =
                try Int.fetchOne(
                    db.cachedStatement(sql: "SELECT COUNT(*) FROM upload_batches WHERE owner = ?"), arguments: [owner])
                ?? 0
            guard held < maximumPerOwner else { return false }
            try db.cachedStatement(
                sql: "INSERT INTO upload_batches (id, owner, touched_at) VALUES (?, ?, ?) ON CONFLICT DO NOTHING"
            ).execute(arguments: [id, owner, StoredTime.milliseconds(time)])
            return db.changesCount > 0
        }
    }

    /// One transaction: the chunks' hashes, then the rows.
    public func expireUploadBatches(touchedBefore time: Date) async throws -> Set<String> {
        try await stateWrite { db in
            let cutoff = StoredTime.milliseconds(time)
            let expired = "SELECT id FROM upload_batches WHERE touched_at < ?"
            let hashes = try String.fetchAll(
                db, sql: "SELECT hash FROM upload_chunks WHERE batch IN (\(expired))", arguments: [cutoff])
            for table in ["upload_chunks", "upload_files"] {
                try db.execute(sql: "DELETE FROM \(table) WHERE batch IN (\(expired))", arguments: [cutoff])
            }
            try db.execute(sql: "DELETE FROM upload_batches WHERE touched_at < ?", arguments: [cutoff])
            return try Self.unreferenced(hashes, db)
        }
    }

    /// One read transaction.
    public func uploadBatch(id: String, owner: String) async throws -> UploadBatch? {
        try quickRead { db in
            guard
                let row = try Row.fetchOne(
                    db.cachedStatement(sql: "SELECT touched_at FROM upload_batches WHERE id = ? AND owner = ?"),
                    arguments: [id, owner])
            else { return nil }
            var batch = UploadBatch(id: id, owner: owner, touched: StoredTime.date(milliseconds: row[0]))
            for file in try Row.fetchAll(
                db.cachedStatement(sql: "SELECT file FROM upload_files WHERE batch = ?"), arguments: [id])
            {
                batch.files[file[0]] = try Self.uploadFile(id, file[0], db)
            }
            return batch
        }
    }

    /// One SUM over the owner's chunks.
    public func uploadedBytes(owner: String) async throws -> Int64 {
        try quickRead(isolated: false) { db in
            try Int64.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT COALESCE(SUM(c.length), 0) FROM upload_chunks c
                        JOIN upload_batches b ON b.id = c.batch WHERE b.owner = ?
                        """), arguments: [owner]) ?? 0
        }
    }

    /// One write transaction.
    public func storeUploadChunk(
        batch id: String, owner: String, file index: Int, chunk: Int, header: UploadFileHeader, blob: BlobReference,
        at time: Date
    ) async throws -> UploadChunkOutcome {
        try await stateWrite { db in
            guard try Self.holds(id, owner, db) else { return .noBatch }
            var dropped: [String] = []
            if let existing = try Self.uploadFile(id, index, db) {
                guard existing.claimed == nil else { return .busy }
                if existing.header.chunkCount != header.chunkCount || existing.header.chunked != header.chunked {
                    dropped = existing.chunks.values.map(\.hash)
                    try db.execute(
                        sql: "DELETE FROM upload_chunks WHERE batch = ? AND file = ?", arguments: [id, index])
                    try db.execute(
                        sql: """
                            UPDATE upload_files SET name = ?, mime_type = ?, size = ?, chunk_count = ?, chunked = ?
                            WHERE batch = ? AND file = ?
                            """,
                        arguments: [
                            header.name, header.mimeType, header.size, header.chunkCount, header.chunked, id, index,
                        ])
                } else if let replaced = existing.chunks[chunk] {
                    dropped.append(replaced.hash)
                }
            } else {
                try db.execute(
                    sql: """
                        INSERT INTO upload_files (batch, file, name, mime_type, size, chunk_count, chunked)
                        VALUES (?, ?, ?, ?, ?, ?, ?)
                        """,
                    arguments: [
                        id, index, header.name, header.mimeType, header.size, header.chunkCount, header.chunked,
                    ])
            }
            try db.cachedStatement(
                sql: """
                    INSERT INTO upload_chunks (batch, file, chunk, hash, length) VALUES (?, ?, ?, ?, ?)
                    ON CONFLICT (batch, file, chunk) DO UPDATE SET hash = excluded.hash, length = excluded.length
                    """
            ).execute(arguments: [id, index, chunk, blob.hash, blob.length])
            try Self.touch(id, time, db)
            guard let file = try Self.uploadFile(id, index, db) else { return .noBatch }
            return .stored(file, released: try Self.unreferenced(dropped, db))
        }
    }

    /// One write transaction.
    public func claimUploadFile(
        batch id: String, owner: String, file index: Int, at time: Date, staleBefore: Date
    ) async throws -> UploadClaimOutcome {
        try await stateWrite { db in
            guard try Self.holds(id, owner, db), var file = try Self.uploadFile(id, index, db) else { return .notFound }
            guard file.isComplete else { return .incomplete }
            if let claimed = file.claimed, claimed >= staleBefore { return .busy }
            let claimed = StoredTime.milliseconds(time)
            try db.execute(
                sql: "UPDATE upload_files SET claimed_at = ? WHERE batch = ? AND file = ?",
                arguments: [claimed, id, index])
            try Self.touch(id, time, db)
            file.claimed = StoredTime.date(milliseconds: claimed)
            return .claimed(file)
        }
    }

    /// One write transaction.
    public func settleUploadFile(
        batch id: String, owner: String, file index: Int, claimed: Date, attached: Bool
    ) async throws -> Set<String> {
        try await stateWrite { db in
            guard try Self.holds(id, owner, db), let file = try Self.uploadFile(id, index, db),
                let current = file.claimed,
                StoredTime.milliseconds(current) == StoredTime.milliseconds(claimed)
            else { return [] }
            guard attached else {
                try db.execute(
                    sql: "UPDATE upload_files SET claimed_at = NULL WHERE batch = ? AND file = ?",
                    arguments: [id, index])
                return []
            }
            try Self.deleteFiles(id, index, db)
            return try Self.unreferenced(file.chunks.values.map(\.hash), db)
        }
    }

    /// One write transaction.
    public func dropUpload(
        batch id: String, owner: String, file index: Int?, staleBefore: Date
    ) async throws -> UploadDropOutcome {
        try await stateWrite { db in
            guard try Self.holds(id, owner, db) else { return .notFound }
            let indexes =
                try index.map { [$0] }
                ?? Int.fetchAll(db, sql: "SELECT file FROM upload_files WHERE batch = ?", arguments: [id])
            let files = try indexes.compactMap { try Self.uploadFile(id, $0, db) }
            guard !files.contains(where: { ($0.claimed ?? .distantPast) >= staleBefore }) else { return .busy }
            try Self.deleteFiles(id, index, db)
            if index == nil { try db.execute(sql: "DELETE FROM upload_batches WHERE id = ?", arguments: [id]) }
            return .dropped(released: try Self.unreferenced(files.flatMap { $0.chunks.values.map(\.hash) }, db))
        }
    }

    // MARK: Rows

    private static func holds(_ id: String, _ owner: String, _ db: Database) throws -> Bool {
        try Bool.fetchOne(
            db.cachedStatement(sql: "SELECT EXISTS (SELECT 1 FROM upload_batches WHERE id = ? AND owner = ?)"),
            arguments: [id, owner]) ?? false
    }

    private static func touch(_ id: String, _ time: Date, _ db: Database) throws {
        try db.cachedStatement(sql: "UPDATE upload_batches SET touched_at = ? WHERE id = ?")
            .execute(arguments: [StoredTime.milliseconds(time), id])
    }

    /// The rows of one file (every file of the batch when `index` is nil).
    private static func deleteFiles(_ id: String, _ index: Int?, _ db: Database) throws {
        let condition = index == nil ? "batch = ?" : "batch = ? AND file = ?"
        let arguments: StatementArguments = index.map { [id, $0] } ?? [id]
        try db.execute(sql: "DELETE FROM upload_chunks WHERE \(condition)", arguments: arguments)
        try db.execute(sql: "DELETE FROM upload_files WHERE \(condition)", arguments: arguments)
    }

    private static func uploadFile(_ id: String, _ index: Int, _ db: Database) throws -> UploadFile? {
        guard
            let row = try Row.fetchOne(
                db.cachedStatement(
                    sql: """
                        SELECT name, mime_type, size, chunk_count, chunked, claimed_at FROM upload_files
                        WHERE batch = ? AND file = ?
                        """), arguments: [id, index])
        else { return nil }
        var file = UploadFile(
            header: UploadFileHeader(
                name: row[0], mimeType: row[1], size: row[2], chunkCount: row[3], chunked: row[4]),
            claimed: (row[5] as Int64?).map(StoredTime.date(milliseconds:)))
        for chunk in try Row.fetchAll(
            db.cachedStatement(sql: "SELECT chunk, hash, length FROM upload_chunks WHERE batch = ? AND file = ?"),
            arguments: [id, index])
        {
            file.chunks[chunk[0]] = BlobReference(hash: chunk[1], length: chunk[2])
        }
        return file
    }

    /// Those of `hashes` no object's content and no chunk is.
    static func unreferenced(_ hashes: some Sequence<String>, _ db: Database) throws -> Set<String> {
        let referenced = try db.cachedStatement(sql: "SELECT \(UploadBatchSQL.referenced("?1"))")
        return try Set(hashes.filter { !(try Bool.fetchOne(referenced, arguments: [$0]) ?? true) })
    }
}
