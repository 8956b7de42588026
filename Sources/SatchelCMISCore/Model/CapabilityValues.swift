import Foundation

/// Open sets of capability values: a server may send a value this client does not know yet, so these are
/// string-backed structs rather than closed enums.
public protocol CapabilityValue: RawRepresentable, Sendable, Hashable where RawValue == String {
    init(rawValue: String)
}

/// `capabilityContentStreamUpdatability`.
public struct ContentStreamUpdatability: CapabilityValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let none = Self(rawValue: "none")
    public static let anytime = Self(rawValue: "anytime")
    public static let pwcOnly = Self(rawValue: "pwconly")
}

/// `capabilityChanges`.
public struct ChangesCapability: CapabilityValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let none = Self(rawValue: "none")
    public static let objectIdsOnly = Self(rawValue: "objectidsonly")
    public static let properties = Self(rawValue: "properties")
    public static let all = Self(rawValue: "all")
}

/// `capabilityRenditions`.
public struct RenditionsCapability: CapabilityValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let none = Self(rawValue: "none")
    public static let read = Self(rawValue: "read")
}

/// `capabilityOrderBy`.
public struct OrderByCapability: CapabilityValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let none = Self(rawValue: "none")
    public static let common = Self(rawValue: "common")
    public static let custom = Self(rawValue: "custom")
}

/// `capabilityQuery`.
public struct QueryCapability: CapabilityValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let none = Self(rawValue: "none")
    public static let metadataOnly = Self(rawValue: "metadataonly")
    public static let fulltextOnly = Self(rawValue: "fulltextonly")
    public static let bothSeparate = Self(rawValue: "bothseparate")
    public static let bothCombined = Self(rawValue: "bothcombined")
}

/// `capabilityJoin`.
public struct JoinCapability: CapabilityValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let none = Self(rawValue: "none")
    public static let innerOnly = Self(rawValue: "inneronly")
    public static let innerAndOuter = Self(rawValue: "innerandouter")
}

/// `capabilityACL`.
public struct ACLCapability: CapabilityValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let none = Self(rawValue: "none")
    public static let discover = Self(rawValue: "discover")
    public static let manage = Self(rawValue: "manage")
}

/// `supportedPermissions` of the ACL capabilities.
public struct SupportedPermissions: CapabilityValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let basic = Self(rawValue: "basic")
    public static let repository = Self(rawValue: "repository")
    public static let both = Self(rawValue: "both")
}

/// `propagation` of the ACL capabilities.
public struct ACLPropagation: CapabilityValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let repositoryDetermined = Self(rawValue: "repositorydetermined")
    public static let objectOnly = Self(rawValue: "objectonly")
    public static let propagate = Self(rawValue: "propagate")
}

/// `contentStreamAllowed` of a document type.
public struct ContentStreamAllowed: CapabilityValue {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public static let notAllowed = Self(rawValue: "notallowed")
    public static let allowed = Self(rawValue: "allowed")
    public static let required = Self(rawValue: "required")
}
