public import Foundation
import SatchelHTTP
import SatchelJSON
import SatchelXML

extension ODataPayloadWriter {
    /// The media type of an Atom entry body.
    public static let atomEntryContentType = "application/atom+xml;type=entry"

    /// An entity as an OData V2 Atom entry (for POST, PUT and MERGE to a service that speaks Atom): its type as
    /// the `category`, its properties in `m:properties` with `m:type` where the declared type is known and
    /// `m:null` for nulls, each binding as a navigation `link`, nested entities inline (`m:inline`, deep insert).
    /// `type` types the values as in ``data(for:type:)``.
    ///
    /// ```swift
    /// let body = try ODataPayloadWriter(version: .v2, serviceURL: root, metadata: metadata).atomData(for: product)
    /// ```
    public func atomData(for entity: ODataEntity, type: CSDLEntityType? = nil) throws -> Data {
        var writer = XMLWriter(namespaces: [
            (prefix: "", uri: XNamespace.atom), (prefix: "d", uri: ODataAtom.data),
            (prefix: "m", uri: ODataAtom.metadata),
        ])
        try writeEntry(entity, type: type, into: &writer, at: "entry")
        return Data(writer.finish())
    }

    /// An entity as a request body: an Atom entry when `atom` (V2), else JSON.
    func body(for entity: ODataEntity, type: CSDLEntityType?, atom: Bool) throws -> ODataRequestBody {
        atom
            ? .xml(try atomData(for: entity, type: type), contentType: Self.atomEntryContentType)
            : .json(try json(for: entity, type: type))
    }

    /// The body that links to `url`: V4 `{"@odata.id": url}`; V2 `<uri>url</uri>` when `atom`, else `{"uri": url}`.
    func linkBody(to url: String, atom: Bool) -> ODataRequestBody {
        if version == .v4 { return .json(["@odata.id": .string(url)]) }
        guard atom else { return .json(["uri": .string(url)]) }
        var writer = XMLWriter(namespaces: [(prefix: "", uri: ODataAtom.data)])
        writer.element("uri", namespace: ODataAtom.data, text: url)
        return .xml(Data(writer.finish()), contentType: "application/xml")
    }

    private func writeEntry(
        _ entity: ODataEntity, type: CSDLEntityType?, into writer: inout XMLWriter, at location: String
    ) throws {
        let entityType = entity.type.flatMap { metadata?.entityType(named: $0) } ?? type
        writer.start("entry", namespace: XNamespace.atom)
        if let name = entity.type ?? entityType?.qualifiedName {
            writer.element(
                "category", namespace: XNamespace.atom, attributes: [("term", name), ("scheme", ODataAtom.scheme)])
        }
        writer.element("id", namespace: XNamespace.atom, text: entity.id ?? "")
        writer.element("title", namespace: XNamespace.atom, text: "")
        writer.element("updated", namespace: XNamespace.atom, text: ODataDateFormat.iso8601(Date()))
        writer.start("author", namespace: XNamespace.atom)
        writer.element("name", namespace: XNamespace.atom, text: "")
        writer.end()
        let properties = entityType.map { metadata?.allProperties(of: $0) ?? $0.properties } ?? []
        let navigations = entityType.map { metadata?.allNavigationProperties(of: $0) ?? $0.navigationProperties } ?? []
        let declared = Dictionary(properties.map { ($0.name, $0.type) }, uniquingKeysWith: { first, _ in first })
        for (navigation, paths) in entity.bindings.sorted(by: { $0.key < $1.key }) {
            let isMany =
                paths.count > 1 || entity.collectionBindings.contains(navigation)
                || navigations.first { $0.name == navigation }?.type.isCollection == true
            for path in paths {
                writer.element(
                    "link", namespace: XNamespace.atom,
                    attributes: [
                        ("rel", ODataAtom.related + navigation),
                        ("type", "application/atom+xml;type=" + (isMany ? "feed" : "entry")),
                        ("href", absolute(path)),
                    ])
            }
        }
        var structural: [(String, ODataValue)] = []
        for (name, value) in entity.properties {
            switch value {
            case .entity, .entities:
                // Deep insert: the nested entry, or the nested entries as a feed, inside the navigation link.
                let target = navigations.first { $0.name == name }.flatMap { metadata?.entityType(named: $0.type.name) }
                let nested = value.entityValue.map { [$0] } ?? value.entitiesValue ?? []
                let isFeed = value.entitiesValue != nil
                writer.start(
                    "link", namespace: XNamespace.atom,
                    attributes: [
                        ("rel", ODataAtom.related + name),
                        ("type", "application/atom+xml;type=" + (isFeed ? "feed" : "entry")),
                        ("title", name), ("href", name),
                    ])
                writer.start("inline", namespace: ODataAtom.metadata)
                if isFeed {
                    // The elements RFC 4287 asks of every feed.
                    writer.start("feed", namespace: XNamespace.atom)
                    writer.element("id", namespace: XNamespace.atom, text: "")
                    writer.element("title", namespace: XNamespace.atom, text: "")
                    writer.element("updated", namespace: XNamespace.atom, text: ODataDateFormat.iso8601(Date()))
                }
                for (index, element) in nested.enumerated() {
                    let here = isFeed ? "\(location)/\(name)[\(index)]" : location + "/" + name
                    try writeEntry(element, type: target, into: &writer, at: here)
                }
                if isFeed { writer.end() }
                writer.end()
                writer.end()
            default:
                structural.append((name, value))
            }
        }
        // A media entry (`HasStream`) keeps its properties beside `content`, which is its media resource; any other
        // entry has them inside `content`.
        let isMedia = entityType?.hasStream == true
        if !isMedia { writer.start("content", namespace: XNamespace.atom, attributes: [("type", "application/xml")]) }
        writer.start("properties", namespace: ODataAtom.metadata)
        for (name, value) in structural {
            try writeProperty(name, value, declared: declared[name], into: &writer, at: location + "/" + name)
        }
        writer.end()
        if !isMedia { writer.end() }
        writer.end()
    }

