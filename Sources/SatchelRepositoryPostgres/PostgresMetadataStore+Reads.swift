import Foundation
import PostgresNIO
public import SatchelCMISCore
public import SatchelRepository

extension PostgresMetadataStore {
    /// One SELECT, ordered by id.
    public func repositories() async throws -> [StoredRepository] {
        try await rows("SELECT \(unescaped: Self.repositoryColumns) FROM repositories ORDER BY id").map(
            Self.repository(from:))
    }

    /// One SELECT by primary key.
    public func repository(id: String) async throws -> StoredRepository? {
        try await rows("SELECT \(unescaped: Self.repositoryColumns) FROM repositories WHERE id = \(id)").first.map(
            Self.repository(from:))
    }

    /// One SELECT by primary key.
    public func object(repositoryId: String, id: String) async throws -> StoredObject? {
        try await objects(
            "SELECT \(unescaped: PostgresSchema.objectColumns) FROM objects WHERE repository = \(repositoryId) AND id = \(id)"
        ).first
    }

    /// One SELECT of each id once (`id = ANY(…)`), in no particular order.
    public func objects(repositoryId: String, ids: [String]) async throws -> [StoredObject] {
        if ids.isEmpty { return [] }
        let unique = Array(Set(ids))
        return try await objects(
            """
            SELECT \(unescaped: PostgresSchema.objectColumns) FROM objects
            WHERE repository = \(repositoryId) AND id = ANY(\(unique))
            """)
    }

    /// One lookup in the filings table's primary key (repository, folder, name).
    public func child(repositoryId: String, folderId: String, name: String) async throws -> StoredObject? {
        try await objects(
            """
            SELECT \(unescaped: PostgresSchema.prefixedObjectColumns) FROM filings f
            JOIN objects o ON o.repository = f.repository AND o.id = f.object
            WHERE f.repository = \(repositoryId) AND f.folder = \(folderId) AND f.name = \(name)
            """
        ).first
    }

    /// One statement: a page sorted as `StoreOrder.childrenOrderTerms(_:)` says, each row carrying the count of the
    /// folder's filings (a subquery PostgreSQL runs once). A second statement counts only when the page is empty.
    public func children(
        repositoryId: String, folderId: String, order: [StoreOrder], offset: Int, limit: Int?
    ) async throws -> StoredPage {
        let offset = max(offset, 0)
        func count() async throws -> Int {
            Int(
                try await rows(
                    "SELECT COUNT(*) FROM filings WHERE repository = \(repositoryId) AND folder = \(folderId)"
                ).first?.decode(Int64.self) ?? 0)
        }
        if limit.map({ $0 <= 0 }) == true { return StoredPage(objects: [], totalCount: try await count()) }
        let terms = StoreOrder.childrenOrderTerms(order)
        let limitClause = limit.map { " LIMIT \(max($0, 0))" } ?? ""
        let page = try await rows(
            """
            SELECT \(unescaped: PostgresSchema.prefixedObjectColumns),
                (SELECT COUNT(*) FROM filings WHERE repository = \(repositoryId) AND folder = \(folderId))
            FROM filings f JOIN objects o ON o.repository = f.repository AND o.id = f.object
            WHERE f.repository = \(repositoryId) AND f.folder = \(folderId)
            ORDER BY \(unescaped: terms.joined(separator: ", "))\(unescaped: limitClause) OFFSET \(offset)
            """)
        guard let first = page.first else { return StoredPage(objects: [], totalCount: try await count()) }
        var reading = StoredBagReading(expectedRows: limit)
        do {
            let total = try first.makeRandomAccess()[PostgresSchema.objectColumnCount].decode(Int64.self)
            return StoredPage(
                objects: try page.map { try Self.object(from: $0, reading: &reading) }, totalCount: Int(total))
        } catch {
            throw Self.storeError(error)
        }
    }

    /// One SELECT ordered by id, the trash condition part of it. An empty set of base types or type ids matches
    /// nothing.
    public func scan(
        repositoryId: String, baseTypes: Set<BaseTypeId>?, typeIds: Set<String>?, latestOnly: Bool,
        trash: TrashScope?
    ) async throws -> [StoredObject] {
        if baseTypes?.isEmpty == true || typeIds?.isEmpty == true { return [] }
        var query: PostgresQuery = """
            SELECT \(unescaped: PostgresSchema.objectColumns) FROM objects WHERE repository = \(repositoryId)
            """
        var sql = query.sql
        var binds = query.binds
        if let baseTypes {
            binds.append(baseTypes.map(\.rawValue).sorted())
            sql += " AND base_type = ANY($\(binds.count))"
        }
        if let typeIds {
            binds.append(typeIds.sorted())
            sql += " AND type_id = ANY($\(binds.count))"
        }
        if latestOnly { sql += " AND (is_latest OR is_pwc)" }
        if let trash { sql += " AND " + trash.condition(overObjects: "objects") }
        sql += " ORDER BY id"
        query = PostgresQuery(unsafeSQL: sql, binds: binds)
        return try await objects(query, expectedRows: nil)
    }

    /// Ordered by creation time, then change token, then id, newest first.
    public func versions(repositoryId: String, versionSeriesId: String) async throws -> [StoredObject] {
        try await objects(
            """
            SELECT \(unescaped: PostgresSchema.objectColumns) FROM objects
            WHERE repository = \(repositoryId) AND version_series = \(versionSeriesId)
            ORDER BY created_at DESC, change_token DESC, id DESC
            """)
    }

