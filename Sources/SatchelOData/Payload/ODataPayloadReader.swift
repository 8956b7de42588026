public import Foundation
public import SatchelJSON

/// Reads OData JSON (V2 verbose, V4 minimal or full metadata) and OData V2 Atom XML into ``ODataEntity`` values,
/// typed by the metadata when it is known.
///
/// The V2 readers of bodies (`Data`) tell the formats apart by the body itself: one that starts with `<` is read
/// as Atom (a feed, an entry, or a property document), anything else as JSON. Both give the same values. V4 is
/// read as JSON only.
///
/// ```swift
/// let reader = ODataPayloadReader(version: .v2, metadata: metadata)
/// let page = try reader.page(from: body, entitySet: "StudentSet")
/// print(page.entities.count, page.count ?? -1, page.nextLink ?? "last page")
/// ```
public struct ODataPayloadReader: Sendable {
    /// The version whose JSON shape is read.
    public var version: ODataVersion
    /// The metadata that types the values; without it values stay JSON (except V2 dates and nested entities).
    public var metadata: ODataMetadata?

    /// A reader for `version`, typed by `metadata` when given.
    public init(version: ODataVersion, metadata: ODataMetadata? = nil) {
        self.version = version
        self.metadata = metadata
    }

    /// The key path of the entity array in a collection response.
    public var collectionPath: [String] { version == .v2 ? ["d", "results"] : ["value"] }

    // MARK: Documents

    /// A collection response: entities plus count, next link, delta link, context.
    public func page(from data: Data, entitySet: String? = nil) throws -> ODataPage {
        try page(from: data, type: entitySet.flatMap { metadata?.entityType(ofSet: $0) })
    }

    /// A collection response whose entities are of `type` (or derived from it).
    public func page(from data: Data, type: CSDLEntityType?) throws -> ODataPage {
        if version == .v2, ODataAtom.isXML(data) { return try atomPage(from: data, type: type) }
        return try page(from: Self.parse(data), type: type)
    }

