public import Foundation
package import SatchelXML

extension AtomPubParser {
    /// A type entry (`atom:entry` with `cmisra:type`).
    public static func typeDefinition(_ data: Data) throws -> TypeDefinition {
        let element = try root(data, expecting: [("entry", atom)])
        return try typeDefinition(fromEntry: element, path: "/atom:entry")
    }

    /// A types feed (type children).
    public static func typeDefinitionList(_ data: Data) throws -> TypeDefinitionList {
        let feed = try root(data, expecting: [("feed", atom)])
        return TypeDefinitionList(
            types: try feed.children("entry", namespace: atom).enumerated().map { index, entry in
                try typeDefinition(fromEntry: entry, path: "/atom:feed/atom:entry[\(index + 1)]")
            },
            hasMoreItems: feed.children("link", namespace: atom).contains { $0.attribute("rel") == "next" },
            numItems: try int64(feed, "numItems", cmisra, path: "/atom:feed"))
    }

    package static func typeDefinition(fromEntry entry: XElement, path: String) throws -> TypeDefinition {
        guard let element = entry.child("type", namespace: cmisra) else { throw missing("cmisra:type", in: path) }
        return try typeDefinition(from: element, path: path + "/cmisra:type")
    }

    package static func typeDefinition(from element: XElement, path: String) throws -> TypeDefinition {
        guard let id = text(element, "id") else { throw missing("cmis:id", in: path) }
        guard let base = text(element, "baseId") else { throw missing("cmis:baseId", in: path) }
        guard let baseTypeId = BaseTypeId(rawValue: base) else {
            throw CMISError(.invalidResponse, "unknown base type \(base)", path: path + "/cmis:baseId")
        }
        var type = TypeDefinition(id: id, baseTypeId: baseTypeId, parentTypeId: text(element, "parentId"))
        type.localName = text(element, "localName")
        type.localNamespace = text(element, "localNamespace")
        type.displayName = text(element, "displayName")
        type.queryName = text(element, "queryName")
        type.description = text(element, "description")
        type.creatable = try bool(element, "creatable", path: path)
        type.fileable = try bool(element, "fileable", path: path)
        type.queryable = try bool(element, "queryable", path: path)
        type.fulltextIndexed = try bool(element, "fulltextIndexed", path: path)
        type.includedInSupertypeQuery = try bool(element, "includedInSupertypeQuery", path: path)
        type.controllablePolicy = try bool(element, "controllablePolicy", path: path)
        type.controllableACL = try bool(element, "controllableACL", path: path)
        if let mutability = element.child("typeMutability", namespace: cmis) {
            let mutabilityPath = path + "/cmis:typeMutability"
            type.typeMutability = TypeMutability(
                create: try bool(mutability, "create", path: mutabilityPath),
                update: try bool(mutability, "update", path: mutabilityPath),
                delete: try bool(mutability, "delete", path: mutabilityPath))
        }
        type.versionable = try bool(element, "versionable", path: path)
        type.contentStreamAllowed = capability(element, "contentStreamAllowed")
        if element.child("allowedSourceTypes", namespace: cmis) != nil {
            type.allowedSourceTypes = texts(element, "allowedSourceTypes")
        }
        if element.child("allowedTargetTypes", namespace: cmis) != nil {
            type.allowedTargetTypes = texts(element, "allowedTargetTypes")
        }
        type.propertyDefinitions = try element.children.enumerated().compactMap { index, child in
            guard child.namespace == cmis, child.name.hasPrefix("property"), child.name.hasSuffix("Definition") else {
                return nil
            }
            return try propertyDefinition(from: child, path: path + "/cmis:\(child.name)[\(index + 1)]")
        }
        type.extensions = extensions(of: element)
        return type
    }

    static func propertyDefinition(from element: XElement, path: String) throws -> PropertyDefinition {
        guard let id = text(element, "id") else { throw missing("cmis:id", in: path) }
        guard let typeText = text(element, "propertyType") else { throw missing("cmis:propertyType", in: path) }
        let propertyType = try enumValue(PropertyType.self, typeText, path: path + "/cmis:propertyType")
        guard let cardinalityText = text(element, "cardinality") else { throw missing("cmis:cardinality", in: path) }
        var definition = PropertyDefinition(
            id: id, propertyType: propertyType,
            cardinality: try enumValue(Cardinality.self, cardinalityText, path: path + "/cmis:cardinality"),
            updatability: try text(element, "updatability").map {
                try enumValue(Updatability.self, $0, path: path + "/cmis:updatability")
            } ?? .readonly)
        definition.localName = text(element, "localName")
        definition.localNamespace = text(element, "localNamespace")
        definition.displayName = text(element, "displayName")
        definition.queryName = text(element, "queryName")
        definition.description = text(element, "description")
        definition.inherited = try bool(element, "inherited", path: path)
        definition.required = try bool(element, "required", path: path)
        definition.queryable = try bool(element, "queryable", path: path)
        definition.orderable = try bool(element, "orderable", path: path)
        definition.openChoice = try bool(element, "openChoice", path: path)
        definition.maxLength = try int64(element, "maxLength", path: path)
        if let defaultValue = element.child("defaultValue", namespace: cmis) {
            definition.defaultValue = try texts(defaultValue, "value").map {
                try propertyValue($0, type: propertyType, path: path + "/cmis:defaultValue")
            }
        }
        definition.choices = try element.children("choice", namespace: cmis).map {
            try choice(from: $0, type: propertyType, path: path + "/cmis:choice", depth: 0)
        }
        return definition
    }

    static func choice(
        from element: XElement, type: PropertyType, path: String, depth: Int
    ) throws -> PropertyDefinition.Choice {
        guard depth < 64 else { throw CMISError(.invalidResponse, "choices nest too deeply", path: path) }
        return PropertyDefinition.Choice(
            displayName: element.attribute("displayName"),
            values: try texts(element, "value").map { try propertyValue($0, type: type, path: path) },
            children: try element.children("choice", namespace: cmis).map {
                try choice(from: $0, type: type, path: path + "/cmis:choice", depth: depth + 1)
            })
    }
}
