public import Foundation
import SatchelJSON
public import SatchelXML
import SatchelText

/// Model values to AtomPub (CMIS RestAtom 1.1) XML, the inverse of ``AtomPubParser``: what the client posts and
/// what `satchel serve` answers are written by the same code, so a writer test is a round trip through the parser.
///
/// ```swift
/// var properties = Properties()
/// properties["cmis:name"] = CMISProperty(id: "cmis:name", type: .string, values: [.string("Notes")])
/// let body = AtomPubWriter.entry(properties: properties)   // POST to a folder's children collection
/// ```
public enum AtomPubWriter {
    static let cmis = XNamespace.cmis
    package static let cmisra = XNamespace.cmisRestAtom
    package static let atom = XNamespace.atom
    static let app = XNamespace.app

    /// The prefixes every document declares on its root element.
    public static let namespaces: [(prefix: String, uri: String)] = [
        ("atom", XNamespace.atom), ("app", XNamespace.app), ("cmis", XNamespace.cmis),
        ("cmisra", XNamespace.cmisRestAtom),
    ]

    /// A new writer with the CMIS prefixes declared.
    public static func makeWriter() -> XMLWriter { XMLWriter(namespaces: namespaces) }

    /// An Atom entry to create or update an object: `atom:title` from `cmis:name`, optional inline content
    /// (`cmisra:content`, base64) and `cmisra:object` with the properties.
    public static func entry(
        properties: Properties, content: Data? = nil, mimeType: String? = nil, now: Date = Date()
    ) -> Data {
        var writer = makeWriter()
        writer.start("entry", namespace: atom)
        writer.element("id", namespace: atom, text: "urn:uuid:" + UUID().uuidString.lowercased())
        writer.element("title", namespace: atom, text: properties["cmis:name"]?.stringValue ?? "")
        writer.element("updated", namespace: atom, text: dateString(now))
        if let content {
            writer.start("content", namespace: cmisra)
            writer.element("mediatype", namespace: cmisra, text: mimeType ?? "application/octet-stream")
            writer.element("base64", namespace: cmisra, text: content.base64EncodedString())
            writer.end()
        }
        writer.start("object", namespace: cmisra)
        self.properties(properties, into: &writer)
        writer.end()
        writer.end()
        return Data(writer.finish())
    }

    /// An `atom:entry` holding a type definition (`cmisra:type`): what createType posts and updateType puts.
    public static func typeEntry(_ type: TypeDefinition, now: Date = Date()) -> Data {
        var writer = makeWriter()
        writer.start("entry", namespace: atom)
        writer.element("id", namespace: atom, text: "urn:uuid:" + UUID().uuidString.lowercased())
        writer.element("title", namespace: atom, text: type.displayName ?? type.id)
        writer.element("updated", namespace: atom, text: dateString(now))
        typeDefinition(type, into: &writer)
        writer.end()
        return Data(writer.finish())
    }

    /// A `cmis:query` document (POST to the query collection), its elements in the schema's order.
    public static func query(
        statement: String, searchAllVersions: Bool, maxItems: Int?, skipCount: Int,
        includeAllowableActions: Bool = false, includeRelationships: OperationContext.IncludeRelationships = .none,
        renditionFilter: String? = nil
    ) -> Data {
        var writer = XMLWriter(namespaces: [("cmis", cmis)])
        writer.start("query", namespace: cmis)
        writer.element("statement", namespace: cmis, text: statement)
        writer.element("searchAllVersions", namespace: cmis, text: String(searchAllVersions))
        writer.element("includeAllowableActions", namespace: cmis, text: String(includeAllowableActions))
        writer.element("includeRelationships", namespace: cmis, text: includeRelationships.rawValue)
        if let renditionFilter { writer.element("renditionFilter", namespace: cmis, text: renditionFilter) }
        if let maxItems { writer.element("maxItems", namespace: cmis, text: String(maxItems)) }
        writer.element("skipCount", namespace: cmis, text: String(skipCount))
        return Data(writer.finish())
    }

    /// `cmisra:object` (or another element of the object type, such as `cmis:relationship`).
    public static func object(
        _ object: CMISObject, into writer: inout XMLWriter, name: String = "object",
        namespace: String = XNamespace.cmisRestAtom, depth: Int = 0
    ) {
        writer.start(name, namespace: namespace)
        properties(object.properties, into: &writer)
        if let actions = object.allowableActions { allowableActions(actions, into: &writer) }
        if depth < 16 {
            for relationship in object.relationships {
                self.object(relationship, into: &writer, name: "relationship", namespace: cmis, depth: depth + 1)
            }
        }
        if let change = object.changeEventInfo {
            writer.start("changeEventInfo", namespace: cmis)
            writer.element("changeType", namespace: cmis, text: change.changeType.rawValue)
            if let time = change.changeTime { writer.element("changeTime", namespace: cmis, text: dateString(time)) }
            writer.end()
        }
        if let acl = object.acl {
            self.acl(acl, into: &writer)
            if let exact = acl.isExact { writer.element("exactACL", namespace: cmis, text: String(exact)) }
        }
        if !object.policyIds.isEmpty {
            writer.start("policyIds", namespace: cmis)
            for id in object.policyIds { writer.element("id", namespace: cmis, text: id) }
            writer.end()
        }
        for rendition in object.renditions { self.rendition(rendition, into: &writer) }
        extensions(object.extensions, into: &writer)
        writer.end()
    }

