import Foundation
public import SatchelCMISCore

extension CMISSession {
    /// An object's access control list.
    public func acl(of objectId: String, onlyBasicPermissions: Bool = true) async throws -> ACL {
        try await binding.acl(
            repositoryId: repositoryId, objectId: objectId, onlyBasicPermissions: onlyBasicPermissions)
    }

    /// Adds and removes access control entries and returns the resulting ACL.
    ///
    /// ```swift
    /// let read = ACE(principalId: "bob", permissions: ["cmis:read"])
    /// let acl = try await session.applyACL(to: folder.id!, adding: [read])
    /// ```
    public func applyACL(
        to objectId: String, adding add: [ACE] = [], removing remove: [ACE] = [],
        propagation: ACLPropagation = .repositoryDetermined
    ) async throws -> ACL {
        cache.remove(id: objectId)
        return try await binding.applyACL(
            repositoryId: repositoryId, objectId: objectId, add: add, remove: remove, propagation: propagation)
    }

    /// Applies a policy object to an object.
    public func applyPolicy(_ policyId: String, to objectId: String) async throws {
        cache.remove(id: objectId)
        try await binding.applyPolicy(repositoryId: repositoryId, policyId: policyId, objectId: objectId)
    }

    /// Removes a policy from an object.
    public func removePolicy(_ policyId: String, from objectId: String) async throws {
        cache.remove(id: objectId)
        try await binding.removePolicy(repositoryId: repositoryId, policyId: policyId, objectId: objectId)
    }

    /// The policies applied to an object.
    public func policies(of objectId: String, context: OperationContext? = nil) async throws -> [CMISObject] {
        try await binding.appliedPolicies(
            repositoryId: repositoryId, objectId: objectId, context: context ?? parameters.operationContext)
    }
}