    /// Ordered by id.
    public func relationships(repositoryId: String, objectId: String) async throws -> [StoredObject] {
        try await objects(
            """
            SELECT \(unescaped: PostgresSchema.objectColumns) FROM objects
            WHERE repository = \(repositoryId) AND base_type = 'cmis:relationship'
                AND (source_id = \(objectId) OR target_id = \(objectId))
            ORDER BY id
            """)
    }

    /// One SELECT in token order; none when `limit` is 0 or less.
    public func changes(repositoryId: String, after token: Int64?, limit: Int) async throws -> [StoredChange] {
        if limit <= 0 { return [] }
        let rows = try await rows(
            """
            SELECT token, repository, object_id, change_type, time, type_id, base_type, readers FROM changes
            WHERE repository = \(repositoryId) AND token > \(token ?? 0) ORDER BY token LIMIT \(Int64(limit))
            """)
        do {
            return try rows.map { row in
                let (token, repository, objectId, changeType, time, typeId, baseType, readers) = try row.decode(
                    (Int64, String, String, String, Int64, String, String, String?).self)
                guard let baseTypeId = BaseTypeId(rawValue: baseType) else {
                    throw MetadataStoreError.backend("change \(token): unknown base type '\(baseType)'")
                }
                return StoredChange(
                    token: token, repositoryId: repository, objectId: objectId,
                    changeType: ChangeType(rawValue: changeType), time: StoredTime.date(milliseconds: time),
                    typeId: typeId, baseTypeId: baseTypeId,
                    readers: try readers.map { try StoredPropertyCodec.decodeStrings($0) })
            }
        } catch {
            throw Self.storeError(error)
        }
    }

    /// The largest token in the repository's change log.
    public func latestChangeToken(repositoryId: String) async throws -> Int64? {
        do {
            return try await rows("SELECT MAX(token) FROM changes WHERE repository = \(repositoryId)").first?
                .decode(Int64?.self) ?? nil
        } catch {
            throw Self.storeError(error)
        }
    }

    /// Every distinct content hash of every repository and every upload batch's chunks, in one SELECT.
    public func referencedContentHashes() async throws -> Set<String> {
        do {
            return Set(
                try await rows(PostgresQuery(unsafeSQL: UploadBatchSQL.referencedHashes)).map {
                    try $0.decode(String.self)
                })
        } catch {
            throw Self.storeError(error)
        }
    }

    /// Two EXISTS queries over the content hash indexes (objects' and upload chunks').
    public func isContentReferenced(_ hash: String) async throws -> Bool {
        var query = PostgresQuery(unsafeSQL: "SELECT " + UploadBatchSQL.referenced("$1"))
        try query.binds.append(hash, context: .default)
        return try await rows(query).first?.decode(Bool.self) ?? false
    }

    // MARK: Rows

    static let repositoryColumns = "id, name, description, owner, root_folder_id, created_at"

    static func repository(from row: PostgresRow) throws -> StoredRepository {
        do {
            let (id, name, description, owner, root, created) = try row.decode(
                (String, String, String, String?, String, Int64).self)
            return StoredRepository(
                id: id, name: name, description: description, owner: owner, rootFolderId: root,
                createdAt: StoredTime.date(milliseconds: created))
        } catch {
            throw storeError(error)
        }
    }

    /// The objects of the rows `query` returns; `expectedRows` above ``StoredDecodeCache/scanRows`` (or nil,
    /// unbounded) reads through the decode cache without adding to it.
    func objects(_ query: PostgresQuery, expectedRows: Int? = 1) async throws -> [StoredObject] {
        let rows = try await rows(query)
        var reading = StoredBagReading(expectedRows: expectedRows)
        do {
            return try rows.map { try Self.object(from: $0, reading: &reading) }
        } catch {
            throw Self.storeError(error)
        }
    }

    /// Decodes a row of ``PostgresSchema/objectColumns`` as one of the rows of `reading`.
    static func object(from row: PostgresRow, reading: inout StoredBagReading) throws -> StoredObject {
        let cells = row.makeRandomAccess()
        func text(_ index: Int) throws -> String { try cells[index].decode(String.self) }
        func optionalText(_ index: Int) throws -> String? { try cells[index].decode(String?.self) }
        let columns = StoredObjectColumns(
            repositoryId: try text(0), id: try text(1), baseType: try text(2), typeId: try text(3),
            name: try text(4), parentIds: try text(5), changeToken: try cells[7].decode(Int64.self),
            contentHash: try optionalText(8), contentLength: try cells[9].decode(Int64?.self),
            contentMimeType: try optionalText(10), contentFileName: try optionalText(11),
            versionSeriesId: try optionalText(12), isLatestVersion: try cells[13].decode(Bool.self),
            isPrivateWorkingCopy: try cells[14].decode(Bool.self), sourceId: try optionalText(15),
            targetId: try optionalText(16), acl: try text(17), policyIds: try text(18),
            createdAt: try cells[19].decode(Int64.self), modifiedAt: try cells[20].decode(Int64.self))
        return try columns.object(propertyBag: Array(try text(6).utf8), reading: &reading)
    }
}
