public import Foundation
public import SatchelXML

/// An Atom entry a client posts (create) or puts (update): properties without an id, and optional inline content.
public struct AtomPubRequestEntry: Sendable, Hashable {
    /// Inline content of the entry: `cmisra:content` (base64) or a non-`src` `atom:content`.
    public struct Content: Sendable, Hashable {
        /// The content bytes, base64-decoded where the entry carried base64.
        public var data: Data
        /// The content's media type: `cmisra:mediatype`, or derived from `atom:content`'s `type`; `nil` when
        /// not given.
        public var mimeType: String?

        /// Content with these bytes and media type.
        public init(data: Data, mimeType: String?) {
            self.data = data
            self.mimeType = mimeType
        }
    }

    /// The entry's `atom:title`, trimmed, when present.
    public var title: String?
    /// The entry's `atom:summary`, trimmed, when present.
    public var summary: String?
    /// `cmisra:object`'s properties; empty when the entry has no `cmisra:object`.
    public var properties: Properties
    /// `cmis:policyIds` of the object.
    public var policyIds: [String]
    /// The inline content, when the entry carries some.
    public var content: Content?
    /// The `cmisra:object`, present or not (an entry that only carries content has none).
    public var hasObject: Bool
    /// A `cmisra:bulkUpdate` (posted to the bulk update collection).
    public var bulkUpdate: BulkUpdate?

    /// The objects, properties and secondary types of one bulk update.
    public struct BulkUpdate: Sendable, Hashable {
        /// The objects to update, each with the change token the client sent (if any), in document order.
        public var objects: [(id: String, changeToken: String?)]
        /// The properties to set on every object; empty when the update sets none.
        public var properties: Properties
        /// The secondary types to add to every object.
        public var addSecondaryTypeIds: [String]
        /// The secondary types to remove from every object.
        public var removeSecondaryTypeIds: [String]

        /// Equal when the objects (ids and change tokens, in order), properties and secondary type
        /// changes are equal.
        public static func == (lhs: BulkUpdate, rhs: BulkUpdate) -> Bool {
            lhs.objects.map(\.id) == rhs.objects.map(\.id)
                && lhs.objects.map(\.changeToken) == rhs.objects.map(\.changeToken) && lhs.properties == rhs.properties
                && lhs.addSecondaryTypeIds == rhs.addSecondaryTypeIds
                && lhs.removeSecondaryTypeIds == rhs.removeSecondaryTypeIds
        }

        /// Hashes the object ids and the secondary types to add, which `==` compares too.
        public func hash(into hasher: inout Hasher) {
            for object in objects { hasher.combine(object.id) }
            hasher.combine(addSecondaryTypeIds)
        }
    }

    /// An entry with these parts; `hasObject` defaults to `true`, and `bulkUpdate` starts as `nil`.
    public init(
        title: String? = nil, summary: String? = nil, properties: Properties = Properties(), policyIds: [String] = [],
        content: Content? = nil, hasObject: Bool = true
    ) {
        self.title = title
        self.summary = summary
        self.properties = properties
        self.policyIds = policyIds
        self.content = content
        self.hasObject = hasObject
    }
}

/// A `cmis:query` document.
public struct AtomPubQueryRequest: Sendable, Hashable {
    /// The CMIS QL statement (`cmis:statement`), trimmed; the parser rejects an empty one.
    public var statement: String
    /// Whether to search all versions, not only the latest; `false` when absent.
    public var searchAllVersions: Bool
    /// Whether results carry their allowable actions; `false` when absent.
    public var includeAllowableActions: Bool
    /// Which relationships each result carries (`cmis:includeRelationships`); `.none` when absent.
    public var includeRelationships: OperationContext.IncludeRelationships = .none
    /// Which renditions each result lists (`cmis:renditionFilter`); `nil` (none) when absent.
    public var renditionFilter: String?
    /// The most results to return; `nil` when absent.
    public var maxItems: Int?
    /// How many results to skip; `0` when absent, never negative.
    public var skipCount: Int
}

