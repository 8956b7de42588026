import Foundation
import SatchelCMISCore

/// The object types of a repository, built once and shared: the six CMIS base types with every property
/// definition CMIS 1.1 gives them. Lookups are dictionary reads, so rendering an object never costs a type query.
struct TypeRegistry: Sendable {
    /// The types by id.
    let types: [String: TypeDefinition]
    /// The property definitions of each type, by property id.
    let propertyDefinitions: [String: [String: PropertyDefinition]]
    /// Child type ids of each type id (base types under the empty key "").
    let childIds: [String: [String]]
    /// Every property query name any type defines (what a filter may name).
    let allQueryNames: Set<String>

    /// The registry every repository uses: the base types and the Nuxeo document types below them.
    static let standard = TypeRegistry(types: BaseTypes.all + DocumentTypes.all)

    init(types: [TypeDefinition]) {
        var byId: [String: TypeDefinition] = [:]
        var definitions: [String: [String: PropertyDefinition]] = [:]
        var children: [String: [String]] = [:]
        var names: Set<String> = []
        for type in types {
            byId[type.id] = type
            definitions[type.id] = Dictionary(type.propertyDefinitions.map { ($0.id, $0) }) { first, _ in first }
            children[type.parentTypeId ?? "", default: []].append(type.id)
            for definition in type.propertyDefinitions { names.insert(definition.queryName ?? definition.id) }
        }
        self.types = byId
        propertyDefinitions = definitions
        childIds = children
        allQueryNames = names
    }

    func type(_ id: String) -> TypeDefinition? { types[id] }

    func definition(typeId: String, propertyId: String) -> PropertyDefinition? {
        propertyDefinitions[typeId]?[propertyId]
    }

    /// `typeId` and every type below it.
    func selfAndDescendants(_ typeId: String) -> [String] {
        var result = [typeId]
        var index = 0
        while index < result.count {
            result += childIds[result[index]] ?? []
            index += 1
        }
        return result
    }

    /// Whether `typeId` is `ancestorId` or derives from it.
    func isSubtype(_ typeId: String, of ancestorId: String) -> Bool {
        var current: String? = typeId
        var steps = 0
        while let id = current, steps < 64 {
            if id == ancestorId { return true }
            current = types[id]?.parentTypeId
            steps += 1
        }
        return false
    }
}

/// The CMIS 1.1 base types (part I, 2.1.4 – 2.1.9).
enum BaseTypes {
    static let all: [TypeDefinition] = [document, folder, relationship, policy, item, secondary]

    /// A property definition of its own (not inherited) whose query name is its id; a CMIS property's local name
    /// is its id after `cmis:`, in the CMIS namespace, unless `localName` and `namespace` say otherwise.
    static func property(
        _ id: String, _ type: PropertyType, _ updatability: Updatability, multi: Bool = false,
        required: Bool = false, orderable: Bool = false, queryable: Bool = true, display: String,
        description: String? = nil, localName: String? = nil,
        namespace: String = "http://docs.oasis-open.org/ns/cmis/core/200908/"
    ) -> PropertyDefinition {
        var definition = PropertyDefinition(
            id: id, propertyType: type, cardinality: multi ? .multi : .single, updatability: updatability)
        definition.localName = localName ?? String(id.dropFirst(5))
        definition.localNamespace = namespace
        definition.displayName = display
        definition.queryName = id
        definition.description = description ?? display
        definition.inherited = false
        definition.required = required
        definition.queryable = queryable
        definition.orderable = orderable
        definition.openChoice = false
        return definition
    }

    /// The properties every object has.
    static func common(nameRequired: Bool) -> [PropertyDefinition] {
        [
            property("cmis:name", .string, .readwrite, required: nameRequired, orderable: true, display: "Name"),
            property("cmis:description", .string, .readwrite, display: "Description"),
            property("cmis:objectId", .id, .readonly, orderable: false, display: "Object Id"),
            property("cmis:baseTypeId", .id, .readonly, orderable: true, display: "Base Type Id"),
            property("cmis:objectTypeId", .id, .oncreate, required: true, orderable: true, display: "Type Id"),
            property("cmis:secondaryObjectTypeIds", .id, .readwrite, multi: true, display: "Secondary Type Ids"),
            property("cmis:createdBy", .string, .readonly, orderable: true, display: "Created By"),
            property("cmis:creationDate", .datetime, .readonly, orderable: true, display: "Creation Date"),
            property("cmis:lastModifiedBy", .string, .readonly, orderable: true, display: "Modified By"),
            property(
                "cmis:lastModificationDate", .datetime, .readonly, orderable: true, display: "Modification Date"),
            property("cmis:changeToken", .string, .readonly, queryable: false, display: "Change Token"),
        ]
    }

