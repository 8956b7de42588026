import SatchelXML

extension EDMXParser {
    mutating func parseAssociation(_ element: XElement, namespace: String, at parent: String) -> CSDLAssociation? {
        guard let name = element.attribute("Name") else {
            note(.warning, "an Association without Name was skipped", at: parent)
            return nil
        }
        let here = parent + "/Association(\(name))"
        var ends: [CSDLAssociation.End] = []
        for end in element.children("End") {
            guard let role = end.attribute("Role"), let type = end.attribute("Type") else {
                note(.warning, "an association End without Role or Type was skipped", at: here)
                continue
            }
            ends.append(
                CSDLAssociation.End(
                    role: role, type: resolve(type), multiplicity: end.attribute("Multiplicity") ?? "1",
                    onDelete: end.child("OnDelete")?.attribute("Action")))
        }
        var constraint: CSDLAssociation.Constraint?
        if let element = element.child("ReferentialConstraint"), let principal = element.child("Principal"),
            let dependent = element.child("Dependent")
        {
            constraint = CSDLAssociation.Constraint(
                principalRole: principal.attribute("Role") ?? "",
                principalProperties: principal.children("PropertyRef").compactMap { $0.attribute("Name") },
                dependentRole: dependent.attribute("Role") ?? "",
                dependentProperties: dependent.children("PropertyRef").compactMap { $0.attribute("Name") })
        }
        if ends.count != 2 { note(.warning, "association has \(ends.count) ends, expected 2", at: here) }
        return CSDLAssociation(
            name: name, namespace: namespace, ends: ends, referentialConstraint: constraint,
            annotations: annotations(of: element, at: here))
    }

    mutating func parseOperation(_ element: XElement, namespace: String, at parent: String) -> CSDLOperation? {
        guard let name = element.attribute("Name") else {
            note(.warning, "a \(element.name) without Name was skipped", at: parent)
            return nil
        }
        let here = parent + "/\(element.name)(\(name))"
        var operation = CSDLOperation(
            kind: element.name == "Action" ? .action : .function, name: name, namespace: namespace,
            isBound: element.attribute("IsBound") == "true", isComposable: element.attribute("IsComposable") == "true",
            entitySetPath: element.attribute("EntitySetPath"), annotations: annotations(of: element, at: here))
        for child in element.children {
            switch child.name {
            case "Parameter":
                if let parameter = parseParameter(child, at: here) { operation.parameters.append(parameter) }
            case "ReturnType":
                if let type = child.attribute("Type") {
                    operation.returnType = facets(child, type: CSDLTypeReference(parsing: resolve(type)))
                }
            case "Annotation", "Documentation":
                break
            default:
                note(.note, "unsupported element <\(child.name)> skipped", at: here)
            }
        }
        return operation
    }

    mutating func parseParameter(_ element: XElement, at parent: String) -> CSDLParameter? {
        guard let name = element.attribute("Name"), let type = element.attribute("Type") else {
            note(.warning, "a Parameter without Name or Type was skipped", at: parent)
            return nil
        }
        let here = parent + "/Parameter(\(name))"
        let reference = facets(element, type: CSDLTypeReference(parsing: resolve(type)))
        checkType(reference.name, at: here)
        return CSDLParameter(
            name: name, type: reference, mode: element.attribute("Mode"),
            annotations: annotations(of: element, at: here))
    }

    mutating func parseContainer(_ element: XElement, namespace: String, at parent: String) -> CSDLEntityContainer {
        let name = element.attribute("Name") ?? ""
        let here = parent + "/EntityContainer(\(name))"
        var container = CSDLEntityContainer(
            name: name, namespace: namespace,
            isDefault: version == .v4
                || element.attribute("IsDefaultEntityContainer", namespace: EDMXNamespace.dataServicesMetadata)
                    == "true",
            annotations: annotations(of: element, at: here))
        if element.attribute("Extends") != nil {
            note(.note, "container inheritance (Extends) is not followed", at: here)
        }
        for child in element.children {
            let childName = child.attribute("Name") ?? ""
            let location = here + "/\(child.name)(\(childName))"
            switch child.name {
            case "EntitySet", "Singleton":
                guard let type = child.attribute("EntityType") ?? child.attribute("Type"), !childName.isEmpty else {
                    note(.warning, "\(child.name) without Name or type was skipped", at: here)
                    continue
                }
                var set = CSDLEntitySet(
                    name: childName, entityType: resolve(type), isSingleton: child.name == "Singleton",
                    includeInServiceDocument: child.attribute("IncludeInServiceDocument") != "false",
                    annotations: annotations(of: child, at: location))
                for binding in child.children("NavigationPropertyBinding") {
                    if let path = binding.attribute("Path"), let target = binding.attribute("Target") {
                        set.navigationBindings[path] = target
                    }
                }
                if set.isSingleton { container.singletons.append(set) } else { container.entitySets.append(set) }
            case "AssociationSet":
                guard let association = child.attribute("Association") else { continue }
                var ends: [String: String] = [:]
                for end in child.children("End") {
                    if let role = end.attribute("Role"), let set = end.attribute("EntitySet") { ends[role] = set }
                }
                container.associationSets.append(
                    CSDLAssociationSet(
                        name: childName, association: resolve(association), ends: ends,
                        annotations: annotations(of: child, at: location)))
            case "FunctionImport", "ActionImport":
                container.operationImports.append(parseImport(child, name: childName, at: location))
            case "Annotation", "Documentation":
                break
            default:
                note(.note, "unsupported element <\(child.name)> skipped", at: here)
            }
        }
        return container
    }

    mutating func parseImport(_ element: XElement, name: String, at here: String) -> CSDLOperationImport {
        var operationImport = CSDLOperationImport(
            kind: element.name == "ActionImport" ? .action : .function, name: name,
            entitySet: element.attribute("EntitySet"),
            includeInServiceDocument: element.attribute("IncludeInServiceDocument") == "true",
            annotations: annotations(of: element, at: here))
        if let operation = element.attribute("Function") ?? element.attribute("Action") {
            operationImport.operation = resolve(operation)
        } else {
            // V2: the import is the operation.
            let method = element.attribute("HttpMethod", namespace: EDMXNamespace.dataServicesMetadata)
            operationImport.httpMethod = method ?? "GET"
            operationImport.kind = method == "POST" ? .action : .function
            operationImport.returnType = element.attribute("ReturnType").map { CSDLTypeReference(parsing: resolve($0)) }
            operationImport.parameters = element.children("Parameter").compactMap { parseParameter($0, at: here) }
        }
        return operationImport
    }
}
