import SatchelXML

extension EDMXParser {
    mutating func parseSchema(_ element: XElement) -> CSDLSchema? {
        guard let namespace = element.attribute("Namespace") else {
            note(.warning, "a Schema without Namespace was skipped", at: "/Edmx/DataServices")
            return nil
        }
        let here = "Schema(\(namespace))"
        var schema = CSDLSchema(namespace: namespace, alias: element.attribute("Alias"))
        schema.annotations = annotations(of: element, at: here)
        for child in element.children {
            switch child.name {
            case "EntityType":
                if let type = parseEntityType(child, namespace: namespace, at: here) { schema.entityTypes.append(type) }
            case "ComplexType":
                if let type = parseComplexType(child, namespace: namespace, at: here) {
                    schema.complexTypes.append(type)
                }
            case "EnumType":
                if let type = parseEnumType(child, namespace: namespace, at: here) { schema.enumTypes.append(type) }
            case "TypeDefinition":
                if let name = child.attribute("Name"), let underlying = child.attribute("UnderlyingType") {
                    var type = facets(child, type: CSDLTypeReference(parsing: resolve(underlying)))
                    type.nullable = true
                    schema.typeDefinitions.append(
                        CSDLTypeDefinition(
                            name: name, namespace: namespace, underlyingType: type,
                            annotations: annotations(of: child, at: here + "/TypeDefinition(\(name))")))
                }
            case "Association":
                if let association = parseAssociation(child, namespace: namespace, at: here) {
                    schema.associations.append(association)
                }
            case "Function", "Action":
                if let operation = parseOperation(child, namespace: namespace, at: here) {
                    schema.operations.append(operation)
                }
            case "EntityContainer":
                schema.entityContainers.append(parseContainer(child, namespace: namespace, at: here))
            case "Annotations":
                if let target = child.attribute("Target") {
                    schema.annotationGroups.append(
                        CSDLAnnotationGroup(
                            target: resolve(target), qualifier: child.attribute("Qualifier"),
                            annotations: annotations(of: child, at: here + "/Annotations(\(target))")))
                }
            case "Annotation", "Documentation":
                break  // read by annotations(of:at:)
            case "Term":
                note(.note, "term definition \(child.attribute("Name") ?? "?") not modelled", at: here)
            default:
                note(.note, "unsupported element <\(child.name)> skipped", at: here)
            }
        }
        return schema
    }

    mutating func parseEntityType(_ element: XElement, namespace: String, at parent: String) -> CSDLEntityType? {
        guard let name = element.attribute("Name") else {
            note(.warning, "an EntityType without Name was skipped", at: parent)
            return nil
        }
        let here = parent + "/EntityType(\(name))"
        var type = CSDLEntityType(name: name, namespace: namespace)
        type.baseType = element.attribute("BaseType").map(resolve)
        type.isAbstract = element.attribute("Abstract") == "true"
        type.isOpen = element.attribute("OpenType") == "true"
        type.hasStream =
            (element.attribute("HasStream")
                ?? element.attribute(
                    "HasStream", namespace: EDMXNamespace.dataServicesMetadata)) == "true"
        type.annotations = annotations(of: element, at: here)
        for child in element.children {
            switch child.name {
            case "Key":
                for ref in child.children("PropertyRef") {
                    guard let path = ref.attribute("Name") else { continue }
                    let alias = ref.attribute("Alias")
                    type.key.append(alias ?? path)
                    if let alias { type.keyAliases[alias] = path }
                }
            case "Property":
                if let property = parseProperty(child, at: here) { type.properties.append(property) }
            case "NavigationProperty":
                if let navigation = parseNavigation(child, at: here) { type.navigationProperties.append(navigation) }
            case "Annotation", "Documentation":
                break
            default:
                note(.note, "unsupported element <\(child.name)> skipped", at: here)
            }
        }
        if type.key.isEmpty && type.baseType == nil && !type.isAbstract {
            note(.warning, "entity type has no key", at: here)
        }
        return type
    }

    mutating func parseComplexType(_ element: XElement, namespace: String, at parent: String) -> CSDLComplexType? {
        guard let name = element.attribute("Name") else {
            note(.warning, "a ComplexType without Name was skipped", at: parent)
            return nil
        }
        let here = parent + "/ComplexType(\(name))"
        var type = CSDLComplexType(name: name, namespace: namespace)
        type.baseType = element.attribute("BaseType").map(resolve)
        type.isAbstract = element.attribute("Abstract") == "true"
        type.isOpen = element.attribute("OpenType") == "true"
        type.annotations = annotations(of: element, at: here)
        for child in element.children {
            switch child.name {
            case "Property":
                if let property = parseProperty(child, at: here) { type.properties.append(property) }
            case "NavigationProperty":
                if let navigation = parseNavigation(child, at: here) { type.navigationProperties.append(navigation) }
            case "Annotation", "Documentation":
                break
            default:
                note(.note, "unsupported element <\(child.name)> skipped", at: here)
            }
        }
        return type
    }

