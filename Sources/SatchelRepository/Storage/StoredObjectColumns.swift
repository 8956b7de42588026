public import Foundation
public import SatchelCMISCore
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The columns of a row of the `objects` table, as both durable stores read them, and the one place where they
/// become a ``StoredObject``.
///
/// ```swift
/// let columns = StoredObjectColumns(repositoryId: row[0], id: row[1], …)
/// let object = try row.withUnsafeData(atIndex: 6) { try columns.object(propertyBag: $0 ?? Data()) }
/// ```
///
/// Decoding a property bag and an ACL costs more than reading the row, and reads far outnumber writes, so the
/// decoded values are kept in ``StoredDecodeCache/shared``. The cache is keyed by the bytes themselves (for a bag,
/// the object's id plus a byte-for-byte comparison of the stored bag), so it can never hand out a stale value.
public struct StoredObjectColumns: Sendable {
    /// `repository`.
    public var repositoryId: String
    /// `id`.
    public var id: String
    /// `base_type`: the base type id as text (`cmis:document` …).
    public var baseType: String
    /// `type_id`.
    public var typeId: String
    /// `name`.
    public var name: String
    /// The JSON id list of parent folders.
    public var parentIds: String
    /// `change_token`.
    public var changeToken: Int64
    /// `content_hash`: nil when the object has no content.
    public var contentHash: String?
    /// `content_length`.
    public var contentLength: Int64?
    /// `content_mime`.
    public var contentMimeType: String?
    /// `content_filename`.
    public var contentFileName: String?
    /// `version_series`.
    public var versionSeriesId: String?
    /// `is_latest`.
    public var isLatestVersion: Bool
    /// `is_pwc`.
    public var isPrivateWorkingCopy: Bool
    /// `source_id`.
    public var sourceId: String?
    /// `target_id`.
    public var targetId: String?
    /// The JSON ACL.
    public var acl: String
    /// The JSON id list of applied policies.
    public var policyIds: String
    /// Milliseconds since 1970.
    public var createdAt: Int64
    /// Milliseconds since 1970.
    public var modifiedAt: Int64

    /// The columns of one row, as read.
    public init(
        repositoryId: String, id: String, baseType: String, typeId: String, name: String, parentIds: String,
        changeToken: Int64, contentHash: String?, contentLength: Int64?, contentMimeType: String?,
        contentFileName: String?, versionSeriesId: String?, isLatestVersion: Bool, isPrivateWorkingCopy: Bool,
        sourceId: String?, targetId: String?, acl: String, policyIds: String, createdAt: Int64, modifiedAt: Int64
    ) {
        self.repositoryId = repositoryId
        self.id = id
        self.baseType = baseType
        self.typeId = typeId
        self.name = name
        self.parentIds = parentIds
        self.changeToken = changeToken
        self.contentHash = contentHash
        self.contentLength = contentLength
        self.contentMimeType = contentMimeType
        self.contentFileName = contentFileName
        self.versionSeriesId = versionSeriesId
        self.isLatestVersion = isLatestVersion
        self.isPrivateWorkingCopy = isPrivateWorkingCopy
        self.sourceId = sourceId
        self.targetId = targetId
        self.acl = acl
        self.policyIds = policyIds
        self.createdAt = createdAt
        self.modifiedAt = modifiedAt
    }

    /// The object, with its property bag decoded from `propertyBag` (the JSON of ``StoredPropertyCodec``).
    ///
    /// - Throws: ``StoredCodingError`` for an unknown base type or an unreadable bag, ACL or id list.
    public func object(
        propertyBag: some ContiguousBytes, cache: StoredDecodeCache = .shared
    ) throws(StoredCodingError)
        -> StoredObject
    {
        var reading = StoredBagReading(expectedRows: 1)
        return try object(propertyBag: propertyBag, cache: cache, reading: &reading)
    }

    /// The object, with its property bag decoded as one of the rows `reading` belongs to (reads of many rows do
    /// not add the bags they decode to `cache`; see ``StoredBagReading``).
    public func object(
        propertyBag: some ContiguousBytes, cache: StoredDecodeCache = .shared, reading: inout StoredBagReading
    ) throws(StoredCodingError)
        -> StoredObject
    {
        guard let baseTypeId = BaseTypeId(rawValue: baseType) else {
            throw StoredCodingError(message: "object \(id): unknown base type '\(baseType)'")
        }
        let properties = try cache.properties(repositoryId: repositoryId, id: id, bag: propertyBag, reading: &reading)
        let content = contentHash.map {
            StoredContent(
                hash: $0, length: contentLength ?? 0, mimeType: contentMimeType ?? "", fileName: contentFileName)
        }
        return StoredObject(
            repositoryId: repositoryId, id: id, baseTypeId: baseTypeId, typeId: typeId, name: name,
            parentIds: try StoredPropertyCodec.decodeStrings(parentIds), properties: properties,
            changeToken: changeToken, content: content, versionSeriesId: versionSeriesId,
            isLatestVersion: isLatestVersion, isPrivateWorkingCopy: isPrivateWorkingCopy, sourceId: sourceId,
            targetId: targetId, acl: try cache.acl(acl), policyIds: try StoredPropertyCodec.decodeStrings(policyIds),
            createdAt: StoredTime.date(milliseconds: createdAt), modifiedAt: StoredTime.date(milliseconds: modifiedAt))
    }
}

