public import SatchelJSON

/// An entity read from a service (or to send to one): its properties, typed per the metadata when known, and
/// its control information (id, type, ETag, links).
///
/// ```swift
/// for try await student in service.entities("StudentSet", query: .init().top(10)) {
///     print(student["LastName"]?.stringValue ?? "", student.etag ?? "-")
/// }
/// var new = ODataEntity(type: "ZADMISSIONS_SRV.Student")
/// new["FirstName"] = "Ada"
/// new["Visits"] = .entities([ODataEntity(properties: ["VisitNo": 1])])   // deep insert
/// ```
public struct ODataEntity: Sendable, Hashable {
    /// The structural properties, and expanded navigation properties as `.entity`/`.entities` values.
    public var properties: ODataProperties
    /// The entity's qualified type name (`__metadata.type`, `@odata.type` without `#`).
    public var type: String?
    /// V4 `@odata.id`, V2 `__metadata.uri` (or `id`).
    public var id: String?
    /// `@odata.etag`, `__metadata.etag`.
    public var etag: String?
    /// `@odata.editLink` (V2: `__metadata.uri`).
    public var editLink: String?
    /// `@odata.readLink` (V4), when sent.
    public var readLink: String?
    /// Media entities: where the content is read and edited, its type and ETag.
    public var mediaReadLink: String?
    /// Where a media entity's content is replaced (`@odata.mediaEditLink`, V2 `__metadata.edit_media`).
    public var mediaEditLink: String?
    /// The media content's type (`@odata.mediaContentType`, V2 `__metadata.content_type`).
    public var mediaContentType: String?
    /// The media content's ETag (`@odata.mediaEtag`, V2 `__metadata.media_etag`).
    public var mediaETag: String?
    /// Navigation property → URL of the related entities, when not expanded (V2 `__deferred`,
    /// V4 `@odata.navigationLink`).
    public var navigationLinks: [String: String]
    /// Links to send on create/update: navigation property → paths of existing entities (`People('russell')`),
    /// written as V4 `Nav@odata.bind` or V2 `__metadata.uri` references.
    public var bindings: [String: [String]]
    /// Navigation properties among ``bindings`` that are collection-valued: written as a list even with one path
    /// (V4 `Nav@odata.bind: [...]`); without metadata the writer cannot tell.
    public var collectionBindings: Set<String> = []
    /// Instance annotations other than the ones above (`@com.sap.vocabularies.Common.v1.Messages`, `Nav@odata.count`).
    public var annotations: [String: JSONValue]
    /// In a delta response: this entity was removed; the reason (`deleted`, `changed`) when given.
    public var removed: Removal?

    /// Why a delta response lists an entity as removed.
    public struct Removal: Sendable, Hashable {
        /// `deleted` or `changed` as a V4 service gives it (`@removed`, `$deletedEntity`); `deleted` for V2 removals;
        /// `nil` when not given.
        public var reason: String?
        /// A removal with an optional reason.
        public init(reason: String? = nil) { self.reason = reason }
    }

    /// An entity to send: its qualified type name (optional) and its properties; no control information.
    public init(type: String? = nil, properties: ODataProperties = ODataProperties()) {
        self.properties = properties
        self.type = type
        self.navigationLinks = [:]
        self.bindings = [:]
        self.annotations = [:]
    }

    /// An entity to send, without a type name.
    public init(properties: ODataProperties) { self.init(type: nil, properties: properties) }

    /// A property's value; `nil` when the entity has no such property. Setting `nil` removes the property.
    public subscript(name: String) -> ODataValue? {
        get { properties[name] }
        set { properties[name] = newValue }
    }

    /// Whether a delta response reports this entity as deleted.
    public var isRemoved: Bool { removed != nil }

    /// Adds a link to an existing entity for a create or update (`bind("School", to: "SchoolSet('S1')")`).
    public mutating func bind(_ navigationProperty: String, to path: String) {
        bindings[navigationProperty, default: []].append(path)
    }
}

/// A link a V4 delta response reports as added (`$link`) or removed (`$deletedLink`): from the entity with id
/// `source` through its navigation property `relationship` to the entity with id `target`.
public struct ODataLinkChange: Sendable, Hashable {
    /// The id of the entity the link starts from.
    public var source: String
    /// The navigation property.
    public var relationship: String
    /// The id of the linked entity.
    public var target: String
    /// Whether the link was removed (`$deletedLink`) rather than added (`$link`).
    public var removed: Bool

    /// A link change with the given parts.
    public init(source: String, relationship: String, target: String, removed: Bool) {
        self.source = source
        self.relationship = relationship
        self.target = target
        self.removed = removed
    }
}

/// One page of a collection: its entities and the control information around them.
public struct ODataPage: Sendable, Hashable {
    /// The entities of the page, in order.
    public var entities: [ODataEntity]
    /// Total count (`$count=true` / `$inlinecount=allpages`), when asked for.
    public var count: Int64?
    /// The next page (`@odata.nextLink`, `__next`).
    public var nextLink: String?
    /// The link for the next delta request (`@odata.deltaLink`, SAP's `__delta`).
    public var deltaLink: String?
    /// V4 `@odata.context`.
    public var context: String?
    /// The size of the response body the page was read from (0 when it was not read from a response).
    public var byteCount: Int = 0
    /// In a V4 delta response: links added (`$link`) and removed (`$deletedLink`) since the delta link's token.
    public var linkChanges: [ODataLinkChange] = []

    /// A page with the given parts; `byteCount` 0 and no link changes.
    public init(
        entities: [ODataEntity] = [], count: Int64? = nil, nextLink: String? = nil, deltaLink: String? = nil,
        context: String? = nil
    ) {
        self.entities = entities
        self.count = count
        self.nextLink = nextLink
        self.deltaLink = deltaLink
        self.context = context
    }
}
