import Foundation

/// The optional features a repository supports (CMIS 1.1 part I, 2.1.1.1). `nil` means "not reported".
///
/// ```swift
/// if info.capabilities.getDescendants == true { … }
/// info.capabilities.query == .bothCombined
/// ```
public struct RepositoryCapabilities: Sendable, Hashable {
    public var contentStreamUpdatability: ContentStreamUpdatability?
    public var changes: ChangesCapability?
    public var renditions: RenditionsCapability?
    public var getDescendants: Bool?
    public var getFolderTree: Bool?
    public var orderBy: OrderByCapability?
    public var multifiling: Bool?
    public var unfiling: Bool?
    public var versionSpecificFiling: Bool?
    public var pwcSearchable: Bool?
    public var pwcUpdatable: Bool?
    public var allVersionsSearchable: Bool?
    public var query: QueryCapability?
    public var join: JoinCapability?
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
    public var id: Bool?
    public var localName: Bool?
    public var localNamespace: Bool?
    public var displayName: Bool?
    public var queryName: Bool?
    public var description: Bool?
    public var creatable: Bool?
    public var fileable: Bool?
    public var queryable: Bool?
    public var fulltextIndexed: Bool?
    public var includedInSupertypeQuery: Bool?
    public var controllablePolicy: Bool?
    public var controllableACL: Bool?

    /// Attributes with nothing reported.
    public init() {}
}