    static func base(
        _ id: BaseTypeId, display: String, description: String, creatable: Bool = true, fileable: Bool,
        properties: [PropertyDefinition]
    ) -> TypeDefinition {
        var type = TypeDefinition(id: id.rawValue, baseTypeId: id, propertyDefinitions: properties)
        type.localName = String(id.rawValue.dropFirst(5))
        type.localNamespace = "http://docs.oasis-open.org/ns/cmis/core/200908/"
        type.displayName = display
        type.queryName = id.rawValue
        type.description = description
        type.creatable = creatable
        type.fileable = fileable
        type.queryable = true
        type.fulltextIndexed = id == .document || id == .folder
        type.includedInSupertypeQuery = true
        type.controllablePolicy = id != .secondary
        type.controllableACL = id != .secondary
        type.typeMutability = TypeMutability(create: false, update: false, delete: false)
        return type
    }

    static let document: TypeDefinition = {
        var type = base(
            .document, display: "Document", description: "A file: content stream, versions, properties",
            fileable: true,
            properties: common(nameRequired: true) + [
                property("cmis:isImmutable", .boolean, .readonly, display: "Is Immutable"),
                property("cmis:isLatestVersion", .boolean, .readonly, display: "Is Latest Version"),
                property("cmis:isMajorVersion", .boolean, .readonly, display: "Is Major Version"),
                property("cmis:isLatestMajorVersion", .boolean, .readonly, display: "Is Latest Major Version"),
                property("cmis:isPrivateWorkingCopy", .boolean, .readonly, display: "Is Private Working Copy"),
                property("cmis:versionLabel", .string, .readonly, orderable: true, display: "Version Label"),
                property("cmis:versionSeriesId", .id, .readonly, display: "Version Series Id"),
                property(
                    "cmis:isVersionSeriesCheckedOut", .boolean, .readonly, display: "Is Version Series Checked Out"),
                property(
                    "cmis:versionSeriesCheckedOutBy", .string, .readonly, display: "Version Series Checked Out By"),
                property("cmis:versionSeriesCheckedOutId", .id, .readonly, display: "Version Series Checked Out Id"),
                property("cmis:checkinComment", .string, .readonly, display: "Checkin Comment"),
                property(
                    "cmis:contentStreamLength", .integer, .readonly, orderable: true, display: "Content Length"),
                property(
                    "cmis:contentStreamMimeType", .string, .readonly, orderable: true, display: "MIME Type"),
                property("cmis:contentStreamFileName", .string, .readonly, orderable: true, display: "File Name"),
                property("cmis:contentStreamId", .id, .readonly, display: "Content Stream Id"),
            ])
        type.versionable = true
        type.contentStreamAllowed = .allowed
        return type
    }()

    static let folder: TypeDefinition = base(
        .folder, display: "Folder", description: "A container of documents, folders, items and policies",
        fileable: true,
        properties: common(nameRequired: true) + [
            property("cmis:parentId", .id, .readonly, display: "Parent Id"),
            property("cmis:path", .string, .readonly, display: "Path"),
            property(
                "cmis:allowedChildObjectTypeIds", .id, .readonly, multi: true, queryable: false,
                display: "Allowed Child Types"),
        ])

    static let relationship: TypeDefinition = {
        var type = base(
            .relationship, display: "Relationship", description: "A directed link from a source to a target object",
            fileable: false,
            properties: common(nameRequired: false) + [
                property("cmis:sourceId", .id, .oncreate, required: true, display: "Source Id"),
                property("cmis:targetId", .id, .oncreate, required: true, display: "Target Id"),
            ])
        type.allowedSourceTypes = []
        type.allowedTargetTypes = []
        return type
    }()

    static let policy: TypeDefinition = base(
        .policy, display: "Policy", description: "A rule applied to other objects", fileable: true,
        properties: common(nameRequired: true) + [
            property("cmis:policyText", .string, .readwrite, display: "Policy Text")
        ])

    static let item: TypeDefinition = base(
        .item, display: "Item", description: "An object with properties and no content", fileable: true,
        properties: common(nameRequired: true))

    static let secondary: TypeDefinition = {
        var type = base(
            .secondary, display: "Secondary Type", description: "Properties added to objects of other types",
            creatable: false, fileable: false, properties: [])
        type.controllablePolicy = false
        type.controllableACL = false
        type.fulltextIndexed = false
        return type
    }()
}
