public import Foundation
package import SatchelXML

extension AtomPubParser {
    /// An `atom:entry` with a `cmisra:object`, and its links.
    public static func entry(_ data: Data, typeDefinition: TypeLookup = { _ in nil }) throws -> AtomPubEntry {
        let element = try root(data, expecting: [("entry", atom)])
        return try entry(from: element, path: "/atom:entry", types: typeDefinition, requireId: true, depth: 0)
    }

    /// The CMIS object of an `atom:entry`.
    public static func object(_ data: Data, typeDefinition: TypeLookup = { _ in nil }) throws -> CMISObject {
        try entry(data, typeDefinition: typeDefinition).object
    }

    /// An `atom:feed` of object entries with its links and `cmisra:numItems`.
    public static func feed(_ data: Data, typeDefinition: TypeLookup = { _ in nil }) throws -> AtomPubFeed {
        try feed(data, types: typeDefinition, requireId: true)
    }

    /// A children feed.
    public static func children(_ data: Data, typeDefinition: TypeLookup = { _ in nil }) throws -> ObjectInFolderList {
        let feed = try flatFeed(data, types: typeDefinition, requireId: true)
        return ObjectInFolderList(
            objects: feed.entries.map { ObjectInFolder(object: $0.object, pathSegment: $0.pathSegment) },
            hasMoreItems: feed.hasMoreItems, numItems: feed.numItems)
    }

    /// A query result feed (objects need not carry `cmis:objectId`).
    public static func queryResults(_ data: Data, typeDefinition: TypeLookup = { _ in nil }) throws -> ObjectList {
        let feed = try flatFeed(data, types: typeDefinition, requireId: false)
        return ObjectList(objects: feed.entries.map(\.object), hasMoreItems: feed.hasMoreItems, numItems: feed.numItems)
    }

    /// Any other object feed (checked out, versions, relationships, policies, unfiled).
    public static func objectList(_ data: Data, typeDefinition: TypeLookup = { _ in nil }) throws -> ObjectList {
        let feed = try flatFeed(data, types: typeDefinition, requireId: true)
        return ObjectList(objects: feed.entries.map(\.object), hasMoreItems: feed.hasMoreItems, numItems: feed.numItems)
    }

    /// A descendants or folder tree feed: entries nest their children in `cmisra:children` feeds.
    public static func descendants(_ data: Data, typeDefinition: TypeLookup = { _ in nil }) throws -> [ContainerNode] {
        func node(_ entry: AtomPubEntry) -> ContainerNode {
            ContainerNode(
                item: ObjectInFolder(object: entry.object, pathSegment: entry.pathSegment),
                children: entry.children.map(node))
        }
        return try feed(data, types: typeDefinition, requireId: true).entries.map(node)
    }

    /// A feed whose entries hold no nested feeds (children, query results, other lists), read entry by entry:
    /// each entry becomes an object as soon as it ends, so the whole feed's element tree never exists at once.
    static func flatFeed(_ data: Data, types: TypeLookup, requireId: Bool) throws -> AtomPubFeed {
        var entries: [AtomPubEntry] = []
        let reader = XMLStreamReader(splittingAt: "entry", namespace: atom, limits: limits, topLevelOnly: true)
        let skeleton = try readingXML {
            try reader.read(data: data) { element in
                entries.append(
                    try entry(
                        from: element, path: "/atom:feed/atom:entry[\(entries.count + 1)]", types: types,
                        requireId: requireId, depth: 0))
            }.root
        }
        try check(skeleton, isOneOf: [("feed", atom)])
        return AtomPubFeed(
            entries: entries, numItems: try int64(skeleton, "numItems", cmisra, path: "/atom:feed"),
            links: links(of: skeleton), changeLogToken: changeLogToken(of: skeleton))
    }

    package static func feed(_ data: Data, types: TypeLookup, requireId: Bool) throws -> AtomPubFeed {
        let element = try root(data, expecting: [("feed", atom)])
        return try feed(from: element, path: "/atom:feed", types: types, requireId: requireId, depth: 0)
    }

    package static func feed(
        from element: XElement, path: String, types: TypeLookup, requireId: Bool, depth: Int
    ) throws -> AtomPubFeed {
        AtomPubFeed(
            entries: try element.children("entry", namespace: atom).enumerated().map { index, entry in
                try self.entry(
                    from: entry, path: path + "/atom:entry[\(index + 1)]", types: types, requireId: requireId,
                    depth: depth)
            },
            numItems: try int64(element, "numItems", cmisra, path: path),
            links: links(of: element), changeLogToken: changeLogToken(of: element))
    }

    /// A feed's own `changeLogToken` element, in whatever namespace the server puts it (trimmed; nil when empty).
    static func changeLogToken(of feed: XElement) -> String? {
        let token = feed.child("changeLogToken")?.text.trimmingCharacters(in: .whitespacesAndNewlines)
        return token?.isEmpty == false ? token : nil
    }

