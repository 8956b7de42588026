import Foundation
import GRDB
public import SatchelCMISCore
import Synchronization

/// A ``MetadataStore`` in one SQLite file (GRDB): the server's default store.
///
/// The file is opened as a WAL-mode database pool, so any number of reads run beside the single writer. Every
/// ``apply(_:)`` is one write transaction. Hot reads (an object by id, a page of children) use cached prepared
/// statements and decode rows by column index, without Codable.
///
/// ```swift
/// let store = try SQLiteMetadataStore(path: "/var/lib/satchel/metadata.sqlite")
/// try await store.migrate()
/// let root = try await store.object(repositoryId: "shared", id: rootId)
/// ```
public final class SQLiteMetadataStore: MetadataStore, TimedStore {
    /// The database: a pool for a file, a queue in memory.
    let database: any DatabaseWriter
    /// The file, or nil in memory.
    public let path: String?
    /// ``ServerStateStore/trashGeneration``.
    let trashChanges = Atomic<UInt64>(0)
    /// How long reads and writes take (``TimedStore``).
    public let timings = OperationTimings()

    /// Opens (creating it and its folder on first use) the database file at `path` and brings its schema up to
    /// date. A folder it creates and the database's files are readable by their owner only.
    ///
    /// - Throws: ``MetadataStoreError/backend(_:)`` when the folder cannot be created or the file cannot be opened.
    public init(path: String) throws {
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        do {
            if !FileManager.default.fileExists(atPath: folder.path) { try PrivateFiles.createFolder(folder) }
            for file in [path, path + "-wal", path + "-shm"] where FileManager.default.fileExists(atPath: file) {
                PrivateFiles.restrict(file)
            }
            PrivateFiles.prepareFile(path)
        } catch {
            throw MetadataStoreError.backend("cannot create the folder \(folder.path) for \(path): \(error)")
        }
        do {
            database = try DatabasePool(path: path, configuration: Self.configuration())
        } catch {
            throw MetadataStoreError.backend("cannot open the SQLite database \(path): \(error)")
        }
        self.path = path
        try Self.migrate(database)
    }

    private init(inMemory database: any DatabaseWriter) throws {
        self.database = database
        self.path = nil
        try Self.migrate(database)
    }

    /// A store in memory, gone when released: for tests that want SQLite semantics without a file.
    public static func inMemory() throws -> SQLiteMetadataStore {
        do {
            return try SQLiteMetadataStore(inMemory: DatabaseQueue(configuration: configuration()))
        } catch let error as MetadataStoreError {
            throw error
        } catch {
            throw MetadataStoreError.backend("cannot open an in-memory SQLite database: \(error)")
        }
    }

    private static func configuration() -> Configuration {
        var configuration = Configuration()
        configuration.label = "satchel.metadata"
        configuration.busyMode = .timeout(10)
        configuration.maximumReaderCount = 8
        configuration.prepareDatabase { db in
            // WAL with NORMAL sync: a commit survives a process crash; a power cut may lose the last commits
            // but never corrupts the file.
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
            // Reads map the file instead of copying each page with pread(2): a page of 1,000 children reads a
            // few MB of rows.
            try db.execute(sql: "PRAGMA mmap_size = 268435456")
        }
        return configuration
    }

    private static func migrate(_ database: any DatabaseWriter) throws {
        do {
            try SQLiteSchema.migrator.migrate(database)
        } catch {
            throw MetadataStoreError.backend("cannot migrate the SQLite schema: \(error)")
        }
    }

    /// Applies the migrations the file lacks (opening the store has applied them already).
    public func migrate() async throws {
        try Self.migrate(database)
    }

    // MARK: Reading

    /// Runs a short read synchronously: a hop to a reader connection costs a few microseconds, where the async
    /// variant costs several task switches. Only for reads that touch a bounded number of rows.
    ///
    /// The wait for a free reader is safe on a cooperative thread only because no reader is ever held by a
    /// suspended task: every other read is a synchronous closure that runs to its end (``longRead(_:)`` runs on
    /// GRDB's own reader queues and releases the reader there). GRDB's `async` read keeps its reader until the
    /// awaiting task resumes, which needs a cooperative thread: with both of a two-core machine's threads waiting
    /// here for a reader, nothing would ever resume.
    ///
    /// `isolated: false` skips the BEGIN/COMMIT around the read: enough for a single SELECT, which SQLite runs on
    /// one snapshot anyway.
    func quickRead<T>(isolated: Bool = true, _ body: (Database) throws -> T) throws -> T {
        try timings.measureNow("read") { () throws -> T in
            do {
                return try isolated ? database.read(body) : database.unsafeRead(body)
            } catch {
                throw Self.storeError(error)
            }
        }
    }

