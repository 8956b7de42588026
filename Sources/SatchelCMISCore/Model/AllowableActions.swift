import Foundation

/// The name of an action a user may perform on an object (`canGetChildren` …).
public struct AllowableAction: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }
    public init(stringLiteral value: String) { rawValue = value }

    public static let deleteObject = Self(rawValue: "canDeleteObject")
    public static let updateProperties = Self(rawValue: "canUpdateProperties")
    public static let getFolderTree = Self(rawValue: "canGetFolderTree")
    public static let getProperties = Self(rawValue: "canGetProperties")
    public static let getObjectRelationships = Self(rawValue: "canGetObjectRelationships")
    public static let getObjectParents = Self(rawValue: "canGetObjectParents")
    public static let getFolderParent = Self(rawValue: "canGetFolderParent")
    public static let getDescendants = Self(rawValue: "canGetDescendants")
    public static let moveObject = Self(rawValue: "canMoveObject")
    public static let deleteContentStream = Self(rawValue: "canDeleteContentStream")
    public static let checkOut = Self(rawValue: "canCheckOut")
    public static let cancelCheckOut = Self(rawValue: "canCancelCheckOut")
    public static let checkIn = Self(rawValue: "canCheckIn")
    public static let setContentStream = Self(rawValue: "canSetContentStream")
    public static let getAllVersions = Self(rawValue: "canGetAllVersions")
    public static let addObjectToFolder = Self(rawValue: "canAddObjectToFolder")
    public static let removeObjectFromFolder = Self(rawValue: "canRemoveObjectFromFolder")
    public static let getContentStream = Self(rawValue: "canGetContentStream")
    public static let applyPolicy = Self(rawValue: "canApplyPolicy")
    public static let getAppliedPolicies = Self(rawValue: "canGetAppliedPolicies")
    public static let removePolicy = Self(rawValue: "canRemovePolicy")
    public static let getChildren = Self(rawValue: "canGetChildren")
    public static let createDocument = Self(rawValue: "canCreateDocument")
    public static let createFolder = Self(rawValue: "canCreateFolder")
    public static let createRelationship = Self(rawValue: "canCreateRelationship")
    public static let createItem = Self(rawValue: "canCreateItem")
    public static let deleteTree = Self(rawValue: "canDeleteTree")
    public static let getRenditions = Self(rawValue: "canGetRenditions")
    public static let getACL = Self(rawValue: "canGetACL")
    public static let applyACL = Self(rawValue: "canApplyACL")
}

/// The actions the current user may perform on an object: the set of actions the repository reported `true`.
///
/// ```swift
/// if object.allowableActions?.canGetChildren == true { … }
/// object.allowableActions?.contains(.checkOut)
/// ```
public struct AllowableActions: Sendable, Hashable {
    /// The allowed actions.
    public var actions: Set<AllowableAction>

    public init(_ actions: Set<AllowableAction> = []) { self.actions = actions }

    /// Whether `action` is allowed.
    public func contains(_ action: AllowableAction) -> Bool { actions.contains(action) }

    public var canGetChildren: Bool { contains(.getChildren) }
    public var canGetDescendants: Bool { contains(.getDescendants) }
    public var canGetProperties: Bool { contains(.getProperties) }
    public var canUpdateProperties: Bool { contains(.updateProperties) }
    public var canDeleteObject: Bool { contains(.deleteObject) }
    public var canGetContentStream: Bool { contains(.getContentStream) }
    public var canSetContentStream: Bool { contains(.setContentStream) }
    public var canCreateDocument: Bool { contains(.createDocument) }
    public var canCreateFolder: Bool { contains(.createFolder) }
    public var canMoveObject: Bool { contains(.moveObject) }
    public var canCheckOut: Bool { contains(.checkOut) }
    public var canCheckIn: Bool { contains(.checkIn) }
    public var canGetACL: Bool { contains(.getACL) }
    public var canApplyACL: Bool { contains(.applyACL) }
}
