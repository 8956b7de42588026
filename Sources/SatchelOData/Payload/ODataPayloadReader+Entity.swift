import Foundation
public import SatchelJSON

extension ODataPayloadReader {
    /// One entity object of either version.
    public func entity(
        from json: JSONValue, type: CSDLEntityType? = nil, at location: String = "$"
    ) throws -> ODataEntity {
        guard let object = json.objectValue else {
            throw Self.shape("expected an entity object, found \(json.kind)", at: location)
        }
        var entity = ODataEntity()
        var type = type
        if version == .v2 {
            if let meta = object["__metadata"] {
                entity.type = meta["type"]?.stringValue
                entity.id = meta["uri"]?.stringValue ?? meta["id"]?.stringValue
                entity.editLink = meta["uri"]?.stringValue
                entity.etag = meta["etag"]?.stringValue
                entity.mediaReadLink = meta["media_src"]?.stringValue
                entity.mediaEditLink = meta["edit_media"]?.stringValue
                entity.mediaContentType = meta["content_type"]?.stringValue
                entity.mediaETag = meta["media_etag"]?.stringValue
                // SAP Gateway delta responses mark a deleted entry inline: `"__metadata": {"deleted": true, …}`.
                if meta["deleted"]?.boolValue == true { entity.removed = ODataEntity.Removal(reason: "deleted") }
            }
        } else {
            readV4Annotations(object, into: &entity)
        }
        if let name = entity.type, let metadata, let derived = metadata.entityType(named: name) { type = derived }
        let properties = type.map { metadata?.allProperties(of: $0) ?? $0.properties } ?? []
        let navigations = type.map { metadata?.allNavigationProperties(of: $0) ?? $0.navigationProperties } ?? []
        for (key, value) in object {
            if version == .v2 && key == "__metadata" { continue }
            // (A byte search: `String.contains(_:)` with a string goes through Foundation's slow path.)
            if version == .v4 && key.utf8.contains(UInt8(ascii: "@")) { continue }
            let here = location + "." + key
            if let navigation = navigations.first(where: { $0.name == key }) {
                if let link = value["__deferred"]?["uri"]?.stringValue {
                    entity.navigationLinks[key] = link
                } else {
                    entity[key] = try expanded(value, navigation: navigation, at: here)
                }
            } else if let property = properties.first(where: { $0.name == key }) {
                entity[key] = try self.value(from: value, type: property.type, at: here)
            } else if version == .v2, let link = value["__deferred"]?["uri"]?.stringValue {
                entity.navigationLinks[key] = link
            } else {
                entity[key] = try self.value(from: value, type: nil, at: here)
            }
        }
        return entity
    }

    private func readV4Annotations(_ object: JSONObject, into entity: inout ODataEntity) {
        for (key, value) in object {
            guard let at = key.utf8.firstIndex(of: UInt8(ascii: "@")) else { continue }
            let target = String(key[..<at])
            var term = String(key[key.index(after: at)...])
            if term.hasPrefix("odata.") { term.removeFirst(6) }
            if !target.isEmpty {
                if term == "navigationLink", let link = value.stringValue {
                    entity.navigationLinks[target] = link
                } else {
                    entity.annotations[key] = value
                }
                continue
            }
            switch term {
            case "id": entity.id = value.stringValue
            case "etag": entity.etag = value.stringValue
            case "type": entity.type = value.stringValue.map { $0.hasPrefix("#") ? String($0.dropFirst()) : $0 }
            case "editLink": entity.editLink = value.stringValue
            case "readLink": entity.readLink = value.stringValue
            case "mediaReadLink": entity.mediaReadLink = value.stringValue
            case "mediaEditLink": entity.mediaEditLink = value.stringValue
            case "mediaContentType": entity.mediaContentType = value.stringValue
            case "mediaEtag": entity.mediaETag = value.stringValue
            case "removed": entity.removed = ODataEntity.Removal(reason: value["reason"]?.stringValue)
            case "context":
                // V4.0 delta: a deleted entity is an object with context `…/$deletedEntity`, `id` and `reason`.
                if let context = value.stringValue, context.hasSuffix("$deletedEntity") {
                    entity.removed = ODataEntity.Removal(reason: object["reason"]?.stringValue)
                    entity.id = object["id"]?.stringValue
                } else {
                    entity.annotations[key] = value
                }
            default: entity.annotations[key] = value
            }
        }
        if let type = entity.type, let metadata { entity.type = metadata.resolve(type) }
    }

    private func expanded(
        _ value: JSONValue, navigation: CSDLNavigationProperty, at location: String
    ) throws -> ODataValue {
        if value.isNull { return .null }
        let target = metadata?.entityType(named: navigation.type.name)
        if let array = value.arrayValue ?? value["results"]?.arrayValue {
            return .entities(
                try array.enumerated().map { try entity(from: $1, type: target, at: location + "[\($0)]") })
        }
        return .entity(try entity(from: value, type: target, at: location))
    }
}
