public import Foundation
import SatchelJSON

extension BrowserParser {
    /// A type definition (`cmisselector=typeDefinition`).
    public static func typeDefinition(_ data: Data) throws -> TypeDefinition {
        try typeDefinition(from: BrowserJSON.parse(data))
    }

    /// A page of type definitions (`cmisselector=typeChildren`): `{types:[…], hasMoreItems, numItems}`.
    public static func typeDefinitionList(_ data: Data) throws -> TypeDefinitionList {
        let json = try BrowserJSON.parse(data)
        return TypeDefinitionList(
            types: try json.require("types").array().map(typeDefinition),
            hasMoreItems: try json.bool("hasMoreItems") ?? false,
            numItems: try json.int64("numItems"))
    }

    /// The type tree (`cmisselector=typeDescendants`): `[{type:{…}, children:[…]}]`.
    public static func typeDescendants(_ data: Data) throws -> [TypeDefinitionContainer] {
        try BrowserJSON.parse(data).array().map(typeContainer)
    }

    static func typeContainer(from json: BrowserJSON) throws -> TypeDefinitionContainer {
        TypeDefinitionContainer(
            type: try typeDefinition(from: json.require("type")),
            children: try json["children"]?.array().map(typeContainer) ?? [])
    }

    static let typeDefinitionKeys: Set<String> = [
        "id", "localName", "localNamespace", "displayName", "queryName", "description", "baseId", "parentId",
        "creatable", "fileable", "queryable", "fulltextIndexed", "includedInSupertypeQuery", "controllablePolicy",
        "controllableACL", "typeMutability", "versionable", "contentStreamAllowed", "allowedSourceTypes",
        "allowedTargetTypes", "propertyDefinitions",
    ]

    package static func typeDefinition(from json: BrowserJSON) throws -> TypeDefinition {
        let baseJSON = try json.require("baseId")
        guard let baseTypeId = BaseTypeId(rawValue: try baseJSON.string()) else {
            throw CMISError(.invalidResponse, "unknown base type \(try baseJSON.string())", path: baseJSON.path)
        }
        var type = TypeDefinition(
            id: try json.require("id").string(), baseTypeId: baseTypeId, parentTypeId: try json.string("parentId"))
        type.localName = try json.string("localName")
        type.localNamespace = try json.string("localNamespace")
        type.displayName = try json.string("displayName")
        type.queryName = try json.string("queryName")
        type.description = try json.string("description")
        type.creatable = try json.bool("creatable")
        type.fileable = try json.bool("fileable")
        type.queryable = try json.bool("queryable")
        type.fulltextIndexed = try json.bool("fulltextIndexed")
        type.includedInSupertypeQuery = try json.bool("includedInSupertypeQuery")
        type.controllablePolicy = try json.bool("controllablePolicy")
        type.controllableACL = try json.bool("controllableACL")
        if let mutability = json["typeMutability"] {
            type.typeMutability = TypeMutability(
                create: try mutability.bool("create"), update: try mutability.bool("update"),
                delete: try mutability.bool("delete"))
        }
        type.versionable = try json.bool("versionable")
        type.contentStreamAllowed = try json.capability("contentStreamAllowed")
        type.allowedSourceTypes = try json.strings("allowedSourceTypes")
        type.allowedTargetTypes = try json.strings("allowedTargetTypes")
        type.propertyDefinitions =
            try json["propertyDefinitions"]?.members().map { try propertyDefinition(from: $1) }
            ?? []
        type.extensions = try extensions(of: json, excluding: typeDefinitionKeys)
        return type
    }

    static func propertyDefinition(from json: BrowserJSON) throws -> PropertyDefinition {
        let propertyType = try enumValue(PropertyType.self, json.require("propertyType"))
        let cardinality = try enumValue(Cardinality.self, json.require("cardinality"))
        var definition = PropertyDefinition(
            id: try json.require("id").string(), propertyType: propertyType, cardinality: cardinality,
            updatability: try json["updatability"].map { try enumValue(Updatability.self, $0) } ?? .readonly)
        definition.localName = try json.string("localName")
        definition.localNamespace = try json.string("localNamespace")
        definition.displayName = try json.string("displayName")
        definition.queryName = try json.string("queryName")
        definition.description = try json.string("description")
        definition.inherited = try json.bool("inherited")
        definition.required = try json.bool("required")
        definition.queryable = try json.bool("queryable")
        definition.orderable = try json.bool("orderable")
        definition.openChoice = try json.bool("openChoice")
        definition.maxLength = try json.int64("maxLength")
        if let defaultValue = json["defaultValue"] {
            definition.defaultValue = try propertyValues(defaultValue, type: propertyType)
        }
        definition.choices =
            try json["choice"]?.array().map { try choice(from: $0, type: propertyType, depth: 0) } ?? []
        return definition
    }

    static func choice(from json: BrowserJSON, type: PropertyType, depth: Int) throws -> PropertyDefinition.Choice {
        guard depth < 64 else { throw CMISError(.invalidResponse, "choices nest too deeply", path: json.path) }
        return PropertyDefinition.Choice(
            displayName: try json.string("displayName"),
            values: try json["value"].map { try propertyValues($0, type: type) } ?? [],
            children: try json["choice"]?.array().map { try choice(from: $0, type: type, depth: depth + 1) } ?? [])
    }

    static func enumValue<Value: RawRepresentable>(_: Value.Type, _ json: BrowserJSON) throws -> Value
    where Value.RawValue == String {
        let text = try json.string()
        guard let value = Value(rawValue: text) else {
            throw CMISError(.invalidResponse, "unexpected value \"\(text)\"", path: json.path)
        }
        return value
    }
}