    /// A collection response already parsed as JSON, its entities of `type` (or derived from it); untyped when
    /// `type` is nil. Throws `ODataError` `.invalidPayload`, with the JSON path, when the shape or a value is wrong.
    public func page(from document: JSONValue, type: CSDLEntityType?) throws -> ODataPage {
        var page = try envelope(document)
        let elements: [JSONValue]
        if version == .v2 {
            guard let d = document["d"] else { throw Self.shape("a V2 collection has no \"d\" member", at: "d") }
            // V1-style `{"d": [...]}` or V2 `{"d": {"results": [...]}}`.
            guard let array = d.arrayValue ?? d["results"]?.arrayValue else {
                throw Self.shape("a V2 collection has no \"results\" array", at: "d.results")
            }
            elements = array
            for (index, deleted) in (d["__deleted"]?.arrayValue ?? []).enumerated() {
                var entity = try self.entity(from: deleted, type: type, at: "d.__deleted[\(index)]")
                entity.removed = ODataEntity.Removal(reason: "deleted")
                page.entities.append(entity)
            }
        } else {
            guard let array = document["value"]?.arrayValue else {
                throw Self.shape("a V4 collection has no \"value\" array", at: "value")
            }
            elements = array
        }
        var entities: [ODataEntity] = []
        entities.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            // V4 delta payloads list added and deleted links among the entities.
            if version == .v4, let context = (element["@odata.context"] ?? element["@context"])?.stringValue,
                context.hasSuffix("/$link") || context.hasSuffix("/$deletedLink")
            {
                guard let source = element["source"]?.stringValue,
                    let relationship = element["relationship"]?.stringValue,
                    let target = element["target"]?.stringValue
                else {
                    throw Self.shape(
                        "a delta link needs source, relationship and target",
                        at: "\(collectionPath.joined(separator: "."))[\(index)]")
                }
                page.linkChanges.append(
                    ODataLinkChange(
                        source: source, relationship: relationship, target: target,
                        removed: context.hasSuffix("/$deletedLink")))
                continue
            }
            entities.append(
                try entity(from: element, type: type, at: "\(collectionPath.joined(separator: "."))[\(index)]"))
        }
        page.entities = entities + page.entities
        return page
    }

    /// The control information of a collection response without its entities (what `JSONArrayStream` leaves in
    /// its envelope). A next or delta link that is there but unreadable throws `.invalidPayload` with its path: it
    /// is never read as "no more pages".
    public func envelope(_ document: JSONValue) throws -> ODataPage {
        var page = ODataPage()
        if version == .v2 {
            let d = document["d"]
            page.nextLink = try Self.link(d?["__next"], at: "d.__next")
            page.deltaLink = try Self.link(d?["__delta"], at: "d.__delta")
            page.count = d?["__count"].flatMap { $0.int64Value ?? $0.stringValue.flatMap { Int64($0) } }
        } else {
            let next = document["@odata.nextLink"] == nil ? "@nextLink" : "@odata.nextLink"
            page.nextLink = try Self.link(document[next], at: next)
            let delta = document["@odata.deltaLink"] == nil ? "@deltaLink" : "@odata.deltaLink"
            page.deltaLink = try Self.link(document[delta], at: delta)
            page.count = (document["@odata.count"] ?? document["@count"]).flatMap {
                $0.int64Value ?? $0.stringValue.flatMap { Int64($0) }
            }
            page.context = document["@odata.context"]?.stringValue ?? document["@context"]?.stringValue
        }
        return page
    }

    /// A link member: absent or null is no link; a string is the link; an object with a `uri` string (how some V2
    /// services write `__next`, like a deferred link) is its `uri`. Anything else, an empty string included, throws:
    /// a link that cannot be read must not end the data.
    static func link(_ value: JSONValue?, at location: String) throws -> String? {
        guard let value, value != .null else { return nil }
        let link = value.stringValue ?? value["uri"]?.stringValue
        guard let link, !link.trimmingCharacters(in: .whitespaces).isEmpty else {
            let excerpt = String(decoding: value.serialized().prefix(120), as: UTF8.self)
            throw shape(
                "the link is neither a URL string nor an object with a \"uri\" string: \(excerpt)", at: location)
        }
        return link
    }

    /// A single-entity response (`{"d": {…}}` in V2, the entity object in V4).
    public func entity(from data: Data, entitySet: String? = nil) throws -> ODataEntity {
        try entity(from: data, type: entitySet.flatMap { metadata?.entityType(ofSet: $0) })
    }

    /// A single-entity response whose entity is of `type` (or derived from it).
    public func entity(from data: Data, type: CSDLEntityType?) throws -> ODataEntity {
        if version == .v2, ODataAtom.isXML(data) { return try atomEntity(from: data, type: type) }
        let document = try Self.parse(data)
        if version == .v2 {
            guard let d = document["d"] else { throw Self.shape("a V2 entity has no \"d\" member", at: "d") }
            // Function imports returning one entity wrap it in the function's name in some servers.
            return try entity(from: d["results"] ?? d, type: type, at: "d")
        }
        return try entity(from: document, type: type, at: "$")
    }

    /// A primitive, complex or collection value (`{"d": {"Name": …}}`, `{"value": …}`, a function's result).
    public func value(from data: Data, type: CSDLTypeReference? = nil) throws -> ODataValue {
        if version == .v2, ODataAtom.isXML(data) { return try atomValue(from: data, type: type) }
        let document = try Self.parse(data)
        var payload: JSONValue = document
        if version == .v2, let d = document["d"] {
            if let results = d["results"] {
                payload = results
            } else if let object = d.objectValue, object.count == 1, let only = object.values.first {
                payload = only
            } else {
                payload = d
            }
        } else if let value = document["value"] {
            payload = value
        }
        return try value(from: payload, type: type, at: "value")
    }

    static func parse(_ data: Data) throws -> JSONValue {
        do {
            return try JSONValue(parsing: data)
        } catch {
            // A JSONError names the byte, the line and column, and an excerpt.
            throw ODataError(.invalidPayload, "the response is not valid JSON: \(error)", underlying: error)
        }
    }

    static func shape(_ message: String, at location: String) -> ODataError {
        ODataError(.invalidPayload, message, location: location)
    }
}
