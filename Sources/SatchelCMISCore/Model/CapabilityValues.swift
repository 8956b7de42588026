import Foundation

/// Open sets of capability values: a server may send a value this client does not know yet, so these are
/// string-backed structs rather than closed enums.
public protocol CapabilityValue: RawRepresentable, Sendable, Hashable where RawValue == String {
    /// The value with this wire form; any string is accepted, known or not.
    init(rawValue: String)
}

/// `capabilityContentStreamUpdatability`.
public struct ContentStreamUpdatability: CapabilityValue {
    /// The value as the repository sends it.
    public let rawValue: String
    /// The value with this wire form; values this type does not list are kept as they are.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// `none`: content can never be updated.
    public static let none = Self(rawValue: "none")
    /// `anytime`: content can be updated at any time.
    public static let anytime = Self(rawValue: "anytime")
    /// `pwconly`: content can be updated only on a private working copy.
    public static let pwcOnly = Self(rawValue: "pwconly")
}

/// `capabilityChanges`.
public struct ChangesCapability: CapabilityValue {
    /// The value as the repository sends it.
    public let rawValue: String
    /// The value with this wire form; values this type does not list are kept as they are.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// `none`: the repository keeps no change log.
    public static let none = Self(rawValue: "none")
    /// `objectidsonly`: the change log holds only object ids and change types.
    public static let objectIdsOnly = Self(rawValue: "objectidsonly")
    /// `properties`: the change log also holds the changed properties.
    public static let properties = Self(rawValue: "properties")
    /// `all`: the change log returns the changed objects' ids and more about each change.
    public static let all = Self(rawValue: "all")
}

/// `capabilityRenditions`.
public struct RenditionsCapability: CapabilityValue {
    /// The value as the repository sends it.
    public let rawValue: String
    /// The value with this wire form; values this type does not list are kept as they are.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// `none`: the repository has no renditions.
    public static let none = Self(rawValue: "none")
    /// `read`: renditions can be read.
    public static let read = Self(rawValue: "read")
}

/// `capabilityOrderBy`.
public struct OrderByCapability: CapabilityValue {
    /// The value as the repository sends it.
    public let rawValue: String
    /// The value with this wire form; values this type does not list are kept as they are.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// `none`: lists cannot be ordered.
    public static let none = Self(rawValue: "none")
    /// `common`: lists can be ordered by the common CMIS properties.
    public static let common = Self(rawValue: "common")
    /// `custom`: lists can be ordered by the common CMIS properties and the types' own properties.
    public static let custom = Self(rawValue: "custom")
}

/// `capabilityQuery`.
public struct QueryCapability: CapabilityValue {
    /// The value as the repository sends it.
    public let rawValue: String
    /// The value with this wire form; values this type does not list are kept as they are.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// `none`: no queries.
    public static let none = Self(rawValue: "none")
    /// `metadataonly`: queries on properties only.
    public static let metadataOnly = Self(rawValue: "metadataonly")
    /// `fulltextonly`: full-text queries only.
    public static let fulltextOnly = Self(rawValue: "fulltextonly")
    /// `bothseparate`: property and full-text queries, but not in one statement.
    public static let bothSeparate = Self(rawValue: "bothseparate")
    /// `bothcombined`: property and full-text conditions in one statement.
    public static let bothCombined = Self(rawValue: "bothcombined")
}

/// `capabilityJoin`.
public struct JoinCapability: CapabilityValue {
    /// The value as the repository sends it.
    public let rawValue: String
    /// The value with this wire form; values this type does not list are kept as they are.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// `none`: no joins.
    public static let none = Self(rawValue: "none")
    /// `inneronly`: inner joins only.
    public static let innerOnly = Self(rawValue: "inneronly")
    /// `innerandouter`: inner and outer joins.
    public static let innerAndOuter = Self(rawValue: "innerandouter")
}

/// `capabilityACL`.
public struct ACLCapability: CapabilityValue {
    /// The value as the repository sends it.
    public let rawValue: String
    /// The value with this wire form; values this type does not list are kept as they are.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// `none`: ACLs can be neither read nor changed.
    public static let none = Self(rawValue: "none")
    /// `discover`: ACLs can be read.
    public static let discover = Self(rawValue: "discover")
    /// `manage`: ACLs can be read and changed.
    public static let manage = Self(rawValue: "manage")
}

/// `supportedPermissions` of the ACL capabilities.
public struct SupportedPermissions: CapabilityValue {
    /// The value as the repository sends it.
    public let rawValue: String
    /// The value with this wire form; values this type does not list are kept as they are.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// `basic`: only the CMIS basic permissions (`cmis:read`, `cmis:write`, `cmis:all`).
    public static let basic = Self(rawValue: "basic")
    /// `repository`: only the repository's own permissions.
    public static let repository = Self(rawValue: "repository")
    /// `both`: the basic and the repository's own permissions.
    public static let both = Self(rawValue: "both")
}

/// `propagation` of the ACL capabilities.
public struct ACLPropagation: CapabilityValue {
    /// The value as the repository sends it.
    public let rawValue: String
    /// The value with this wire form; values this type does not list are kept as they are.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// `repositorydetermined`: the repository decides how ACL changes spread.
    public static let repositoryDetermined = Self(rawValue: "repositorydetermined")
    /// `objectonly`: an ACL change applies to the object alone.
    public static let objectOnly = Self(rawValue: "objectonly")
    /// `propagate`: an ACL change spreads to objects that inherit from this one.
    public static let propagate = Self(rawValue: "propagate")
}

/// `contentStreamAllowed` of a document type.
public struct ContentStreamAllowed: CapabilityValue {
    /// The value as the repository sends it.
    public let rawValue: String
    /// The value with this wire form; values this type does not list are kept as they are.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// `notallowed`: documents of the type have no content.
    public static let notAllowed = Self(rawValue: "notallowed")
    /// `allowed`: documents of the type may have content.
    public static let allowed = Self(rawValue: "allowed")
    /// `required`: documents of the type must have content.
    public static let required = Self(rawValue: "required")
}