    private func writeProperty(
        _ name: String, _ value: ODataValue, declared: CSDLTypeReference?, into writer: inout XMLWriter,
        at location: String
    ) throws {
        guard Self.isXMLName(name) else {
            throw ODataError(
                .invalidArgument, "\(name.debugDescription) is not a property name Atom can carry (an XML name)",
                location: location)
        }
        var attributes: [(String, String)] = []
        if let declared, declared.name != "Edm.String" || declared.isCollection {
            attributes.append(("m:type", declared.isCollection ? "Collection(\(declared.name))" : declared.name))
        }
        switch value {
        case .null:
            attributes.append(("m:null", "true"))
            writer.element(name, namespace: ODataAtom.data, attributes: attributes)
        case .complex(let properties):
            let complex = declared.flatMap { metadata?.complexType(named: $0.name) }
            writer.start(name, namespace: ODataAtom.data, attributes: attributes)
            for (member, value) in properties {
                try writeProperty(
                    member, value, declared: complex?.property(member)?.type, into: &writer, at: location + "/" + member
                )
            }
            writer.end()
        case .collection(let values):
            var element = declared
            element?.isCollection = false
            writer.start(name, namespace: ODataAtom.data, attributes: attributes)
            for (index, value) in values.enumerated() {
                try writeProperty("element", value, declared: element, into: &writer, at: "\(location)[\(index)]")
            }
            writer.end()
        case .entity, .entities:
            throw ODataError(
                .invalidArgument, "an entity inside a complex or collection value cannot be written in Atom",
                location: location)
        case .dateTime(let date) where declared?.primitive == .dateTimeOffset:
            // A DateTimeOffset property written from a plain date-time: in UTC, with its zone (without one, a
            // server reads its own local time).
            writer.element(name, namespace: ODataAtom.data, attributes: attributes, text: ODataDateFormat.iso8601(date))
        default:
            writer.element(
                name, namespace: ODataAtom.data, attributes: attributes, text: try Self.atomLiteral(value, at: location)
            )
        }
    }

    /// Whether `name` can be an element name: a letter or `_` first, then letters, digits, `_`, `-` and `.`.
    static func isXMLName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || first.properties.isAlphabetic else { return false }
        return name.unicodeScalars.allSatisfy {
            $0 == "_" || $0 == "-" || $0 == "." || $0.properties.isAlphabetic || $0.properties.numericType != nil
        }
    }

    /// A primitive value's text in an Atom property element (XML Schema lexical forms).
    static func atomLiteral(_ value: ODataValue, at location: String) throws -> String {
        switch value {
        case .bool(let value): return value ? "true" : "false"
        case .int(let value): return String(value)
        case .decimal(let value): return "\(value)"
        case .double(let value):
            if value.isNaN { return "NaN" }
            if value.isInfinite { return value < 0 ? "-INF" : "INF" }
            guard let number = JSONNumber(value) else { return "\(value)" }
            return number.text
        case .string(let text), .date(let text), .timeOfDay(let text), .duration(let text), .enumMember(let text):
            return text
        case .guid(let uuid): return uuid.uuidString.lowercased()
        case .dateTime(let date): return ODataDateFormat.iso8601(date, zone: false)
        case .dateTimeOffset(let date, let offset): return ODataDateFormat.iso8601(date, offsetMinutes: offset ?? 0)
        case .binary(let data): return data.base64EncodedString()
        case .json(let json):
            if let text = json.stringValue { return text }
            if let number = json.numberValue { return number.text }
            if let bool = json.boolValue { return bool ? "true" : "false" }
            throw ODataError(
                .invalidArgument, "a JSON \(json.kind) value cannot be written in Atom", location: location)
        case .geo:
            throw ODataError(.invalidArgument, "geospatial values are not written in Atom (GML)", location: location)
        case .null, .complex, .collection, .entity, .entities:
            throw ODataError(.invalidArgument, "not a primitive value", location: location)
        }
    }
}

/// A request body in a format a service takes: JSON, or XML (a V2 Atom entry, a V2 `$links` `<uri>`).
enum ODataRequestBody: Sendable {
    case json(JSONValue)
    case xml(Data, contentType: String)

    var contentType: String {
        switch self {
        case .json: "application/json"
        case .xml(_, let contentType): contentType
        }
    }

    var data: Data {
        switch self {
        case .json(let value): Data(value.serialized())
        case .xml(let data, _): data
        }
    }

    /// The body of a request sent on its own.
    var httpBody: HTTPClient.Body {
        switch self {
        case .json(let value): .json(value)
        case .xml(let data, let contentType): .data(data, contentType: contentType)
        }
    }
}