    package static func entry(
        from element: XElement, path: String, types: TypeLookup, requireId: Bool, depth: Int
    ) throws -> AtomPubEntry {
        guard let objectElement = element.child("object", namespace: cmisra) else {
            throw missing("cmisra:object", in: path)
        }
        var object = try self.object(
            from: objectElement, path: path + "/cmisra:object", types: types, requireId: requireId, depth: depth)
        let links = links(of: element)
        if object.renditions.isEmpty { object.renditions = renditions(linkedBy: links) }
        var children: [AtomPubEntry] = []
        if let nested = element.child("children", namespace: cmisra)?.child("feed", namespace: atom) {
            guard depth < 64 else { throw CMISError(.invalidResponse, "children nest too deeply", path: path) }
            children = try feed(
                from: nested, path: path + "/cmisra:children/atom:feed", types: types, requireId: requireId,
                depth: depth + 1
            ).entries
        }
        return AtomPubEntry(
            object: object, links: links, pathSegment: text(element, "pathSegment", cmisra), children: children)
    }

    /// Renditions an entry gives only as `alternate` links with a `cmisra:renditionKind` (servers list them so
    /// even when the object carries no `cmis:rendition`): the stream id is the link's `streamId` query item, else
    /// `alternate-N` for the entry's Nth rendition link (never the link itself, which names the server).
    static func renditions(linkedBy links: AtomPubLinks) -> [Rendition] {
        links.alternates.filter { $0.renditionKind != nil }.enumerated().map { index, link in
            let kind = link.renditionKind
            let streamId =
                URLComponents(string: link.href)?.queryItems?.first { $0.name == "streamId" }?.value
                ?? "alternate-\(index + 1)"
            var rendition = Rendition(
                streamId: streamId, mimeType: link.type,
                length: link.attributes["length"].flatMap { Int64($0) }
                    .flatMap { $0 >= 0 ? $0 : nil }, kind: kind)
            rendition.title = link.attributes["title"]
            return rendition
        }
    }

    static func object(
        from element: XElement, path: String, types: TypeLookup, requireId: Bool, depth: Int
    ) throws -> CMISObject {
        let properties =
            try element.child("properties", namespace: cmis).map {
                try self.properties(from: $0, path: path + "/cmis:properties", types: types)
            } ?? Properties()
        if requireId, properties["cmis:objectId"]?.stringValue == nil {
            throw CMISError(.invalidResponse, "the object has no cmis:objectId", path: path)
        }
        var object = CMISObject(properties: properties)
        if let actions = element.child("allowableActions", namespace: cmis) {
            object.allowableActions = try allowableActions(from: actions, path: path + "/cmis:allowableActions")
        }
        if let acl = element.child("acl", namespace: cmis) {
            object.acl = try self.acl(
                from: acl, isExact: try bool(element, "exactACL", path: path), path: path + "/cmis:acl")
        }
        object.policyIds = element.child("policyIds", namespace: cmis).map { texts($0, "id") } ?? []
        object.renditions = try element.children("rendition", namespace: cmis).enumerated().map { index, rendition in
            try self.rendition(from: rendition, path: path + "/cmis:rendition[\(index + 1)]")
        }
        let relationships = element.children("relationship", namespace: cmis)
        if !relationships.isEmpty {
            guard depth < 16 else { throw CMISError(.invalidResponse, "relationships nest too deeply", path: path) }
            object.relationships = try relationships.enumerated().map { index, relationship in
                try self.object(
                    from: relationship, path: path + "/cmis:relationship[\(index + 1)]", types: types,
                    requireId: requireId, depth: depth + 1)
            }
        }
        if let info = element.child("changeEventInfo", namespace: cmis) {
            guard let type = text(info, "changeType") else { throw missing("cmis:changeType", in: path) }
            object.changeEventInfo = ChangeEventInfo(
                changeType: ChangeType(rawValue: type),
                changeTime: try text(info, "changeTime").map { try dateValue($0, path: path + "/cmis:changeTime") })
        }
        object.extensions = extensions(of: element)
        return object
    }

    /// A standalone `cmis:allowableActions` document.
    public static func allowableActions(_ data: Data) throws -> AllowableActions {
        let element = try root(data, expecting: [("allowableActions", cmis)])
        return try allowableActions(from: element, path: "/cmis:allowableActions")
    }

    /// A standalone `cmis:acl` document.
    public static func acl(_ data: Data) throws -> ACL {
        let element = try root(data, expecting: [("acl", cmis)])
        return try acl(from: element, isExact: nil, path: "/cmis:acl")
    }

