public import Foundation

/// The kind of change a change log entry records.
public struct ChangeType: RawRepresentable, Sendable, Hashable {
    public let rawValue: String
    public init(rawValue: String) { self.rawValue = rawValue }

    public static let created = Self(rawValue: "created")
    public static let updated = Self(rawValue: "updated")
    public static let deleted = Self(rawValue: "deleted")
    public static let security = Self(rawValue: "security")
}

/// What happened to an object and when (`changeEventInfo` of a content change).
public struct ChangeEventInfo: Sendable, Hashable {
    public var changeType: ChangeType
    public var changeTime: Date?

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
    public var objects: [CMISObject]
    public var hasMoreItems: Bool
    public var numItems: Int64?
    /// The token to pass to the next `getContentChanges` call.
    public var changeLogToken: String?

    public init(objects: [CMISObject], hasMoreItems: Bool = false, numItems: Int64? = nil, changeLogToken: String?) {
        self.objects = objects
        self.hasMoreItems = hasMoreItems
        self.numItems = numItems
        self.changeLogToken = changeLogToken
    }
}
