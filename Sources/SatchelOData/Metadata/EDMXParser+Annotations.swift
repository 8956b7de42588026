import SatchelXML

extension EDMXParser {
    /// The annotations of an element: V4 `<Annotation>` children, and V2 attributes in foreign namespaces
    /// (`sap:label`, `m:…`).
    mutating func annotations(of element: XElement, at location: String) -> [CSDLAnnotation] {
        var result: [CSDLAnnotation] = []
        for attribute in element.attributes {
            guard let namespace = attribute.namespace else { continue }
            let term: String
            switch namespace {
            case EDMXNamespace.sap: term = "sap:" + attribute.name
            case EDMXNamespace.dataServicesMetadata: term = "m:" + attribute.name
            case XNamespace.xml: continue
            default: term = namespace + "#" + attribute.name
            }
            result.append(CSDLAnnotation(term: term, value: .string(attribute.value)))
        }
        for child in element.children where child.name == "Annotation" && EDMXNamespace.isEDM(child.namespace) {
            guard let term = child.attribute("Term") else {
                note(.note, "an Annotation without Term was skipped", at: location)
                continue
            }
            result.append(annotation(child, term: resolve(term), at: location))
        }
        return result
    }

    mutating func annotation(_ element: XElement, term: String, at location: String) -> CSDLAnnotation {
        let here = location + "/Annotation(\(term))"
        let nested = annotations(of: element, at: here)
        return CSDLAnnotation(
            term: term, qualifier: element.attribute("Qualifier"), value: expression(of: element, at: here),
            annotations: nested.filter { !$0.term.hasPrefix("sap:") })
    }

    private static let constantAttributes: Set<String> = [
        "Date", "DateTimeOffset", "Duration", "Guid", "TimeOfDay", "Binary",
    ]
    private static let pathAttributes: Set<String> = [
        "Path", "PropertyPath", "NavigationPropertyPath", "AnnotationPath", "ModelElementPath",
    ]

    /// The value of an annotation or property value: an attribute form or the first expression child.
    mutating func expression(of element: XElement, at location: String) -> CSDLExpression {
        for attribute in element.attributes where attribute.namespace == nil {
            if let value = constant(kind: attribute.name, text: attribute.value) { return value }
        }
        if let child = element.children.first(where: { $0.name != "Annotation" }) {
            return expression(element: child, at: location)
        }
        // An annotation without a value applies a Boolean term with its default, true.
        return .bool(true)
    }

    private func constant(kind: String, text: String) -> CSDLExpression? {
        switch kind {
        case "String": return .string(text)
        case "Bool": return .bool(text == "true")
        case "Int": return Int64(text).map(CSDLExpression.int) ?? .number(text)
        case "Decimal", "Float": return .number(text)
        case "EnumMember":
            return .enumMember(text.split(separator: " ").map { resolve(String($0)) }.joined(separator: " "))
        case _ where Self.constantAttributes.contains(kind): return .constant(kind: kind, value: text)
        case _ where Self.pathAttributes.contains(kind): return .path(kind: kind, value: text)
        default: return nil
        }
    }

    private mutating func expression(element: XElement, at location: String) -> CSDLExpression {
        if let value = constant(kind: element.name, text: element.trimmedText) { return value }
        switch element.name {
        case "Collection":
            return .collection(element.children.map { expression(element: $0, at: location) })
        case "Record":
            let properties = element.children("PropertyValue").compactMap { child -> CSDLPropertyValue? in
                guard let property = child.attribute("Property") else { return nil }
                return CSDLPropertyValue(property: property, value: expression(of: child, at: location))
            }
            return .record(type: element.attribute("Type").map(resolve), properties: properties)
        case "Null":
            return .null
        default:
            note(.note, "annotation expression <\(element.name)> kept unevaluated", at: location)
            return .unsupported(element: element.name, text: element.trimmedText)
        }
    }
}
