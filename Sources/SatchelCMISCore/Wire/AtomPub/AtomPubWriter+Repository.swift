import Foundation
public import SatchelXML

extension AtomPubWriter {
    /// `cmisra:repositoryInfo`. With `omitNewTypeCapabilities`, `capabilityCreatablePropertyTypes` and
    /// `capabilityNewTypeSettableAttributes` are left out (some AtomPub clients fail on them).
    public static func repositoryInfo(
        _ info: RepositoryInfo, into writer: inout XMLWriter, omitNewTypeCapabilities: Bool = false
    ) {
        writer.start("repositoryInfo", namespace: cmisra)
        writer.element("repositoryId", namespace: cmis, text: info.id)
        writer.element("repositoryName", namespace: cmis, text: info.name)
        optional("repositoryDescription", info.description, into: &writer)
        optional("vendorName", info.vendorName, into: &writer)
        optional("productName", info.productName, into: &writer)
        optional("productVersion", info.productVersion, into: &writer)
        writer.element("rootFolderId", namespace: cmis, text: info.rootFolderId)
        optional("latestChangeLogToken", info.latestChangeLogToken, into: &writer)
        capabilities(info.capabilities, into: &writer, omitNewTypeCapabilities: omitNewTypeCapabilities)
        if let acl = info.aclCapabilities { aclCapabilities(acl, into: &writer) }
        optional("cmisVersionSupported", info.cmisVersionSupported, into: &writer)
        optional("thinClientURI", info.thinClientURI, into: &writer)
        optional("changesIncomplete", info.changesIncomplete.map { String($0) }, into: &writer)
        for base in info.changesOnType { writer.element("changesOnType", namespace: cmis, text: base.rawValue) }
        optional("principalAnonymous", info.principalIdAnonymous, into: &writer)
        optional("principalAnyone", info.principalIdAnyone, into: &writer)
        for feature in info.extendedFeatures {
            writer.start("extendedFeatures", namespace: cmis)
            writer.element("id", namespace: cmis, text: feature.id)
            optional("url", feature.url, into: &writer)
            optional("commonName", feature.commonName, into: &writer)
            optional("versionLabel", feature.versionLabel, into: &writer)
            optional("description", feature.description, into: &writer)
            writer.end()
        }
        extensions(info.extensions, into: &writer)
        writer.end()
    }

    static func capabilities(
        _ caps: RepositoryCapabilities, into writer: inout XMLWriter, omitNewTypeCapabilities: Bool
    ) {
        writer.start("capabilities", namespace: cmis)
        let values: [(String, String?)] = [
            ("capabilityACL", caps.acl?.rawValue),
            ("capabilityAllVersionsSearchable", caps.allVersionsSearchable.map { String($0) }),
            ("capabilityChanges", caps.changes?.rawValue),
            ("capabilityContentStreamUpdatability", caps.contentStreamUpdatability?.rawValue),
            ("capabilityGetDescendants", caps.getDescendants.map { String($0) }),
            ("capabilityGetFolderTree", caps.getFolderTree.map { String($0) }),
            ("capabilityOrderBy", caps.orderBy?.rawValue),
            ("capabilityMultifiling", caps.multifiling.map { String($0) }),
            ("capabilityPWCSearchable", caps.pwcSearchable.map { String($0) }),
            ("capabilityPWCUpdatable", caps.pwcUpdatable.map { String($0) }),
            ("capabilityQuery", caps.query?.rawValue),
            ("capabilityRenditions", caps.renditions?.rawValue),
            ("capabilityUnfiling", caps.unfiling.map { String($0) }),
            ("capabilityVersionSpecificFiling", caps.versionSpecificFiling.map { String($0) }),
            ("capabilityJoin", caps.join?.rawValue),
        ]
        for (name, value) in values { optional(name, value, into: &writer) }
        if !omitNewTypeCapabilities {
            if let creatable = caps.creatablePropertyTypes {
                writer.start("capabilityCreatablePropertyTypes", namespace: cmis)
                for type in creatable { writer.element("canCreate", namespace: cmis, text: type.rawValue) }
                writer.end()
            }
            if let settable = caps.newTypeSettableAttributes {
                writer.start("capabilityNewTypeSettableAttributes", namespace: cmis)
                let flags: [(String, Bool?)] = [
                    ("id", settable.id), ("localName", settable.localName),
                    ("localNamespace", settable.localNamespace), ("displayName", settable.displayName),
                    ("queryName", settable.queryName), ("description", settable.description),
                    ("creatable", settable.creatable), ("fileable", settable.fileable),
                    ("queryable", settable.queryable), ("fulltextIndexed", settable.fulltextIndexed),
                    ("includedInSupertypeQuery", settable.includedInSupertypeQuery),
                    ("controllablePolicy", settable.controllablePolicy),
                    ("controllableACL", settable.controllableACL),
                ]
                for (name, value) in flags { optional(name, value.map { String($0) }, into: &writer) }
                writer.end()
            }
        }
        writer.end()
    }

    static func aclCapabilities(_ acl: ACLCapabilities, into writer: inout XMLWriter) {
        writer.start("aclCapability", namespace: cmis)
        optional("supportedPermissions", acl.supportedPermissions?.rawValue, into: &writer)
        optional("propagation", acl.propagation?.rawValue, into: &writer)
        for permission in acl.permissions {
            writer.start("permissions", namespace: cmis)
            writer.element("permission", namespace: cmis, text: permission.permission)
            optional("description", permission.description, into: &writer)
            writer.end()
        }
        for mapping in acl.permissionMapping {
            writer.start("mapping", namespace: cmis)
            writer.element("key", namespace: cmis, text: mapping.key)
            for permission in mapping.permissions { writer.element("permission", namespace: cmis, text: permission) }
            writer.end()
        }
        writer.end()
    }

