import Foundation
import SatchelText

/// A parsed answer whose properties can be given their type definitions afterwards: parse once, then type.
///
/// A Browser binding answer in succinct form names each property's id and value, not its type: read without the
/// type's definition, a value gets the type its JSON suggests (an id is a string, a datetime a number of
/// milliseconds). When the definitions arrive later, ``typed(by:)`` gives every property the type, cardinality
/// and names its definition has, converting the values (milliseconds become dates, strings ids), without reading
/// the body again. A property no definition names keeps what it has.
package protocol PropertyTyped {
    func typed(by lookup: (String) -> TypeDefinition?) throws -> Self
}

extension CMISObject: PropertyTyped {
    package func typed(by lookup: (String) -> TypeDefinition?) throws -> CMISObject {
        var copy = self
        let definitions = ([objectTypeId].compactMap { $0 } + secondaryObjectTypeIds).compactMap(lookup)
        if !definitions.isEmpty {
            copy.properties = Properties(
                try properties.all.map { property in
                    guard let definition = definitions.lazy.compactMap({ $0.propertyDefinition(id: property.id) }).first
                    else { return property }
                    return try property.typed(as: definition)
                }, lookupLike: properties)
        }
        if !relationships.isEmpty { copy.relationships = try relationships.map { try $0.typed(by: lookup) } }
        return copy
    }
}

extension CMISProperty {
    /// This property as `definition` describes it, its values converted to the definition's type.
    package func typed(as definition: PropertyDefinition) throws -> CMISProperty {
        if type == definition.propertyType, cardinality == definition.cardinality, localName == definition.localName,
            displayName == definition.displayName, queryName == definition.queryName
        {
            return self
        }
        return CMISProperty(
            definition: definition,
            values: try values.map { try $0.converted(to: definition.propertyType, property: id) })
    }
}

extension PropertyValue {
    /// The value as a value of `type`: the conversions from what a value without its definition is read as.
    /// Anything else is the server's error, as it would have been with the definition at hand.
    package func converted(to type: PropertyType, property: String) throws -> PropertyValue {
        if self.type == type { return self }
        switch (type, self) {
        case (.string, _): if let text = stringValue { return .string(text) }
        case (.id, _): if let text = stringValue { return .id(text) }
        case (.uri, _): if let text = stringValue { return .uri(text) }
        case (.html, _): if let text = stringValue { return .html(text) }
        case (.decimal, .integer(let value)): return .decimal(Decimal(value))
        case (.datetime, .integer(let milliseconds)):
            return .datetime(Date(timeIntervalSince1970: Double(milliseconds) / 1000))
        case (.datetime, .decimal(let milliseconds)):
            return .datetime(Date(timeIntervalSince1970: NSDecimalNumber(decimal: milliseconds).doubleValue / 1000))
        case (.datetime, _):
            if let text = stringValue, let date = ISO8601Timestamp.date(from: text) { return .datetime(date) }
        default: break
        }
        throw CMISError(
            .invalidResponse, "property \(property) is defined as \(type.rawValue) but has the value \(self)",
            path: "properties.\(property)")
    }
}

extension Array: PropertyTyped where Element: PropertyTyped {
    package func typed(by lookup: (String) -> TypeDefinition?) throws -> [Element] {
        try map { try $0.typed(by: lookup) }
    }
}

extension ObjectInFolder: PropertyTyped {
    package func typed(by lookup: (String) -> TypeDefinition?) throws -> ObjectInFolder {
        var copy = self
        copy.object = try object.typed(by: lookup)
        return copy
    }
}

extension ObjectInFolderList: PropertyTyped {
    package func typed(by lookup: (String) -> TypeDefinition?) throws -> ObjectInFolderList {
        var copy = self
        copy.objects = try objects.typed(by: lookup)
        return copy
    }
}

extension ObjectList: PropertyTyped {
    package func typed(by lookup: (String) -> TypeDefinition?) throws -> ObjectList {
        var copy = self
        copy.objects = try objects.typed(by: lookup)
        return copy
    }
}

extension ContainerNode: PropertyTyped {
    package func typed(by lookup: (String) -> TypeDefinition?) throws -> ContainerNode {
        ContainerNode(item: try item.typed(by: lookup), children: try children.typed(by: lookup))
    }
}

extension ObjectParent: PropertyTyped {
    package func typed(by lookup: (String) -> TypeDefinition?) throws -> ObjectParent {
        var copy = self
        copy.object = try object.typed(by: lookup)
        return copy
    }
}

extension ContentChanges: PropertyTyped {
    package func typed(by lookup: (String) -> TypeDefinition?) throws -> ContentChanges {
        var copy = self
        copy.objects = try objects.typed(by: lookup)
        return copy
    }
}

extension AtomPubEntry: PropertyTyped {
    package func typed(by lookup: (String) -> TypeDefinition?) throws -> AtomPubEntry {
        var copy = self
        copy.object = try object.typed(by: lookup)
        copy.children = try children.typed(by: lookup)
        return copy
    }
}

extension AtomPubFeed: PropertyTyped {
    package func typed(by lookup: (String) -> TypeDefinition?) throws -> AtomPubFeed {
        var copy = self
        copy.entries = try entries.typed(by: lookup)
        return copy
    }
}
