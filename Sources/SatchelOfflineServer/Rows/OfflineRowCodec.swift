import Crypto
import Foundation
public import SatchelOData
public import SatchelRepository
import SatchelJSON

/// Turns entities read from the back-end into the rows of the middle tier's row state (`OfflineTierStore`): the
/// key is the entity's key predicate in the back-end's version (`(ID=7)`, `('HT-1000')`), the body the entity as
/// the back-end's JSON format writes it (V4 `@odata.etag`, V2 `__metadata`), canonical: members sorted, so the
/// same entity always gives the same bytes whatever order the back-end wrote it in. The hash is the SHA-256 of the
/// body. The body holds the properties, the type, the ETag and the media ETag and type: a change to any of them is
/// a change of the row, and the body is what a client receives, byte for byte.
public struct OfflineRowCodec: Sendable {
    /// The entity type's key properties, in key order.
    public var keyProperties: [String]
    /// The back-end's version: the JSON format of the bodies and the syntax of the keys.
    public var version: ODataVersion

    /// A codec of an entity type whose key is `keyProperties` (in key order), for a back-end of `version`.
    public init(keyProperties: [String], version: ODataVersion = .v4) {
        self.keyProperties = keyProperties
        self.version = version
    }

    /// The codec of an entity set's type, from the back-end's metadata.
    public init(entitySet: String, metadata: ODataMetadata, version: ODataVersion) throws(OfflineRowError) {
        guard let set = metadata.entitySet(named: entitySet), let type = metadata.entityType(named: set.entityType)
        else { throw OfflineRowError("the back-end's metadata has no entity set \(entitySet)") }
        let key = metadata.key(of: type)
        guard !key.isEmpty else { throw OfflineRowError("\(type.qualifiedName) has no key") }
        keyProperties = key
        self.version = version
    }

    /// The row of `entity`. An entity without one of its key properties is refused (never a row with a null key).
    public func row(for entity: ODataEntity) throws(OfflineRowError) -> OfflineRow {
        let body = Self.canonical(try body(of: entity))
        return OfflineRow(key: try key(of: entity), hash: Data(SHA256.hash(data: body)), body: body)
    }

    /// The key predicate of `entity` in the back-end's syntax.
    public func key(of entity: ODataEntity) throws(OfflineRowError) -> String {
        var parts: [(String, ODataLiteral)] = []
        for name in keyProperties {
            guard let value = entity.properties[name], !value.isNull else {
                throw OfflineRowError(
                    "an entity\(entity.id.map { " (\($0))" } ?? "") has no value for its key property \(name)")
            }
            parts.append((keyProperties.count == 1 ? "" : name, ODataLiteral(value)))
        }
        let key = parts.count == 1 ? ODataKey.single(parts[0].1) : ODataKey(parts: parts)
        return key.predicate(for: version)
    }

    private func body(of entity: ODataEntity) throws(OfflineRowError) -> JSONValue {
        var plain = entity
        // Links to the back-end are not part of the row: a client addresses an entity by its set and key.
        plain.id = nil
        plain.editLink = nil
        plain.readLink = nil
        plain.mediaReadLink = nil
        plain.mediaEditLink = nil
        plain.navigationLinks = [:]
        plain.bindings = [:]
        let written: JSONValue
        do {
            written = try ODataPayloadWriter(version: version).json(for: plain)
        } catch {
            throw OfflineRowError("an entity's properties cannot be written: \(error)")
        }
        guard case .object(var object) = written else { return written }
        if version == .v2 {
            var metadata = JSONObject()
            if let type = entity.type { metadata.append(key: "type", value: .string(type)) }
            if let etag = entity.etag { metadata.append(key: "etag", value: .string(etag)) }
            if let type = entity.mediaContentType { metadata.append(key: "content_type", value: .string(type)) }
            if let etag = entity.mediaETag { metadata.append(key: "media_etag", value: .string(etag)) }
            object = JSONObject(object.filter { $0.key != "__metadata" })
            if !metadata.isEmpty { object.append(key: "__metadata", value: .object(metadata)) }
        } else {
            if let etag = entity.etag { object.append(key: "@odata.etag", value: .string(etag)) }
            if let type = entity.mediaContentType {
                object.append(key: "@odata.mediaContentType", value: .string(type))
            }
            if let etag = entity.mediaETag { object.append(key: "@odata.mediaEtag", value: .string(etag)) }
        }
        return .object(object)
    }

    /// The bytes of `value` with every object's members sorted by name.
    static func canonical(_ value: JSONValue) -> Data {
        Data(sorted(value).serialized())
    }

    private static func sorted(_ value: JSONValue) -> JSONValue {
        switch value {
        case .object(let object):
            var result = JSONObject()
            for index in object.indices.sorted(by: { object[$0].key < object[$1].key }) {
                result.append(key: object[index].key, value: sorted(object[index].value))
            }
            return .object(result)
        case .array(let items): return .array(items.map(sorted))
        default: return value
        }
    }
}

/// An entity that cannot become a row, and why.
public struct OfflineRowError: Error, Sendable, CustomStringConvertible {
    /// What is wrong, for a person.
    public var message: String
    /// An error saying `message`.
    public init(_ message: String) { self.message = message }
    /// The message.
    public var description: String { message }
}