    /// `cmis:properties`, one typed element per property.
    public static func properties(_ properties: Properties, into writer: inout XMLWriter) {
        writer.start("properties", namespace: cmis)
        for property in properties {
            var attributes = [("propertyDefinitionId", property.id)]
            if let name = property.localName { attributes.append(("localName", name)) }
            if let name = property.displayName { attributes.append(("displayName", name)) }
            if let name = property.queryName { attributes.append(("queryName", name)) }
            writer.start(elementName(property.type), namespace: cmis, attributes: attributes)
            for value in property.values { writer.element("value", namespace: cmis, text: lexical(value)) }
            writer.end()
        }
        writer.end()
    }

    /// `cmis:allowableActions` with every action the object allows set to true.
    public static func allowableActions(
        _ actions: AllowableActions, into writer: inout XMLWriter, namespace: String = XNamespace.cmis
    ) {
        writer.start("allowableActions", namespace: namespace)
        for action in actions.actions.map(\.rawValue).sorted() {
            writer.element(action, namespace: cmis, text: "true")
        }
        writer.end()
    }

    /// `cmis:acl` with its permissions.
    public static func acl(_ acl: ACL, into writer: inout XMLWriter) {
        writer.start("acl", namespace: cmis)
        for ace in acl.aces {
            writer.start("permission", namespace: cmis)
            writer.start("principal", namespace: cmis)
            writer.element("principalId", namespace: cmis, text: ace.principalId)
            writer.end()
            for permission in ace.permissions { writer.element("permission", namespace: cmis, text: permission) }
            writer.element("direct", namespace: cmis, text: String(ace.isDirect))
            writer.end()
        }
        writer.end()
    }

    static func rendition(_ rendition: Rendition, into writer: inout XMLWriter) {
        writer.start("rendition", namespace: cmis)
        writer.element("streamId", namespace: cmis, text: rendition.streamId)
        if let value = rendition.mimeType { writer.element("mimetype", namespace: cmis, text: value) }
        if let value = rendition.length { writer.element("length", namespace: cmis, text: String(value)) }
        if let value = rendition.kind { writer.element("kind", namespace: cmis, text: value) }
        if let value = rendition.title { writer.element("title", namespace: cmis, text: value) }
        if let value = rendition.height { writer.element("height", namespace: cmis, text: String(value)) }
        if let value = rendition.width { writer.element("width", namespace: cmis, text: String(value)) }
        if let value = rendition.renditionDocumentId {
            writer.element("renditionDocumentId", namespace: cmis, text: value)
        }
        writer.end()
    }

    /// Extension trees as elements of their own namespaces.
    public static func extensions(_ extensions: [CMISExtension], into writer: inout XMLWriter, depth: Int = 0) {
        guard depth < 64 else { return }
        for element in extensions {
            // Prefixed attribute names would need their namespace: only plain names are kept.
            let attributes = element.attributes.filter { !$0.key.contains(":") }.sorted { $0.key < $1.key }
                .map { ($0.key, $0.value) }
            writer.start(element.name, namespace: element.namespace, attributes: attributes)
            if let value = element.value { writer.text(value) }
            self.extensions(element.children, into: &writer, depth: depth + 1)
            writer.end()
        }
    }

    /// `cmis:propertyString`, `cmis:propertyDateTime`, …
    public static func elementName(_ type: PropertyType) -> String {
        switch type {
        case .string: "propertyString"
        case .id: "propertyId"
        case .integer: "propertyInteger"
        case .decimal: "propertyDecimal"
        case .datetime: "propertyDateTime"
        case .boolean: "propertyBoolean"
        case .uri: "propertyUri"
        case .html: "propertyHtml"
        }
    }

    /// A value's XML Schema lexical form.
    public static func lexical(_ value: PropertyValue) -> String {
        switch value {
        case .string(let text), .id(let text), .uri(let text), .html(let text): text
        case .boolean(let flag): String(flag)
        case .integer(let number): String(number)
        case .decimal(let number): "\(number)"
        case .datetime(let date): dateString(date)
        }
    }

    /// `xsd:dateTime` in UTC with milliseconds: `2026-11-21T22:29:28.796Z`.
    public static func dateString(_ date: Date) -> String { ISO8601Timestamp.string(from: date) }
}
