import Foundation

/// The optional features a repository supports (CMIS 1.1 part I, 2.1.1.1). `nil` means "not reported".
///
/// ```swift
/// if info.capabilities.getDescendants == true { … }
/// info.capabilities.query == .bothCombined
/// ```
public struct RepositoryCapabilities: Sendable, Hashable {
    /// When document content may be replaced (`capabilityContentStreamUpdatability`).
    public var contentStreamUpdatability: ContentStreamUpdatability?
    /// What the change log records (`capabilityChanges`).
    public var changes: ChangesCapability?
    /// Whether renditions can be read (`capabilityRenditions`).
    public var renditions: RenditionsCapability?
    /// Whether `getDescendants` is supported (`capabilityGetDescendants`).
    public var getDescendants: Bool?
    /// Whether `getFolderTree` is supported (`capabilityGetFolderTree`).
    public var getFolderTree: Bool?
    /// Which properties lists can be ordered by (`capabilityOrderBy`).
    public var orderBy: OrderByCapability?
    /// Whether an object can be filed in more than one folder (`capabilityMultifiling`).
    public var multifiling: Bool?
    /// Whether an object can be in no folder at all (`capabilityUnfiling`).
    public var unfiling: Bool?
    /// Whether single versions of a document can be filed (`capabilityVersionSpecificFiling`).
    public var versionSpecificFiling: Bool?
    /// Whether queries can find private working copies (`capabilityPWCSearchable`).
    public var pwcSearchable: Bool?
    /// Whether private working copies can be updated (`capabilityPWCUpdatable`).
    public var pwcUpdatable: Bool?
    /// Whether queries can search all versions, not only the latest (`capabilityAllVersionsSearchable`).
    public var allVersionsSearchable: Bool?
    /// What kind of queries are supported (`capabilityQuery`).
    public var query: QueryCapability?
    /// What joins queries may use (`capabilityJoin`).
    public var join: JoinCapability?
    /// Whether ACLs can be read or changed (`capabilityACL`).
    public var acl: ACLCapability?
    /// The property types a new type may use (CMIS 1.1 type mutability).
    public var creatablePropertyTypes: [PropertyType]?
    /// Which attributes a new type may set (CMIS 1.1 type mutability).
    public var newTypeSettableAttributes: NewTypeSettableAttributes?

    /// Capabilities with nothing reported.
    public init() {}
}

/// `capabilityNewTypeSettableAttributes`: which type attributes `createType` lets a client set.
public struct NewTypeSettableAttributes: Sendable, Hashable {
    /// Whether a new type may set `id`; `nil` when not reported.
    public var id: Bool?
    /// Whether a new type may set `localName`; `nil` when not reported.
    public var localName: Bool?
    /// Whether a new type may set `localNamespace`; `nil` when not reported.
    public var localNamespace: Bool?
    /// Whether a new type may set `displayName`; `nil` when not reported.
    public var displayName: Bool?
    /// Whether a new type may set `queryName`; `nil` when not reported.
    public var queryName: Bool?
    /// Whether a new type may set `description`; `nil` when not reported.
    public var description: Bool?
    /// Whether a new type may set `creatable`; `nil` when not reported.
    public var creatable: Bool?
    /// Whether a new type may set `fileable`; `nil` when not reported.
    public var fileable: Bool?
    /// Whether a new type may set `queryable`; `nil` when not reported.
    public var queryable: Bool?
    /// Whether a new type may set `fulltextIndexed`; `nil` when not reported.
    public var fulltextIndexed: Bool?
    /// Whether a new type may set `includedInSupertypeQuery`; `nil` when not reported.
    public var includedInSupertypeQuery: Bool?
    /// Whether a new type may set `controllablePolicy`; `nil` when not reported.
    public var controllablePolicy: Bool?
    /// Whether a new type may set `controllableACL`; `nil` when not reported.
    public var controllableACL: Bool?

    /// Attributes with nothing reported.
    public init() {}
}
