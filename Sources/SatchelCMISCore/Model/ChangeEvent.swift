public import Foundation

/// The kind of change a change log entry records.
public struct ChangeType: RawRepresentable, Sendable, Hashable {
    /// The change type as the repository sends it (`created` …).
    public let rawValue: String
    /// The change type with this wire form; unknown ones are kept as they are.
    public init(rawValue: String) { self.rawValue = rawValue }

    /// `created`: the object was created.
    public static let created = Self(rawValue: "created")
    /// `updated`: the object was updated.
    public static let updated = Self(rawValue: "updated")
    /// `deleted`: the object was deleted.
    public static let deleted = Self(rawValue: "deleted")
    /// `security`: the object's ACL or policies changed.
    public static let security = Self(rawValue: "security")
}

/// What happened to an object and when (`changeEventInfo` of a content change).
public struct ChangeEventInfo: Sendable, Hashable {
    /// What kind of change it was.
    public var changeType: ChangeType
    /// When the change happened; `nil` when the repository did not say.
    public var changeTime: Date?

    /// Change information of this type, at `changeTime` if known.
    public init(changeType: ChangeType, changeTime: Date? = nil) {
        self.changeType = changeType
        self.changeTime = changeTime
    }
}

/// A page of the change log (`getContentChanges`): the changed objects and the token to continue from.
///
/// ```swift
/// let changes = try BrowserParser.contentChanges(data)
/// for object in changes.objects { print(object.id ?? "", object.changeEventInfo?.changeType.rawValue ?? "") }
/// let next = changes.changeLogToken
/// ```
public struct ContentChanges: Sendable, Hashable {
    /// The changed objects, each with its `changeEventInfo`.
    public var objects: [CMISObject]
    /// Whether more changes follow this page.
    public var hasMoreItems: Bool
    /// The total number of changes, when the repository knows it.
    public var numItems: Int64?
    /// The token to pass to the next `getContentChanges` call.
    public var changeLogToken: String?

    /// A page of changes; `hasMoreItems` defaults to `false`, `numItems` to unknown.
    public init(objects: [CMISObject], hasMoreItems: Bool = false, numItems: Int64? = nil, changeLogToken: String?) {
        self.objects = objects
        self.hasMoreItems = hasMoreItems
        self.numItems = numItems
        self.changeLogToken = changeLogToken
    }
}
