import Foundation

/// How a repository models permissions (CMIS 1.1 part I, 2.1.1.2).
///
/// ```swift
/// info.aclCapabilities?.permissions.map(\.permission)   // ["cmis:read", "cmis:write", "cmis:all"]
/// info.aclCapabilities?.permissions(for: "canGetChildren.Folder")   // ["cmis:read"]
/// ```
public struct ACLCapabilities: Sendable, Hashable {
    /// Whether the repository uses the basic CMIS permissions, its own, or both; `nil` when not reported.
    public var supportedPermissions: SupportedPermissions?
    /// How ACL changes spread to other objects; `nil` when not reported.
    public var propagation: ACLPropagation?
    /// The permissions the repository knows.
    public var permissions: [PermissionDefinition]
    /// Which permissions each allowable action needs (`canGetChildren.Folder` → `cmis:read`).
    public var permissionMapping: [PermissionMapping]

    /// Capabilities with these values; every argument defaults to unknown or empty.
    public init(
        supportedPermissions: SupportedPermissions? = nil, propagation: ACLPropagation? = nil,
        permissions: [PermissionDefinition] = [], permissionMapping: [PermissionMapping] = []
    ) {
        self.supportedPermissions = supportedPermissions
        self.propagation = propagation
        self.permissions = permissions
        self.permissionMapping = permissionMapping
    }

    /// The permissions mapped to this key, or `nil` if the key is not mapped.
    public func permissions(for key: String) -> [String]? {
        permissionMapping.first { $0.key == key }?.permissions
    }
}

/// A permission a repository knows, with its description.
public struct PermissionDefinition: Sendable, Hashable {
    /// The permission's name (`cmis:read`, or a repository-specific one).
    public var permission: String
    /// What the permission allows, in the repository's words; `nil` when it sent none.
    public var description: String?

    /// A permission with its optional description.
    public init(permission: String, description: String? = nil) {
        self.permission = permission
        self.description = description
    }
}

/// One entry of the permission mapping: an action key and the permissions it needs.
public struct PermissionMapping: Sendable, Hashable {
    /// The action key (`canGetChildren.Folder`, `canDelete.Object` …).
    public var key: String
    /// The permissions the action needs.
    public var permissions: [String]

    /// A mapping from `key` to `permissions`.
    public init(key: String, permissions: [String]) {
        self.key = key
        self.permissions = permissions
    }
}
