import Foundation

/// How a repository models permissions (CMIS 1.1 part I, 2.1.1.2).
///
/// ```swift
/// info.aclCapabilities?.permissions.map(\.permission)   // ["cmis:read", "cmis:write", "cmis:all"]
/// info.aclCapabilities?.permissions(for: "canGetChildren.Folder")   // ["cmis:read"]
/// ```
public struct ACLCapabilities: Sendable, Hashable {
    public var supportedPermissions: SupportedPermissions?
    public var propagation: ACLPropagation?
    /// The permissions the repository knows.
    public var permissions: [PermissionDefinition]
    /// Which permissions each allowable action needs (`canGetChildren.Folder` → `cmis:read`).
    public var permissionMapping: [PermissionMapping]

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
    public var permission: String
    public var description: String?

    public init(permission: String, description: String? = nil) {
        self.permission = permission
        self.description = description
    }
}

/// One entry of the permission mapping: an action key and the permissions it needs.
public struct PermissionMapping: Sendable, Hashable {
    public var key: String
    public var permissions: [String]

    public init(key: String, permissions: [String]) {
        self.key = key
        self.permissions = permissions
    }
}
