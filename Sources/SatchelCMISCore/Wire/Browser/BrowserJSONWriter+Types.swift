import Foundation
import SatchelJSON

extension BrowserJSONWriter {
    /// A type definition with its property definitions.
    public mutating func typeDefinition(_ type: TypeDefinition) {
        jsonObject { writer in
            writer.json.write(key: "id", type.id)
            writer.optional("localName", type.localName)
            writer.optional("localNamespace", type.localNamespace)
            writer.optional("displayName", type.displayName)
            writer.optional("queryName", type.queryName)
            writer.optional("description", type.description)
            writer.json.write(key: "baseId", type.baseTypeId.rawValue)
            writer.optional("parentId", type.parentTypeId)
            writer.optional("creatable", type.creatable)
            writer.optional("fileable", type.fileable)
            writer.optional("queryable", type.queryable)
            writer.optional("fulltextIndexed", type.fulltextIndexed)
            writer.optional("includedInSupertypeQuery", type.includedInSupertypeQuery)
            writer.optional("controllablePolicy", type.controllablePolicy)
            writer.optional("controllableACL", type.controllableACL)
            if let mutability = type.typeMutability {
                writer.key("typeMutability") { writer in
                    writer.jsonObject { writer in
                        writer.optional("create", mutability.create)
                        writer.optional("update", mutability.update)
                        writer.optional("delete", mutability.delete)
                    }
                }
            }
            writer.optional("versionable", type.versionable)
            writer.optional("contentStreamAllowed", type.contentStreamAllowed?.rawValue)
            if let sources = type.allowedSourceTypes { writer.strings("allowedSourceTypes", sources) }
            if let targets = type.allowedTargetTypes { writer.strings("allowedTargetTypes", targets) }
            writer.key("propertyDefinitions") { writer in
                writer.jsonObject { writer in
                    for definition in type.propertyDefinitions {
                        writer.key(definition.id) { $0.propertyDefinition(definition) }
                    }
                }
            }
            writer.extensions(type.extensions, excluding: Self.typeKeys)
        }
    }

    static let typeKeys: Set<String> = [
        "id", "localName", "localNamespace", "displayName", "queryName", "description", "baseId", "parentId",
        "creatable", "fileable", "queryable", "fulltextIndexed", "includedInSupertypeQuery", "controllablePolicy",
        "controllableACL", "typeMutability", "versionable", "contentStreamAllowed", "allowedSourceTypes",
        "allowedTargetTypes", "propertyDefinitions",
    ]

    mutating func propertyDefinition(_ definition: PropertyDefinition) {
        jsonObject { writer in
            writer.json.write(key: "id", definition.id)
            writer.optional("localName", definition.localName)
            writer.optional("localNamespace", definition.localNamespace)
            writer.optional("displayName", definition.displayName)
            writer.optional("queryName", definition.queryName)
            writer.optional("description", definition.description)
            writer.json.write(key: "propertyType", definition.propertyType.rawValue)
            writer.json.write(key: "cardinality", definition.cardinality.rawValue)
            writer.json.write(key: "updatability", definition.updatability.rawValue)
            writer.optional("inherited", definition.inherited)
            writer.optional("required", definition.required)
            writer.optional("queryable", definition.queryable)
            writer.optional("orderable", definition.orderable)
            writer.optional("openChoice", definition.openChoice)
            writer.optional("maxLength", definition.maxLength)
            if !definition.defaultValue.isEmpty {
                writer.json.writeKey("defaultValue")
                writer.values(definition.defaultValue, cardinality: definition.cardinality)
            }
            if !definition.choices.isEmpty {
                writer.key("choice") { $0.choices(definition.choices, depth: 0) }
            }
        }
    }

    mutating func choices(_ choices: [PropertyDefinition.Choice], depth: Int) {
        jsonArray { writer in
            for choice in choices {
                writer.jsonObject { writer in
                    writer.optional("displayName", choice.displayName)
                    writer.json.writeKey("value")
                    writer.values(choice.values, cardinality: .multi)
                    if !choice.children.isEmpty && depth < 32 {
                        writer.key("choice") { $0.choices(choice.children, depth: depth + 1) }
                    }
                }
            }
        }
    }

    /// getTypeChildren: `{"types":[…],"hasMoreItems":…,"numItems":…}`.
    public mutating func typeList(_ types: [TypeDefinition], hasMoreItems: Bool, numItems: Int?) {
        jsonObject { writer in
            writer.key("types") { writer in
                writer.jsonArray { writer in
                    for type in types { writer.typeDefinition(type) }
                }
            }
            writer.json.write(key: "hasMoreItems", hasMoreItems)
            if let numItems { writer.json.write(key: "numItems", numItems) }
        }
    }

    /// getTypeDescendants: `[{"type":…,"children":[…]}]`.
    public mutating func typeTree(_ nodes: [TypeTreeNode], depth: Int = 0) {
        jsonArray { writer in
            for node in nodes {
                writer.jsonObject { writer in
                    writer.key("type") { $0.typeDefinition(node.type) }
                    if depth < 64 {
                        writer.key("children") { $0.typeTree(node.children, depth: depth + 1) }
                    }
                }
            }
        }
    }
}
