public import Foundation

/// A CMIS object (document, folder, item, policy, relationship) as a repository returned it.
///
/// The same value comes out of both bindings. Typed convenience accessors read the standard properties.
///
/// ```swift
/// let object = try BrowserParser.object(data)
/// print(object.id ?? "", object.name ?? "", object.baseType?.rawValue ?? "")
/// if object.baseType == .document { print(object.contentStreamLength ?? 0) }
/// ```
public struct CMISObject: Sendable, Hashable {
    /// The object's properties, keyed by property id (query results may key them by query name or alias).
    public var properties: Properties
    /// What the current user may do with the object; `nil` unless asked for (`includeAllowableActions`).
    public var allowableActions: AllowableActions?
    /// The object's access control list; `nil` unless asked for (`includeACL`).
    public var acl: ACL?
    /// The ids of the policies applied to the object; empty unless asked for (`includePolicyIds`).
    public var policyIds: [String]
    /// The object's renditions (thumbnails, previews); empty unless a rendition filter asked for them.
    public var renditions: [Rendition]
    /// Relationship objects of which this object is source or target, as `includeRelationships` asked.
    public var relationships: [CMISObject]
    /// Set for objects returned by `getContentChanges`.
    public var changeEventInfo: ChangeEventInfo?
    /// Repository-specific data.
    public var extensions: [CMISExtension]

    /// An object with these properties; everything else defaults to absent or empty.
    public init(
        properties: Properties, allowableActions: AllowableActions? = nil, acl: ACL? = nil,
        policyIds: [String] = [], renditions: [Rendition] = [], relationships: [CMISObject] = [],
        changeEventInfo: ChangeEventInfo? = nil, extensions: [CMISExtension] = []
    ) {
        self.properties = properties
        self.allowableActions = allowableActions
        self.acl = acl
        self.policyIds = policyIds
        self.renditions = renditions
        self.relationships = relationships
        self.changeEventInfo = changeEventInfo
        self.extensions = extensions
    }

    /// `cmis:objectId` (absent only in query results that did not select it).
    public var id: String? { properties["cmis:objectId"]?.stringValue }
    /// `cmis:name`.
    public var name: String? { properties["cmis:name"]?.stringValue }
    /// `cmis:objectTypeId`.
    public var objectTypeId: String? { properties["cmis:objectTypeId"]?.stringValue }
    /// `cmis:baseTypeId`, typed.
    public var baseType: BaseTypeId? { properties["cmis:baseTypeId"]?.stringValue.flatMap(BaseTypeId.init) }
    /// `cmis:secondaryObjectTypeIds`.
    public var secondaryObjectTypeIds: [String] { properties["cmis:secondaryObjectTypeIds"]?.stringValues ?? [] }
    /// `cmis:description`.
    public var objectDescription: String? { properties["cmis:description"]?.stringValue }
    /// `cmis:createdBy`.
    public var createdBy: String? { properties["cmis:createdBy"]?.stringValue }
    /// `cmis:creationDate`.
    public var creationDate: Date? { properties["cmis:creationDate"]?.dateValue }
    /// `cmis:lastModifiedBy`.
    public var lastModifiedBy: String? { properties["cmis:lastModifiedBy"]?.stringValue }
    /// `cmis:lastModificationDate`.
    public var lastModificationDate: Date? { properties["cmis:lastModificationDate"]?.dateValue }
    /// `cmis:changeToken`.
    public var changeToken: String? { properties["cmis:changeToken"]?.stringValue }
    /// Folders: `cmis:path`.
    public var path: String? { properties["cmis:path"]?.stringValue }
    /// Folders: `cmis:parentId`.
    public var parentId: String? { properties["cmis:parentId"]?.stringValue }
    /// Documents: `cmis:contentStreamLength`.
    public var contentStreamLength: Int64? { properties["cmis:contentStreamLength"]?.int64Value }
    /// Documents: `cmis:contentStreamMimeType`.
    public var contentStreamMimeType: String? { properties["cmis:contentStreamMimeType"]?.stringValue }
    /// Documents: `cmis:contentStreamFileName`.
    public var contentStreamFileName: String? { properties["cmis:contentStreamFileName"]?.stringValue }
    /// Documents: `cmis:versionSeriesId`.
    public var versionSeriesId: String? { properties["cmis:versionSeriesId"]?.stringValue }
    /// Documents: `cmis:versionLabel`.
    public var versionLabel: String? { properties["cmis:versionLabel"]?.stringValue }
    /// Documents: `cmis:isLatestVersion`.
    public var isLatestVersion: Bool? { properties["cmis:isLatestVersion"]?.boolValue }
    /// Documents: `cmis:isVersionSeriesCheckedOut`.
    public var isVersionSeriesCheckedOut: Bool? { properties["cmis:isVersionSeriesCheckedOut"]?.boolValue }
    /// Relationships: `cmis:sourceId`.
    public var sourceId: String? { properties["cmis:sourceId"]?.stringValue }
    /// Relationships: `cmis:targetId`.
    public var targetId: String? { properties["cmis:targetId"]?.stringValue }
}