    /// Runs a read that may visit many rows on one of GRDB's reader queues, without holding a task thread; the
    /// reader is released on its queue when `body` returns, before the awaiting task resumes.
    func longRead<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await timings.measure("read") { () async throws -> T in
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                database.asyncRead { result in
                    continuation.resume(with: Result { try body(result.get()) }.mapError(Self.storeError))
                }
            }
        }
    }

    /// A read failure as the store's error.
    private static func storeError(_ error: any Error) -> any Error {
        switch error {
        case let error as any StoreRefusal: return error
        case let error as StoredCodingError: return MetadataStoreError.backend(error.message)
        default: return MetadataStoreError.backend("SQLite read failed: \(error)")
        }
    }

    /// One write transaction (the state tables'); the store's own refusals pass through, any other failure is
    /// ``MetadataStoreError/backend(_:)``.
    func stateWrite<T: Sendable>(_ body: @escaping @Sendable (Database) throws -> T) async throws -> T {
        try await timings.measure("write") { () async throws -> T in
            do {
                return try await database.write(body)
            } catch let error as any StoreRefusal {
                throw error
            } catch {
                throw MetadataStoreError.backend("SQLite write failed: \(error)")
            }
        }
    }

    /// One cached statement, ordered by id.
    public func repositories() async throws -> [StoredRepository] {
        try quickRead { db in
            let statement = try db.cachedStatement(
                sql: "SELECT \(Self.repositoryColumns) FROM repositories ORDER BY id")
            return try Row.fetchAll(statement).map(Self.repository(from:))
        }
    }

    /// One SELECT by primary key.
    public func repository(id: String) async throws -> StoredRepository? {
        try quickRead { db in
            let statement = try db.cachedStatement(
                sql: "SELECT \(Self.repositoryColumns) FROM repositories WHERE id = ?")
            return try Row.fetchOne(statement, arguments: [id]).map(Self.repository(from:))
        }
    }

    /// One SELECT by primary key, through a cached prepared statement.
    public func object(repositoryId: String, id: String) async throws -> StoredObject? {
        try quickRead(isolated: false) { db in
            let statement = try db.cachedStatement(
                sql: "SELECT \(SQLiteSchema.objectColumns) FROM objects WHERE repository = ? AND id = ?")
            return try Self.fetchObjects(statement, [repositoryId, id]).first
        }
    }

    /// Each id once, 500 to a statement, read on one of GRDB's reader queues.
    public func objects(repositoryId: String, ids: [String]) async throws -> [StoredObject] {
        if ids.isEmpty { return [] }
        let unique = Array(Set(ids))
        return try await longRead { db in
            var result: [StoredObject] = []
            result.reserveCapacity(unique.count)
            // Well under SQLite's bound-parameter limit per statement.
            for start in stride(from: 0, to: unique.count, by: 500) {
                let chunk = unique[start..<min(start + 500, unique.count)]
                let placeholders = Array(repeating: "?", count: chunk.count).joined(separator: ",")
                let statement = try db.cachedStatement(
                    sql: """
                        SELECT \(SQLiteSchema.objectColumns) FROM objects
                        WHERE repository = ? AND id IN (\(placeholders))
                        """)
                var arguments: [String] = [repositoryId]
                arguments.append(contentsOf: chunk)
                result.append(
                    contentsOf: try Self.fetchObjects(
                        statement, StatementArguments(arguments), expectedRows: chunk.count))
            }
            return result
        }
    }

    /// One lookup in the filings table's primary key (repository, folder, name).
    public func child(repositoryId: String, folderId: String, name: String) async throws -> StoredObject? {
        try quickRead(isolated: false) { db in
            let statement = try db.cachedStatement(
                sql: """
                    SELECT \(SQLiteSchema.prefixedObjectColumns) FROM filings f
                    JOIN objects o ON o.repository = f.repository AND o.id = f.object
                    WHERE f.repository = ? AND f.folder = ? AND f.name = ?
                    """)
            return try Self.fetchObjects(statement, [repositoryId, folderId, name]).first
        }
    }

    /// A count of the folder's filings, then one page sorted as `StoreOrder.childrenOrderTerms(_:)` says. A page of up
    /// to 1,000 is read in place; a larger or unbounded one on a reader queue.
    public func children(
        repositoryId: String, folderId: String, order: [StoreOrder], offset: Int, limit: Int?
    ) async throws -> StoredPage {
        let sql = Self.childrenSQL(order: order)
        let offset = max(offset, 0)
        let limit = limit.map { max($0, 0) } ?? -1
        let read: @Sendable (Database) throws -> StoredPage = { db in
            let count =
                try Int.fetchOne(
                    db.cachedStatement(sql: "SELECT COUNT(*) FROM filings WHERE repository = ? AND folder = ?"),
                    arguments: [repositoryId, folderId]) ?? 0
            if offset >= count || limit == 0 { return StoredPage(objects: [], totalCount: count) }
            let objects = try Self.fetchObjects(
                db.cachedStatement(sql: sql), [repositoryId, folderId, limit, offset],
                expectedRows: limit >= 0 ? limit : nil)
            return StoredPage(objects: objects, totalCount: count)
        }
        // A bounded page is a short read; a whole large folder is not.
        if limit >= 0 && limit <= 1000 { return try quickRead(read) }
        return try await longRead(read)
    }

    /// The children query for a sort order (``StoreOrder/childrenOrderTerms(_:)``).
    static func childrenSQL(order: [StoreOrder]) -> String {
        let terms = StoreOrder.childrenOrderTerms(order)
        return """
            SELECT \(SQLiteSchema.prefixedObjectColumns) FROM filings f
            JOIN objects o ON o.repository = f.repository AND o.id = f.object
            WHERE f.repository = ? AND f.folder = ?
            ORDER BY \(terms.joined(separator: ", "))
            LIMIT ? OFFSET ?
            """
    }

    /// One SELECT ordered by id, the trash condition part of it, read on a reader queue. An empty set of base types or
    /// type ids matches nothing.
    public func scan(
        repositoryId: String, baseTypes: Set<BaseTypeId>?, typeIds: Set<String>?, latestOnly: Bool,
        trash: TrashScope?
    ) async throws -> [StoredObject] {
        if baseTypes?.isEmpty == true || typeIds?.isEmpty == true { return [] }
        var conditions = ["repository = ?"]
        var arguments: [String] = [repositoryId]
        if let baseTypes {
            conditions.append("base_type IN (\(Array(repeating: "?", count: baseTypes.count).joined(separator: ",")))")
            arguments.append(contentsOf: baseTypes.map(\.rawValue).sorted())
        }
        if let typeIds {
            conditions.append("type_id IN (\(Array(repeating: "?", count: typeIds.count).joined(separator: ",")))")
            arguments.append(contentsOf: typeIds.sorted())
        }
        if latestOnly { conditions.append("(is_latest = 1 OR is_pwc = 1)") }
        if let trash { conditions.append(trash.condition(overObjects: "objects")) }
        let sql = """
            SELECT \(SQLiteSchema.objectColumns) FROM objects WHERE \(conditions.joined(separator: " AND "))
            ORDER BY id
            """
        let bound = arguments
        return try await longRead { db in
            try Self.fetchObjects(db.makeStatement(sql: sql), StatementArguments(bound), expectedRows: nil)
        }
    }

    /// Ordered by creation time, then change token, then id, newest first.
    public func versions(repositoryId: String, versionSeriesId: String) async throws -> [StoredObject] {
        try quickRead { db in
            let statement = try db.cachedStatement(
                sql: """
                    SELECT \(SQLiteSchema.objectColumns) FROM objects
                    WHERE repository = ? AND version_series = ?
                    ORDER BY created_at DESC, change_token DESC, id DESC
                    """)
            return try Self.fetchObjects(statement, [repositoryId, versionSeriesId])
        }
    }

    /// Ordered by id.
    public func relationships(repositoryId: String, objectId: String) async throws -> [StoredObject] {
        try quickRead { db in
            let statement = try db.cachedStatement(
                sql: """
                    SELECT \(SQLiteSchema.objectColumns) FROM objects
                    WHERE repository = ?1 AND base_type = 'cmis:relationship' AND (source_id = ?2 OR target_id = ?2)
                    ORDER BY id
                    """)
            return try Self.fetchObjects(statement, [repositoryId, objectId])
        }
    }

    /// Read on a reader queue; none when `limit` is 0 or less.
    public func changes(repositoryId: String, after token: Int64?, limit: Int) async throws -> [StoredChange] {
        if limit <= 0 { return [] }
        return try await longRead { db in
            let statement = try db.cachedStatement(
                sql: """
                    SELECT token, repository, object_id, change_type, time, type_id, base_type, readers FROM changes
                    WHERE repository = ? AND token > ? ORDER BY token LIMIT ?
                    """)
            return try Row.fetchAll(statement, arguments: [repositoryId, token ?? 0, limit]).map { row in
                let baseType: String = row[6]
                guard let baseTypeId = BaseTypeId(rawValue: baseType) else {
                    throw StoredCodingError(message: "change \(row[0] as Int64): unknown base type '\(baseType)'")
                }
                let readers: String? = row[7]
                return StoredChange(
                    token: row[0], repositoryId: row[1], objectId: row[2],
                    changeType: ChangeType(rawValue: row[3]), time: StoredTime.date(milliseconds: row[4]),
                    typeId: row[5], baseTypeId: baseTypeId,
                    readers: try readers.map { try StoredPropertyCodec.decodeStrings($0) })
            }
        }
    }

    /// The largest token in the repository's change log.
    public func latestChangeToken(repositoryId: String) async throws -> Int64? {
        try quickRead { db in
            try Int64.fetchOne(
                db.cachedStatement(sql: "SELECT MAX(token) FROM changes WHERE repository = ?"),
                arguments: [repositoryId])
        }
    }

    /// Every distinct content hash of every repository and every upload batch's chunks, read on a reader queue.
    public func referencedContentHashes() async throws -> Set<String> {
        try await longRead { db in try Set(String.fetchCursor(db, sql: UploadBatchSQL.referencedHashes)) }
    }

    /// Two EXISTS queries over the content hash indexes (objects' and upload chunks').
    public func isContentReferenced(_ hash: String) async throws -> Bool {
        try quickRead(isolated: false) { db in
            try Bool.fetchOne(
                db.cachedStatement(sql: "SELECT \(UploadBatchSQL.referenced("?1"))"), arguments: [hash]) ?? false
        }
    }

    // MARK: Rows

    static let repositoryColumns = "id, name, description, owner, root_folder_id, created_at"

    static func repository(from row: Row) -> StoredRepository {
        StoredRepository(
            id: row[0], name: row[1], description: row[2], owner: row[3], rootFolderId: row[4],
            createdAt: StoredTime.date(milliseconds: row[5]))
    }

    /// The objects of the rows `statement` returns; `expectedRows` above ``StoredDecodeCache/scanRows`` (or nil,
    /// unbounded) reads through the decode cache without adding to it.
    static func fetchObjects(
        _ statement: Statement, _ arguments: StatementArguments, expectedRows: Int? = 1
    ) throws -> [StoredObject] {
        var reading = StoredBagReading(expectedRows: expectedRows)
        var objects: [StoredObject] = []
        let rows = try Row.fetchCursor(statement, arguments: arguments)
        while let row = try rows.next() { objects.append(try object(from: row, reading: &reading)) }
        return objects
    }

    /// Decodes a row of ``SQLiteSchema/objectColumns`` as one of the rows of `reading`.
    static func object(from row: Row, reading: inout StoredBagReading) throws -> StoredObject {
        let columns = StoredObjectColumns(
            repositoryId: row[0], id: row[1], baseType: row[2], typeId: row[3], name: row[4], parentIds: row[5],
            changeToken: row[7], contentHash: row[8], contentLength: row[9], contentMimeType: row[10],
            contentFileName: row[11], versionSeriesId: row[12], isLatestVersion: row[13],
            isPrivateWorkingCopy: row[14], sourceId: row[15], targetId: row[16], acl: row[17], policyIds: row[18],
            createdAt: row[19], modifiedAt: row[20])
        return try row.withUnsafeData(atIndex: 6) { data in
            try columns.object(propertyBag: data ?? Data("[]".utf8), reading: &reading)
        }
    }
}