    /// `cmisra:type` with every flag and property definition, and the `xsi:type` of its base type
    /// (`cmis:cmisTypeDocumentDefinitionType`, …): clients that read type definitions by schema type need it.
    public static func typeDefinition(_ type: TypeDefinition, into writer: inout XMLWriter) {
        writer.start(
            "type", namespace: cmisra,
            attributes: [
                ("xmlns:xsi", "http://www.w3.org/2001/XMLSchema-instance"),
                ("xmlns:cmis", cmis), ("xsi:type", "cmis:" + schemaType(of: type.baseTypeId)),
            ])
        writer.element("id", namespace: cmis, text: type.id)
        optional("localName", type.localName, into: &writer)
        optional("localNamespace", type.localNamespace, into: &writer)
        optional("displayName", type.displayName, into: &writer)
        optional("queryName", type.queryName, into: &writer)
        optional("description", type.description, into: &writer)
        writer.element("baseId", namespace: cmis, text: type.baseTypeId.rawValue)
        optional("parentId", type.parentTypeId, into: &writer)
        let flags: [(String, Bool?)] = [
            ("creatable", type.creatable), ("fileable", type.fileable), ("queryable", type.queryable),
            ("fulltextIndexed", type.fulltextIndexed), ("includedInSupertypeQuery", type.includedInSupertypeQuery),
            ("controllablePolicy", type.controllablePolicy), ("controllableACL", type.controllableACL),
        ]
        for (name, value) in flags { optional(name, value.map { String($0) }, into: &writer) }
        if let mutability = type.typeMutability {
            writer.start("typeMutability", namespace: cmis)
            optional("create", mutability.create.map { String($0) }, into: &writer)
            optional("update", mutability.update.map { String($0) }, into: &writer)
            optional("delete", mutability.delete.map { String($0) }, into: &writer)
            writer.end()
        }
        for definition in type.propertyDefinitions { propertyDefinition(definition, into: &writer) }
        optional("versionable", type.versionable.map { String($0) }, into: &writer)
        optional("contentStreamAllowed", type.contentStreamAllowed?.rawValue, into: &writer)
        for id in type.allowedSourceTypes ?? [] { writer.element("allowedSourceTypes", namespace: cmis, text: id) }
        for id in type.allowedTargetTypes ?? [] { writer.element("allowedTargetTypes", namespace: cmis, text: id) }
        extensions(type.extensions, into: &writer)
        writer.end()
    }

    static func propertyDefinition(_ definition: PropertyDefinition, into writer: inout XMLWriter) {
        let element = elementName(definition.propertyType) + "Definition"
        writer.start(element, namespace: cmis)
        writer.element("id", namespace: cmis, text: definition.id)
        optional("localName", definition.localName, into: &writer)
        optional("localNamespace", definition.localNamespace, into: &writer)
        optional("displayName", definition.displayName, into: &writer)
        optional("queryName", definition.queryName, into: &writer)
        optional("description", definition.description, into: &writer)
        writer.element("propertyType", namespace: cmis, text: definition.propertyType.rawValue)
        writer.element("cardinality", namespace: cmis, text: definition.cardinality.rawValue)
        writer.element("updatability", namespace: cmis, text: definition.updatability.rawValue)
        let flags: [(String, Bool?)] = [
            ("inherited", definition.inherited), ("required", definition.required),
            ("queryable", definition.queryable), ("orderable", definition.orderable),
            ("openChoice", definition.openChoice),
        ]
        for (name, value) in flags { optional(name, value.map { String($0) }, into: &writer) }
        if !definition.defaultValue.isEmpty {
            writer.start("defaultValue", namespace: cmis, attributes: [("propertyDefinitionId", definition.id)])
            for value in definition.defaultValue { writer.element("value", namespace: cmis, text: lexical(value)) }
            writer.end()
        }
        optional("maxLength", definition.maxLength.map { String($0) }, into: &writer)
        for choice in definition.choices { self.choice(choice, into: &writer, depth: 0) }
        writer.end()
    }

    static func choice(_ choice: PropertyDefinition.Choice, into writer: inout XMLWriter, depth: Int) {
        guard depth < 64 else { return }
        writer.start("choice", namespace: cmis, attributes: choice.displayName.map { [("displayName", $0)] } ?? [])
        for value in choice.values { writer.element("value", namespace: cmis, text: lexical(value)) }
        for child in choice.children { self.choice(child, into: &writer, depth: depth + 1) }
        writer.end()
    }

    package static func optional(_ name: String, _ value: String?, into writer: inout XMLWriter) {
        if let value { writer.element(name, namespace: cmis, text: value) }
    }

    /// The CMIS schema type of a base type's definitions.
    static func schemaType(of base: BaseTypeId) -> String {
        switch base {
        case .document: "cmisTypeDocumentDefinitionType"
        case .folder: "cmisTypeFolderDefinitionType"
        case .relationship: "cmisTypeRelationshipDefinitionType"
        case .policy: "cmisTypePolicyDefinitionType"
        case .item: "cmisTypeItemDefinitionType"
        case .secondary: "cmisTypeSecondaryDefinitionType"
        }
    }
}