extension AtomPubParser {
    /// An entry a client sent (server side). Failures are `invalidArgument` (the client's mistake, 400).
    public static func requestEntry(
        _ data: Data, limits: XMLReadLimits = AtomPubParser.limits, typeDefinition: TypeLookup = { _ in nil }
    ) throws(CMISError) -> AtomPubRequestEntry {
        do {
            let element = try root(data, expecting: [("entry", atom)], limits: limits)
            var entry = AtomPubRequestEntry(
                title: element.child("title", namespace: atom)?.trimmedText,
                summary: element.child("summary", namespace: atom)?.trimmedText, hasObject: false)
            if let object = element.child("object", namespace: cmisra) {
                entry.hasObject = true
                let parsed = try self.object(
                    from: object, path: "/atom:entry/cmisra:object", types: typeDefinition, requireId: false,
                    depth: 0)
                entry.properties = parsed.properties
                entry.policyIds = parsed.policyIds
            }
            if let content = element.child("content", namespace: cmisra) {
                let base64 = content.child("base64", namespace: cmisra)?.text ?? ""
                guard let bytes = Data(base64Encoded: base64, options: .ignoreUnknownCharacters) else {
                    throw CMISError(.invalidArgument, "cmisra:base64 is not base64", path: "/atom:entry/cmisra:content")
                }
                entry.content = .init(data: bytes, mimeType: text(content, "mediatype", cmisra))
            } else if let content = element.child("content", namespace: atom), content.attribute("src") == nil {
                let type = content.attribute("type")
                switch type {
                case nil, "text", "html", "xhtml":
                    entry.content = .init(
                        data: Data(content.text.utf8), mimeType: type == "html" ? "text/html" : "text/plain")
                default:
                    // Any other media type is base64 (RFC 4287 4.1.3.3), except text/* and XML types.
                    if let type, type.hasPrefix("text/") || type.hasSuffix("+xml") || type.hasSuffix("/xml") {
                        entry.content = .init(data: Data(content.text.utf8), mimeType: type)
                    } else if let bytes = Data(base64Encoded: content.text, options: .ignoreUnknownCharacters) {
                        entry.content = .init(data: bytes, mimeType: type)
                    } else {
                        throw CMISError(
                            .invalidArgument, "atom:content is not base64", path: "/atom:entry/atom:content")
                    }
                }
            }
            if let bulk = element.child("bulkUpdate", namespace: cmisra) {
                let path = "/atom:entry/cmisra:bulkUpdate"
                var objects: [(id: String, changeToken: String?)] = []
                for item in bulk.children("objectIdAndChangeToken", namespace: cmis) {
                    guard let id = text(item, "id", cmis), !id.isEmpty else {
                        throw CMISError(.invalidArgument, "an objectIdAndChangeToken has no cmis:id", path: path)
                    }
                    objects.append((id, text(item, "changeToken", cmis)))
                }
                let properties = try bulk.child("properties", namespace: cmis).map {
                    try self.properties(from: $0, path: path + "/cmis:properties", types: typeDefinition)
                }
                entry.bulkUpdate = .init(
                    objects: objects, properties: properties ?? Properties(),
                    addSecondaryTypeIds: bulk.children("addSecondaryTypeIds", namespace: cmis).map(\.trimmedText),
                    removeSecondaryTypeIds: bulk.children("removeSecondaryTypeIds", namespace: cmis).map(\.trimmedText))
            }
            return entry
        } catch {
            throw invalidArgument(error)
        }
    }

    /// A `cmis:query` document (server side). Failures are `invalidArgument`.
    public static func queryRequest(
        _ data: Data, limits: XMLReadLimits = AtomPubParser.limits
    ) throws(CMISError)
        -> AtomPubQueryRequest
    {
        do {
            let element = try root(data, expecting: [("query", cmis)], limits: limits)
            guard let statement = element.child("statement", namespace: cmis)?.trimmedText, !statement.isEmpty else {
                throw missing("cmis:statement", in: "/cmis:query")
            }
            let skip = try int64(element, "skipCount", path: "/cmis:query") ?? 0
            let max = try int64(element, "maxItems", path: "/cmis:query")
            let relationships = element.child("includeRelationships", namespace: cmis)?.trimmedText ?? ""
            guard
                let includeRelationships = relationships.isEmpty
                    ? OperationContext.IncludeRelationships.none
                    : OperationContext.IncludeRelationships(rawValue: relationships)
            else {
                throw CMISError(
                    .invalidArgument, "cmis:includeRelationships must be none, source, target or both",
                    path: "/cmis:query/cmis:includeRelationships")
            }
            let renditionFilter = element.child("renditionFilter", namespace: cmis)?.trimmedText
            return AtomPubQueryRequest(
                statement: statement,
                searchAllVersions: try bool(element, "searchAllVersions", path: "/cmis:query") ?? false,
                includeAllowableActions: try bool(element, "includeAllowableActions", path: "/cmis:query") ?? false,
                includeRelationships: includeRelationships,
                renditionFilter: renditionFilter?.isEmpty == false ? renditionFilter : nil,
                maxItems: max.map { Int(clamping: $0) }, skipCount: Int(clamping: Swift.max(0, skip)))
        } catch {
            throw invalidArgument(error)
        }
    }

    /// A request the client got wrong: `invalidArgument`, keeping the reader's message and position.
    static func invalidArgument(_ error: any Error) -> CMISError {
        guard let error = error as? CMISError else { return CMISError(.invalidArgument, "\(error)", underlying: error) }
        var message = error.message
        if error.underlying is XMLReadError { message = message.replacingOccurrences(of: "AtomPub XML", with: "XML") }
        return CMISError(.invalidArgument, message, path: error.path, underlying: error.underlying)
    }
}