    mutating func parseEnumType(_ element: XElement, namespace: String, at parent: String) -> CSDLEnumType? {
        guard let name = element.attribute("Name") else {
            note(.warning, "an EnumType without Name was skipped", at: parent)
            return nil
        }
        let here = parent + "/EnumType(\(name))"
        var type = CSDLEnumType(name: name, namespace: namespace)
        if let underlying = element.attribute("UnderlyingType") {
            if let primitive = EDMPrimitiveType(qualifiedName: underlying) {
                type.underlyingType = primitive
            } else {
                note(.warning, "unknown underlying type \(underlying); Edm.Int32 assumed", at: here)
            }
        }
        type.isFlags = element.attribute("IsFlags") == "true"
        type.annotations = annotations(of: element, at: here)
        var next: Int64 = 0
        for member in element.children("Member") {
            guard let memberName = member.attribute("Name") else { continue }
            var value = next
            if let text = member.attribute("Value") {
                if let parsed = Int64(text) {
                    value = parsed
                } else {
                    note(.warning, "member \(memberName) has a value that is not an integer: \(text)", at: here)
                }
            }
            next = value &+ 1
            type.members.append(
                CSDLEnumType.Member(
                    name: memberName, value: value,
                    annotations: annotations(of: member, at: here + "/Member(\(memberName))")))
        }
        return type
    }

    mutating func parseProperty(_ element: XElement, at parent: String) -> CSDLProperty? {
        guard let name = element.attribute("Name"), let typeName = element.attribute("Type") else {
            note(.warning, "a Property without Name or Type was skipped", at: parent)
            return nil
        }
        let here = parent + "/Property(\(name))"
        var type = facets(element, type: CSDLTypeReference(parsing: resolve(typeName)))
        // CSDL 2.0/3.0 (OData V2): `CollectionKind="List"` or `"Bag"` makes the property a collection.
        if let collectionKind = element.attribute("CollectionKind"), collectionKind != "None" {
            type.isCollection = true
        }
        checkType(type.name, at: here)
        return CSDLProperty(
            name: name, type: type, defaultValue: element.attribute("DefaultValue"),
            isConcurrencyToken: element.attribute("ConcurrencyMode") == "Fixed",
            annotations: annotations(of: element, at: here))
    }

    /// Nullable, MaxLength, Precision, Scale, SRID.
    func facets(_ element: XElement, type: CSDLTypeReference) -> CSDLTypeReference {
        var type = type
        type.nullable = element.attribute("Nullable") != "false"
        type.maxLength = element.attribute("MaxLength")
        type.precision = element.attribute("Precision").flatMap { Int($0) }
        type.scale = element.attribute("Scale")
        type.srid = element.attribute("SRID")
        return type
    }

    /// Notes an `Edm.` type name Satchel does not know.
    mutating func checkType(_ name: String, at location: String) {
        if name.hasPrefix("Edm."), EDMPrimitiveType(qualifiedName: name) == nil,
            !["Edm.ComplexType", "Edm.EntityType", "Edm.AnnotationPath", "Edm.PropertyPath"].contains(name)
        {
            note(.warning, "unknown primitive type \(name)", at: location)
        }
    }

    mutating func parseNavigation(_ element: XElement, at parent: String) -> CSDLNavigationProperty? {
        guard let name = element.attribute("Name") else {
            note(.warning, "a NavigationProperty without Name was skipped", at: parent)
            return nil
        }
        let here = parent + "/NavigationProperty(\(name))"
        var navigation = CSDLNavigationProperty(name: name, type: CSDLTypeReference(name: ""))
        navigation.annotations = annotations(of: element, at: here)
        if let typeName = element.attribute("Type") {
            navigation.type = CSDLTypeReference(
                parsing: resolve(typeName), nullable: element.attribute("Nullable") != "false")
            navigation.partner = element.attribute("Partner")
            navigation.containsTarget = element.attribute("ContainsTarget") == "true"
            for child in element.children {
                switch child.name {
                case "ReferentialConstraint":
                    if let property = child.attribute("Property"),
                        let referenced = child.attribute("ReferencedProperty")
                    {
                        navigation.referentialConstraints.append(
                            .init(property: property, referencedProperty: referenced))
                    }
                case "OnDelete":
                    navigation.onDelete = child.attribute("Action")
                case "Annotation", "Documentation":
                    break
                default:
                    note(.note, "unsupported element <\(child.name)> skipped", at: here)
                }
            }
        } else if let relationship = element.attribute("Relationship") {
            navigation.relationship = resolve(relationship)
            navigation.fromRole = element.attribute("FromRole")
            navigation.toRole = element.attribute("ToRole")
        } else {
            note(.warning, "navigation property has neither Type nor Relationship", at: here)
        }
        return navigation
    }
}
