import Crypto
import Foundation
public import SatchelOData
public import SatchelRepository
import SatchelJSON

/// Turns entities read from the back-end into the rows of the middle tier's row state (``OfflineTierStore``): the
/// key is the entity's key predicate (`(ID=7)`, `('HT-1000')`), the body its canonical JSON (members sorted, so
/// the same entity always gives the same bytes, whatever order the back-end wrote it in), the hash the SHA-256 of
/// the body. The body holds the properties, the ETag and the media ETag and type: a change to any of them is a
/// change of the row.
public struct OfflineRowCodec: Sendable {
    /// The entity type's key properties, in key order.
    public var keyProperties: [String]

    public init(keyProperties: [String]) {
        self.keyProperties = keyProperties
    }

    /// The codec of an entity set's type, from the back-end's metadata.
    public init(entitySet: String, metadata: ODataMetadata) throws(OfflineRowError) {
        guard let set = metadata.entitySet(named: entitySet), let type = metadata.entityType(named: set.entityType)
        else { throw OfflineRowError("the back-end's metadata has no entity set \(entitySet)") }
        let key = metadata.key(of: type)
        guard !key.isEmpty else { throw OfflineRowError("\(type.qualifiedName) has no key") }
        keyProperties = key
    }

    /// The row of `entity`. An entity without one of its key properties is refused (never a row with a null key).
    public func row(for entity: ODataEntity) throws(OfflineRowError) -> OfflineRow {
        let body = Self.canonical(try body(of: entity))
        return OfflineRow(key: try key(of: entity), hash: Data(SHA256.hash(data: body)), body: body)
    }

    /// The key predicate of `entity` (V4 syntax, the same for every version of the back-end).
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
        return key.predicate(for: .v4)
    }

    private func body(of entity: ODataEntity) throws(OfflineRowError) -> JSONValue {
        var object = JSONObject()
        do {
            let writer = ODataPayloadWriter(version: .v4)
            var properties = JSONObject()
            for (name, value) in entity.properties { properties.append(key: name, value: try writer.json(for: value)) }
            object.append(key: "properties", value: .object(properties))
        } catch {
            throw OfflineRowError("an entity's properties cannot be written: \(error)")
        }
        if let etag = entity.etag { object.append(key: "etag", value: .string(etag)) }
        if let type = entity.type { object.append(key: "type", value: .string(type)) }
        if let etag = entity.mediaETag { object.append(key: "mediaETag", value: .string(etag)) }
        if let type = entity.mediaContentType { object.append(key: "mediaContentType", value: .string(type)) }
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
    public var message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}
