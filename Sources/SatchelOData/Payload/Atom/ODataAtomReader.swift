import Foundation
import SatchelJSON
import SatchelXML

/// The namespaces and names of OData V2's Atom format (Atom feeds and entries with `m:properties` inside).
enum ODataAtom {
    /// `d:`, the namespace of property elements.
    static let data = "http://schemas.microsoft.com/ado/2007/08/dataservices"
    /// `m:`, the namespace of OData's metadata attributes and elements.
    static let metadata = "http://schemas.microsoft.com/ado/2007/08/dataservices/metadata"
    /// The `scheme` of the `category` that names an entry's type.
    static let scheme = data + "/scheme"
    /// The prefix of a navigation link's `rel`.
    static let related = data + "/related/"
    /// The namespace of `at:deleted-entry` (tombstones in SAP delta responses).
    static let tombstones = "http://purl.org/atompub/tombstones/1.0"

    /// Whether a body is XML rather than JSON: its first byte after white space (and a UTF-8 byte order mark) is
    /// `<`. JSON never starts so; an Atom or XML answer always does.
    static func isXML(_ data: Data) -> Bool {
        var index = data.startIndex
        if data.starts(with: [0xEF, 0xBB, 0xBF]) { index += 3 }
        while index < data.endIndex {
            switch data[index] {
            case 0x20, 0x09, 0x0A, 0x0D: index += 1
            case UInt8(ascii: "<"): return true
            default: return false
            }
        }
        return false
    }

    /// Whether a `Content-Type` is Atom or XML.
    static func isXML(contentType: String?) -> Bool {
        guard let type = contentType?.lowercased() else { return false }
        return type.contains("atom+xml") || type.contains("/xml")
    }
}

/// Reads OData V2 Atom XML (feeds, entries, property and collection documents) into the V2 JSON shape the JSON
/// reader already types, so both formats give the same ``ODataEntity`` and ``ODataPage`` values. Positions in
/// errors are XML paths (`feed/entry[3].Price`).
extension ODataPayloadReader {
    static func parseXML(_ data: Data) throws -> XElement {
        do {
            return try XDocument.parse(data: data).root
        } catch {
            // An XMLReadError names the line and column.
            throw ODataError(.invalidPayload, "the response is not well-formed XML: \(error)", underlying: error)
        }
    }

    /// A feed: its entries, `m:count`, the `next` and `delta` links and tombstones.
    func atomPage(from data: Data, type: CSDLEntityType?) throws -> ODataPage {
        let root = try Self.parseXML(data)
        if root.name == "entry" && root.namespace == XNamespace.atom {
            // Some services answer a read of a set with one entry when the set holds one; read it as a page of one.
            return ODataPage(entities: [try atomEntity(root, type: type, base: nil, at: "entry")])
        }
        guard root.name == "feed", root.namespace == XNamespace.atom else {
            throw Self.shape("expected an Atom feed, found the XML element <\(root.qualifiedName)>", at: "/")
        }
        return try atomPage(root, type: type, base: nil, at: "feed")
    }

    private func atomPage(_ feed: XElement, type: CSDLEntityType?, base: URL?, at location: String) throws -> ODataPage
    {
        let base = Self.base(of: feed, inherited: base)
        var page = ODataPage()
        for link in feed.children("link", namespace: XNamespace.atom) {
            switch link.attribute("rel") {
            case "next": page.nextLink = try Self.href(of: link, base: base, at: location + "/link[@rel='next']")
            case "delta": page.deltaLink = try Self.href(of: link, base: base, at: location + "/link[@rel='delta']")
            default: continue
            }
        }
        if let count = feed.child("count", namespace: ODataAtom.metadata) {
            guard let value = Int64(count.trimmedText) else {
                throw Self.shape("m:count is not a number: \(count.trimmedText.prefix(40))", at: location + "/m:count")
            }
            page.count = value
        }
        var index = 0
        for element in feed.children {
            if element.name == "entry" && element.namespace == XNamespace.atom {
                page.entities.append(try atomEntity(element, type: type, base: base, at: "\(location)/entry[\(index)]"))
                index += 1
            } else if element.name == "deleted-entry" && element.namespace == ODataAtom.tombstones {
                guard let ref = element.attribute("ref"), !ref.isEmpty else {
                    throw Self.shape("a deleted entry has no ref", at: location + "/at:deleted-entry")
                }
                var removed = ODataEntity()
                removed.id = Self.resolve(ref, base: base)
                removed.editLink = removed.id
                removed.removed = ODataEntity.Removal(reason: "deleted")
                page.entities.append(removed)
            }
        }
        return page
    }

    /// A single-entry document.
    func atomEntity(from data: Data, type: CSDLEntityType?) throws -> ODataEntity {
        let root = try Self.parseXML(data)
        guard root.name == "entry", root.namespace == XNamespace.atom else {
            throw Self.shape("expected an Atom entry, found the XML element <\(root.qualifiedName)>", at: "/")
        }
        return try atomEntity(root, type: type, base: nil, at: "entry")
    }

