import Foundation

/// An access control list: who may do what on an object.
///
/// ```swift
/// object.acl?.aces.first?.principalId   // "anyone"
/// object.acl?.aces.first?.permissions   // ["cmis:all"]
/// ```
public struct ACL: Sendable, Hashable {
    /// The entries, one per principal as the repository sent them.
    public var aces: [ACE]
    /// Whether the list is exactly what the repository enforces (`exactACL`).
    public var isExact: Bool?

    /// A list of these entries; `isExact` is `nil` when unknown.
    public init(aces: [ACE], isExact: Bool? = nil) {
        self.aces = aces
        self.isExact = isExact
    }
}

/// An access control entry: a principal and its permissions.
public struct ACE: Sendable, Hashable {
    /// The user or group (`anyone`, `anonymous` or a repository's own id).
    public var principalId: String
    /// The permissions granted (`cmis:read`, `cmis:write`, `cmis:all` or repository-specific ones).
    public var permissions: [String]
    /// `true` when set on the object itself, `false` when inherited or derived.
    public var isDirect: Bool

    /// An entry granting `permissions` to `principalId`, direct unless `isDirect` is `false`.
    public init(principalId: String, permissions: [String], isDirect: Bool = true) {
        self.principalId = principalId
        self.permissions = permissions
        self.isDirect = isDirect
    }
}
