import Foundation

/// The name of an action a user may perform on an object (`canGetChildren` …).
public struct AllowableAction: RawRepresentable, Sendable, Hashable, ExpressibleByStringLiteral {
    /// The action's name as the bindings send it (`canGetChildren`).
    public let rawValue: String
    /// The action with this name; names this type does not list are kept as they are.
    public init(rawValue: String) { self.rawValue = rawValue }
    /// The action with this name, from a string literal (`"canGetChildren"`).
    public init(stringLiteral value: String) { rawValue = value }

    /// `canDeleteObject`: delete the object.
    public static let deleteObject = Self(rawValue: "canDeleteObject")
    /// `canUpdateProperties`: change the object's properties.
    public static let updateProperties = Self(rawValue: "canUpdateProperties")
    /// `canGetFolderTree`: read the folder's subfolder tree.
    public static let getFolderTree = Self(rawValue: "canGetFolderTree")
    /// `canGetProperties`: read the object's properties.
    public static let getProperties = Self(rawValue: "canGetProperties")
    /// `canGetObjectRelationships`: list the object's relationships.
    public static let getObjectRelationships = Self(rawValue: "canGetObjectRelationships")
    /// `canGetObjectParents`: list the object's parent folders.
    public static let getObjectParents = Self(rawValue: "canGetObjectParents")
    /// `canGetFolderParent`: read the folder's parent.
    public static let getFolderParent = Self(rawValue: "canGetFolderParent")
    /// `canGetDescendants`: read the folder's descendants.
    public static let getDescendants = Self(rawValue: "canGetDescendants")
    /// `canMoveObject`: move the object to another folder.
    public static let moveObject = Self(rawValue: "canMoveObject")
    /// `canDeleteContentStream`: remove the document's content.
    public static let deleteContentStream = Self(rawValue: "canDeleteContentStream")
    /// `canCheckOut`: check the document out.
    public static let checkOut = Self(rawValue: "canCheckOut")
    /// `canCancelCheckOut`: cancel the document's check-out.
    public static let cancelCheckOut = Self(rawValue: "canCancelCheckOut")
    /// `canCheckIn`: check the private working copy in.
    public static let checkIn = Self(rawValue: "canCheckIn")
    /// `canSetContentStream`: replace the document's content.
    public static let setContentStream = Self(rawValue: "canSetContentStream")
    /// `canGetAllVersions`: list the document's versions.
    public static let getAllVersions = Self(rawValue: "canGetAllVersions")
    /// `canAddObjectToFolder`: file the object in another folder too (multi-filing).
    public static let addObjectToFolder = Self(rawValue: "canAddObjectToFolder")
    /// `canRemoveObjectFromFolder`: unfile the object from a folder.
    public static let removeObjectFromFolder = Self(rawValue: "canRemoveObjectFromFolder")
    /// `canGetContentStream`: read the document's content.
    public static let getContentStream = Self(rawValue: "canGetContentStream")
    /// `canApplyPolicy`: apply a policy to the object.
    public static let applyPolicy = Self(rawValue: "canApplyPolicy")
    /// `canGetAppliedPolicies`: list the policies applied to the object.
    public static let getAppliedPolicies = Self(rawValue: "canGetAppliedPolicies")
    /// `canRemovePolicy`: remove a policy from the object.
    public static let removePolicy = Self(rawValue: "canRemovePolicy")
    /// `canGetChildren`: list the folder's children.
    public static let getChildren = Self(rawValue: "canGetChildren")
    /// `canCreateDocument`: create a document in the folder.
    public static let createDocument = Self(rawValue: "canCreateDocument")
    /// `canCreateFolder`: create a subfolder in the folder.
    public static let createFolder = Self(rawValue: "canCreateFolder")
    /// `canCreateRelationship`: create a relationship with this object as source or target.
    public static let createRelationship = Self(rawValue: "canCreateRelationship")
    /// `canCreateItem`: create an item in the folder.
    public static let createItem = Self(rawValue: "canCreateItem")
    /// `canDeleteTree`: delete the folder with everything in it.
    public static let deleteTree = Self(rawValue: "canDeleteTree")
    /// `canGetRenditions`: list the object's renditions.
    public static let getRenditions = Self(rawValue: "canGetRenditions")
    /// `canGetACL`: read the object's ACL.
    public static let getACL = Self(rawValue: "canGetACL")
    /// `canApplyACL`: change the object's ACL.
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

    /// A set of allowed actions; empty by default (nothing allowed).
    public init(_ actions: Set<AllowableAction> = []) { self.actions = actions }

    /// Whether `action` is allowed.
    public func contains(_ action: AllowableAction) -> Bool { actions.contains(action) }

    /// Whether `canGetChildren` is allowed.
    public var canGetChildren: Bool { contains(.getChildren) }
    /// Whether `canGetDescendants` is allowed.
    public var canGetDescendants: Bool { contains(.getDescendants) }
    /// Whether `canGetProperties` is allowed.
    public var canGetProperties: Bool { contains(.getProperties) }
    /// Whether `canUpdateProperties` is allowed.
    public var canUpdateProperties: Bool { contains(.updateProperties) }
    /// Whether `canDeleteObject` is allowed.
    public var canDeleteObject: Bool { contains(.deleteObject) }
    /// Whether `canGetContentStream` is allowed.
    public var canGetContentStream: Bool { contains(.getContentStream) }
    /// Whether `canSetContentStream` is allowed.
    public var canSetContentStream: Bool { contains(.setContentStream) }
    /// Whether `canCreateDocument` is allowed.
    public var canCreateDocument: Bool { contains(.createDocument) }
    /// Whether `canCreateFolder` is allowed.
    public var canCreateFolder: Bool { contains(.createFolder) }
    /// Whether `canMoveObject` is allowed.
    public var canMoveObject: Bool { contains(.moveObject) }
    /// Whether `canCheckOut` is allowed.
    public var canCheckOut: Bool { contains(.checkOut) }
    /// Whether `canCheckIn` is allowed.
    public var canCheckIn: Bool { contains(.checkIn) }
    /// Whether `canGetACL` is allowed.
    public var canGetACL: Bool { contains(.getACL) }
    /// Whether `canApplyACL` is allowed.
    public var canApplyACL: Bool { contains(.applyACL) }
}