    /// A property, complex or collection document (`<d:Name>…</d:Name>`, a function import's result).
    func atomValue(from data: Data, type: CSDLTypeReference?) throws -> ODataValue {
        let root = try Self.parseXML(data)
        if root.namespace == XNamespace.atom {
            if root.name == "feed" { return .entities(try atomPage(root, type: nil, base: nil, at: "feed").entities) }
            if root.name == "entry" { return .entity(try atomEntity(root, type: nil, base: nil, at: "entry")) }
        }
        return try value(from: try json(ofProperty: root, declared: type), type: type, at: root.name)
    }

    private func atomEntity(
        _ entry: XElement, type: CSDLEntityType?, base: URL?, at location: String
    ) throws
        -> ODataEntity
    {
        let base = Self.base(of: entry, inherited: base)
        var metadata = JSONObject()
        var object = JSONObject()
        if let id = entry.textOf(child: "id", namespace: XNamespace.atom), !id.isEmpty {
            metadata.append(key: "id", value: .string(Self.resolve(id, base: base)))
        }
        if let etag = entry.attribute("etag", namespace: ODataAtom.metadata) {
            metadata.append(key: "etag", value: .string(etag))
        }
        let category = entry.children("category", namespace: XNamespace.atom).first {
            $0.attribute("scheme") == nil || $0.attribute("scheme") == ODataAtom.scheme
        }
        if let term = category?.attribute("term") { metadata.append(key: "type", value: .string(term)) }
        var inline: [(name: String, value: XElement?, at: String)] = []
        for link in entry.children("link", namespace: XNamespace.atom) {
            let rel = link.attribute("rel") ?? ""
            let here = "\(location)/link[@rel='\(rel)']"
            switch rel {
            case "edit":
                metadata.append(key: "uri", value: .string(try Self.href(of: link, base: base, at: here)))
            case "self":
                if metadata["uri"] == nil {
                    metadata.append(key: "uri", value: .string(try Self.href(of: link, base: base, at: here)))
                }
            case "edit-media":
                metadata.append(key: "edit_media", value: .string(try Self.href(of: link, base: base, at: here)))
                if let etag = link.attribute("etag", namespace: ODataAtom.metadata) {
                    metadata.append(key: "media_etag", value: .string(etag))
                }
            default:
                guard rel.hasPrefix(ODataAtom.related) else { continue }
                let name = String(rel.dropFirst(ODataAtom.related.count))
                if let content = link.child("inline", namespace: ODataAtom.metadata) {
                    // An empty m:inline is an expanded navigation with nothing in it.
                    guard content.children.count <= 1 else {
                        throw Self.shape(
                            "m:inline holds \(content.children.count) elements; an expansion is one entry or one feed",
                            at: here + "/m:inline")
                    }
                    inline.append((name, content.children.first, here + "/m:inline"))
                } else if let href = link.attribute("href") {
                    object.append(key: name, value: ["__deferred": ["uri": .string(Self.resolve(href, base: base))]])
                }
            }
        }
        let content = entry.child("content", namespace: XNamespace.atom)
        var properties = content?.child("properties", namespace: ODataAtom.metadata)
        if let content, let source = content.attribute("src") {
            // A media entry: the content is elsewhere, the properties are a sibling of `content`.
            metadata.append(key: "media_src", value: .string(Self.resolve(source, base: base)))
            if let type = content.attribute("type") { metadata.append(key: "content_type", value: .string(type)) }
            properties = entry.child("properties", namespace: ODataAtom.metadata)
        } else if properties == nil {
            properties = entry.child("properties", namespace: ODataAtom.metadata)
        }
        let declaredType =
            entry.children("category", namespace: XNamespace.atom).lazy.compactMap {
                $0.attribute("term").flatMap { self.metadata?.entityType(named: $0) }
            }.first ?? type
        let declared = declaredType.map { self.metadata?.allProperties(of: $0) ?? $0.properties } ?? []
        for property in properties?.children ?? [] where property.namespace == ODataAtom.data {
            let type = declared.first { $0.name == property.name }?.type
            object.append(key: property.name, value: try json(ofProperty: property, declared: type))
        }
        object.append(key: "__metadata", value: .object(metadata))
        var entity = try self.entity(from: .object(object), type: type, at: location)
        // Expanded navigation: read as entries and feeds of the navigation's target type.
        let resolved = entity.type.flatMap { self.metadata?.entityType(named: $0) } ?? type
        let navigations = resolved.map { self.metadata?.allNavigationProperties(of: $0) ?? $0.navigationProperties }
        for (name, element, here) in inline {
            let target = navigations?.first { $0.name == name }.flatMap {
                self.metadata?.entityType(named: $0.type.name)
            }
            let toMany = navigations?.first { $0.name == name }?.type.isCollection == true
            guard let element else {
                entity[name] = toMany ? .entities([]) : .null
                continue
            }
            guard element.namespace == XNamespace.atom else {
                throw Self.shape("m:inline holds <\(element.qualifiedName)>, not an Atom entry or feed", at: here)
            }
            switch element.name {
            case "entry": entity[name] = .entity(try atomEntity(element, type: target, base: base, at: here + "/entry"))
            case "feed":
                let page = try atomPage(element, type: target, base: base, at: here + "/feed")
                // An expansion the service paged: what follows is not here, so reading on would cut it short.
                if let next = page.nextLink {
                    throw Self.shape(
                        "the service paged the expanded \(name) (next link \(next)); read it through its navigation "
                            + "instead of $expand", at: here + "/feed/link[@rel='next']")
                }
                entity[name] = .entities(page.entities)
            default: throw Self.shape("m:inline holds <\(element.qualifiedName)>, not an Atom entry or feed", at: here)
            }
        }
        return entity
    }

