import Foundation

/// An access control list: who may do what on an object.
///
/// ```swift
/// object.acl?.aces.first?.principalId   // "anyone"
/// object.acl?.aces.first?.permissions   // ["cmis:all"]
/// ```
public struct ACL: Sendable, Hashable {
    public var aces: [ACE]
    /// Whether the list is exactly what the repository enforces (`exactACL`).
    public var isExact: Bool?

    public init(aces: [ACE], isExact: Bool? = nil) {
        self.aces = aces
        self.isExact = isExact
    }
}

/// An access control entry: a principal and its permissions.
public struct ACE: Sendable, Hashable {
    public var principalId: String
    public var permissions: [String]
    /// `true` when set on the object itself, `false` when inherited or derived.
    public var isDirect: Bool

    public init(principalId: String, permissions: [String], isDirect: Bool = true) {
        self.principalId = principalId
        self.permissions = permissions
        self.isDirect = isDirect
    }
}