    static func allowableActions(from element: XElement, path: String) throws -> AllowableActions {
        var actions = Set<AllowableAction>()
        for child in element.children where child.namespace == cmis && child.name.hasPrefix("can") {
            if try boolValue(child.trimmedText, path: path + "/cmis:" + child.name) {
                actions.insert(AllowableAction(rawValue: child.name))
            }
        }
        return AllowableActions(actions)
    }

    static func acl(from element: XElement, isExact: Bool?, path: String) throws -> ACL {
        ACL(
            aces: try element.children("permission", namespace: cmis).enumerated().map { index, ace in
                let acePath = path + "/cmis:permission[\(index + 1)]"
                guard let principal = ace.child("principal", namespace: cmis).flatMap({ text($0, "principalId") })
                else { throw missing("cmis:principalId", in: acePath) }
                return ACE(
                    principalId: principal, permissions: texts(ace, "permission"),
                    isDirect: try bool(ace, "direct", path: acePath) ?? true)
            },
            isExact: isExact)
    }

    static func rendition(from element: XElement, path: String) throws -> Rendition {
        guard let streamId = text(element, "streamId") else { throw missing("cmis:streamId", in: path) }
        var rendition = Rendition(
            streamId: streamId, mimeType: text(element, "mimetype"), length: try int64(element, "length", path: path),
            kind: text(element, "kind"))
        rendition.title = text(element, "title")
        rendition.height = try int64(element, "height", path: path)
        rendition.width = try int64(element, "width", path: path)
        rendition.renditionDocumentId = text(element, "renditionDocumentId")
        return rendition
    }

    static let propertyElementTypes: [String: PropertyType] = [
        "propertyString": .string, "propertyId": .id, "propertyInteger": .integer, "propertyDecimal": .decimal,
        "propertyDateTime": .datetime, "propertyBoolean": .boolean, "propertyUri": .uri, "propertyHtml": .html,
    ]

    /// `cmis:properties`: typed by element name; the cardinality comes from the type definition, the standard
    /// property table, or the number of values.
    static func properties(from element: XElement, path: String, types: TypeLookup) throws -> Properties {
        var raw: [(XElement, PropertyType, String)] = []
        for (index, child) in element.children.enumerated() where child.namespace == cmis {
            guard let type = propertyElementTypes[child.name] else { continue }
            guard let id = child.attribute("propertyDefinitionId") else {
                throw missing("propertyDefinitionId", in: path + "/cmis:\(child.name)[\(index + 1)]")
            }
            raw.append((child, type, id))
        }
        var definitions: [TypeDefinition] = []
        if let typeId = raw.first(where: { $0.2 == "cmis:objectTypeId" })?.0.child("value", namespace: cmis)?
            .trimmedText, let type = types(typeId)
        {
            definitions.append(type)
        }
        if let secondary = raw.first(where: { $0.2 == "cmis:secondaryObjectTypeIds" }) {
            definitions += texts(secondary.0, "value").compactMap(types)
        }
        var properties: [CMISProperty] = []
        properties.reserveCapacity(raw.count)
        for (child, type, id) in raw {
            // Built only for an error: an entry has dozens of properties, a feed thousands of entries.
            func propertyPath() -> String { path + "/cmis:\(child.name)[@propertyDefinitionId='\(id)']" }
            // String and HTML values keep their whitespace; the other lexical forms are trimmed.
            let values = try child.children("value", namespace: cmis).map {
                try propertyValue(
                    type == .string || type == .html ? $0.text : $0.trimmedText, type: type, path: propertyPath())
            }
            let cardinality: Cardinality
            if let (type, position) = definitions.propertyPosition(id: id) {
                cardinality = definitions[type].propertyDefinitions[position].cardinality
            } else if let standard = BrowserParser.standardProperties[id] {
                cardinality = values.count > 1 ? .multi : standard.1
            } else {
                cardinality = values.count > 1 ? .multi : .single
            }
            properties.append(
                CMISProperty(
                    id: id, type: type, cardinality: cardinality, values: values,
                    localName: child.attribute("localName"), displayName: child.attribute("displayName"),
                    queryName: child.attribute("queryName")))
        }
        // A later property with the same id replaces an earlier one, as setting them one by one did.
        return Properties(properties)
    }

    static func propertyValue(
        _ text: String, type: PropertyType, path: @autoclosure () -> String
    ) throws -> PropertyValue {
        switch type {
        case .string: return .string(text)
        case .id: return .id(text)
        case .uri: return .uri(text)
        case .html: return .html(text)
        case .boolean: return .boolean(try boolValue(text, path: path()))
        case .integer: return .integer(try int64Value(text, path: path()))
        case .decimal: return .decimal(try decimalValue(text, path: path()))
        case .datetime: return .datetime(try dateValue(text, path: path()))
        }
    }
}
