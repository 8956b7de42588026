import Foundation
public import SatchelCMISCore
import SatchelHTTP

extension BrowserBinding {
    /// `cmisselector=acl` on the object.
    public func acl(repositoryId: String, objectId: String, onlyBasicPermissions: Bool) async throws -> ACL {
        let body = try await getObjectSelector(
            repositoryId: repositoryId, objectId: objectId, selector: "acl",
            parameters: [("onlyBasicPermissions", String(onlyBasicPermissions))],
            operation: "get the ACL of CMIS object \(objectId)")
        return try BrowserParser.acl(body)
    }

    /// `cmisaction=applyACL` with the entries to add and to remove, and the propagation.
    public func applyACL(
        repositoryId: String, objectId: String, add: [ACE], remove: [ACE], propagation: ACLPropagation
    ) async throws -> ACL {
        let fields =
            Self.aceFields(add, prefix: "addACE") + Self.aceFields(remove, prefix: "removeACE") + [
                ("ACLPropagation", propagation.rawValue)
            ]
        let body = try await post(
            repositoryId: repositoryId, objectId: objectId, action: "applyACL", fields: fields,
            operation: "apply an ACL to CMIS object \(objectId)")
        return try BrowserParser.acl(body)
    }

    /// `cmisaction=applyPolicy`.
    public func applyPolicy(repositoryId: String, policyId: String, objectId: String) async throws {
        _ = try await post(
            repositoryId: repositoryId, objectId: objectId, action: "applyPolicy", fields: [("policyId", policyId)],
            operation: "apply policy \(policyId) to CMIS object \(objectId)")
    }

    /// `cmisaction=removePolicy`.
    public func removePolicy(repositoryId: String, policyId: String, objectId: String) async throws {
        _ = try await post(
            repositoryId: repositoryId, objectId: objectId, action: "removePolicy", fields: [("policyId", policyId)],
            operation: "remove policy \(policyId) from CMIS object \(objectId)")
    }

    /// `cmisselector=policies` on the object.
    public func appliedPolicies(
        repositoryId: String, objectId: String, context: OperationContext
    ) async throws -> [CMISObject] {
        let body = try await getObjectSelector(
            repositoryId: repositoryId, objectId: objectId, selector: "policies",
            parameters: Self.objectParameters(context), operation: "get the policies of CMIS object \(objectId)")
        return try await parseTyped(repositoryId: repositoryId) {
            try BrowserParser.objectList(body, typeDefinition: $0)
        }.objects
    }

    /// `addACEPrincipal[0]=alice&addACEPermission[0][0]=cmis:read…`
    static func aceFields(_ aces: [ACE], prefix: String) -> [(String, String)] {
        var fields: [(String, String)] = []
        for (index, ace) in aces.enumerated() {
            fields.append(("\(prefix)Principal[\(index)]", ace.principalId))
            for (position, permission) in ace.permissions.enumerated() {
                fields.append(("\(prefix)Permission[\(index)][\(position)]", permission))
            }
        }
        return fields
    }
}