/// Decoded property bags and ACLs, bounded, shared by the stores of a process.
///
/// A bag is found by repository and object id and used only when the stored bytes are identical to the ones it
/// was decoded from; an ACL is found by its text. A hit therefore always equals a fresh decode, whichever store
/// or process wrote the row. When a table is full, half of it is dropped.
public final class StoredDecodeCache: Sendable {
    /// The cache the stores use unless given another.
    public static let shared = StoredDecodeCache()

    private struct Bag {
        var bytes: [UInt8]
        var properties: Properties
    }

    private struct State {
        var bags: [String: Bag] = [:]
        var acls: [String: [ACE]] = [:]
    }

    private let state = Mutex(State())
    private let maxBags: Int
    private let maxBagBytes: Int
    private let maxACLs: Int

    /// - Parameters:
    ///   - maxBags: how many property bags to keep.
    ///   - maxBagBytes: bags larger than this are decoded every time (they would crowd out the rest).
    ///   - maxACLs: how many distinct ACLs to keep.
    public init(maxBags: Int = 4096, maxBagBytes: Int = 16 * 1024, maxACLs: Int = 1024) {
        self.maxBags = maxBags
        self.maxBagBytes = maxBagBytes
        self.maxACLs = maxACLs
    }

    /// Reads returning more rows than this do not add to the cache (``StoredBagReading/init(expectedRows:)``).
    public static let scanRows = 256

    /// The properties of the bag `bag` stored for object `id`.
    public func properties(
        repositoryId: String, id: String, bag: some ContiguousBytes
    ) throws(StoredCodingError)
        -> Properties
    {
        var reading = StoredBagReading(expectedRows: 1)
        return try properties(repositoryId: repositoryId, id: id, bag: bag, reading: &reading)
    }

    /// The properties of the bag `bag` stored for object `id`, read as one of the rows of `reading`.
    ///
    /// A bag already held is always used; one decoded now is added only when `reading.keepsDecoded`. Reads of many
    /// rows (a page of 1,000 children, a query scan) do not add: that would evict the objects that single reads keep
    /// hot, and a listing larger than the cache would pay for copying bytes it never reuses.
    public func properties(
        repositoryId: String, id: String, bag: some ContiguousBytes, reading: inout StoredBagReading
    ) throws(StoredCodingError)
        -> Properties
    {
        let key = repositoryId + "\u{0}" + id
        let cached: Properties? = bag.withUnsafeBytes { bytes in
            state.withLock { state in
                guard let entry = state.bags[key], entry.bytes.count == bytes.count else { return nil }
                let same = entry.bytes.withUnsafeBytes { stored in
                    guard let left = stored.baseAddress, let right = bytes.baseAddress else { return bytes.isEmpty }
                    return memcmp(left, right, bytes.count) == 0
                }
                return same ? entry.properties : nil
            }
        }
        if let cached { return cached }
        let properties = try StoredPropertyCodec.decodeProperties(bag, reading: &reading)
        guard reading.keepsDecoded else { return properties }
        let bytes: [UInt8] = bag.withUnsafeBytes { Array($0) }
        guard bytes.count <= maxBagBytes else { return properties }
        state.withLock { state in
            if state.bags.count >= maxBags { Self.dropHalf(&state.bags) }
            state.bags[key] = Bag(bytes: bytes, properties: properties)
        }
        return properties
    }

    /// The ACL stored as `text`.
    public func acl(_ text: String) throws(StoredCodingError) -> [ACE] {
        if text == "[]" { return [] }
        if let cached = state.withLock({ $0.acls[text] }) { return cached }
        let acl = try StoredPropertyCodec.decodeACL(text)
        state.withLock { state in
            if state.acls.count >= maxACLs { Self.dropHalf(&state.acls) }
            state.acls[text] = acl
        }
        return acl
    }

    /// How many property bags and ACLs are held now.
    public var counts: (bags: Int, acls: Int) {
        state.withLock { ($0.bags.count, $0.acls.count) }
    }

    private static func dropHalf<Value>(_ table: inout [String: Value]) {
        var keep = false
        table = table.filter { _ in
            keep.toggle()
            return keep
        }
    }
}