    /// A property element as the V2 JSON value the JSON reader types: text as a string, `m:null` as null, child
    /// `d:` elements as an object (complex) or, for a collection, a `results` array. `declared` (from the metadata)
    /// tells an empty collection or complex value from an empty string, and a complex value whose only member is
    /// named `element` from a collection. Without metadata, `m:type` still makes whole numbers and booleans JSON
    /// numbers and booleans, and dates V2 JSON dates.
    func json(
        ofProperty element: XElement, declared: CSDLTypeReference?, collectionElementType: String? = nil
    ) throws -> JSONValue {
        let null = element.attribute("null", namespace: ODataAtom.metadata)
        if null == "true" || null == "1" { return .null }
        let attribute = element.attribute("type", namespace: ODataAtom.metadata) ?? collectionElementType
        let children = element.children.filter { $0.namespace == ODataAtom.data }
        let isCollection =
            declared?.isCollection
            ?? (attribute?.hasPrefix("Collection(") == true
                || (!children.isEmpty && children.allSatisfy { $0.name == "element" }))
        if isCollection {
            // The elements of `Collection(T)` are of type T unless they say otherwise.
            var elementType = declared
            elementType?.isCollection = false
            let inner = attribute.flatMap { $0.hasPrefix("Collection(") ? String($0.dropFirst(11).dropLast()) : nil }
            let elements = try children.map {
                try json(ofProperty: $0, declared: elementType, collectionElementType: inner)
            }
            return ["results": .array(elements)]
        }
        let complex = declared.flatMap { metadata?.complexType(named: $0.name) }
        if !children.isEmpty || complex != nil {
            var object = JSONObject()
            if let attribute { object.append(key: "__metadata", value: ["type": .string(attribute)]) }
            let members = complex.map { metadata?.allProperties(of: $0) ?? $0.properties } ?? []
            for child in children {
                let type = members.first { $0.name == child.name }?.type
                object.append(key: child.name, value: try json(ofProperty: child, declared: type))
            }
            return .object(object)
        }
        let text = element.text
        // Typed by the metadata, the text is read as it is (exact, sub-millisecond precision kept).
        guard declared == nil else { return .string(text) }
        switch attribute {
        case "Edm.Int16", "Edm.Int32", "Edm.Int64", "Edm.Byte", "Edm.SByte":
            if let number = Int64(text.trimmingCharacters(in: .whitespaces)) { return .number(JSONNumber(number)) }
        case "Edm.Boolean":
            if text == "true" || text == "1" { return .bool(true) }
            if text == "false" || text == "0" { return .bool(false) }
        case "Edm.DateTime":
            if let date = ODataDateFormat.parseISO8601(text) { return .string(ODataDateFormat.v2JSONDate(date)) }
        case "Edm.DateTimeOffset":
            if let date = ODataDateFormat.parseISO8601(text) {
                return .string(ODataDateFormat.v2JSONDate(date, offsetMinutes: Self.offset(of: text)))
            }
        default: break
        }
        return .string(text)
    }

    /// An `href`, made absolute against `xml:base` when relative.
    static func href(of link: XElement, base: URL?, at location: String) throws -> String {
        guard let href = link.attribute("href"), !href.trimmingCharacters(in: .whitespaces).isEmpty else {
            throw shape("the link has no href", at: location)
        }
        return resolve(href, base: base)
    }

    static func resolve(_ reference: String, base: URL?) -> String {
        guard let base, !reference.contains("://"), let url = URL(string: reference, relativeTo: base) else {
            return reference
        }
        return url.absoluteString
    }

    /// The `xml:base` in force on an element.
    static func base(of element: XElement, inherited: URL?) -> URL? {
        guard let text = element.attribute("base", namespace: XNamespace.xml) else { return inherited }
        return URL(string: text, relativeTo: inherited)?.absoluteURL ?? inherited
    }
}
