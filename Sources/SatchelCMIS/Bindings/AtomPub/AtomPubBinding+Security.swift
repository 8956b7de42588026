import Foundation
public import SatchelCMISCore
import SatchelHTTP
import SatchelXML

extension AtomPubBinding {
    static let aclMediaType = "application/cmisacl+xml"

    /// GET on the object's `acl` link; throws `.notSupported` when it has none.
    public func acl(repositoryId: String, objectId: String, onlyBasicPermissions: Bool) async throws -> ACL {
        let url = try await aclURL(repositoryId: repositoryId, objectId: objectId)
        let request = HTTPClient.Request(
            .get, url: Self.url(url, query: [("onlyBasicPermissions", String(onlyBasicPermissions))]),
            operation: "get the ACL of CMIS object \(objectId)")
        return try AtomPubParser.acl(try await send(request).body)
    }

    /// AtomPub replaces the whole ACL: reads the direct entries, applies `remove` then `add`, and PUTs the result.
    public func applyACL(
        repositoryId: String, objectId: String, add: [ACE], remove: [ACE], propagation: ACLPropagation
    ) async throws -> ACL {
        let url = try await aclURL(repositoryId: repositoryId, objectId: objectId)
        let current = try AtomPubParser.acl(
            try await send(
                HTTPClient.Request(
                    .get, url: Self.url(url, query: [("onlyBasicPermissions", "false")]),
                    operation: "get the ACL of CMIS object \(objectId)")
            ).body)
        let target = ACL(aces: Self.merged(current: current.aces.filter(\.isDirect), add: add, remove: remove))
        var writer = XMLWriter(namespaces: [("cmis", XNamespace.cmis)])
        AtomPubWriter.acl(target, into: &writer)
        let request = changeRequest(
            .put, url: Self.url(url, query: [("ACLPropagation", propagation.rawValue)]), repositoryId: repositoryId,
            body: .data(Data(writer.finish()), contentType: Self.aclMediaType),
            operation: "apply an ACL to CMIS object \(objectId)")
        return try AtomPubParser.acl(try await send(request).body)
    }

    /// Direct entries after removing `remove`'s permissions and adding `add`'s, one entry per principal.
    static func merged(current: [ACE], add: [ACE], remove: [ACE]) -> [ACE] {
        var order: [String] = []
        var permissions: [String: [String]] = [:]
        for ace in current {
            if permissions[ace.principalId] == nil { order.append(ace.principalId) }
            permissions[ace.principalId, default: []] += ace.permissions
        }
        for ace in remove {
            permissions[ace.principalId]?.removeAll { ace.permissions.contains($0) }
        }
        for ace in add {
            if permissions[ace.principalId] == nil { order.append(ace.principalId) }
            for permission in ace.permissions where !(permissions[ace.principalId]?.contains(permission) ?? false) {
                permissions[ace.principalId, default: []].append(permission)
            }
        }
        return order.compactMap { principal in
            guard let granted = permissions[principal], !granted.isEmpty else { return nil }
            var unique: [String] = []
            for permission in granted where !unique.contains(permission) { unique.append(permission) }
            return ACE(principalId: principal, permissions: unique, isDirect: true)
        }
    }

    /// POSTs an entry naming the policy to the object's `policies` link.
    public func applyPolicy(repositoryId: String, policyId: String, objectId: String) async throws {
        let url = try await policiesURL(repositoryId: repositoryId, objectId: objectId)
        let request = changeRequest(
            .post, url: url, repositoryId: repositoryId,
            body: .data(Self.referenceEntry(policyId), contentType: Self.entryMediaType),
            operation: "apply CMIS policy \(policyId) to \(objectId)")
        _ = try await send(request)
    }

    /// DELETE on the object's `policies` link, with `policyId`.
    public func removePolicy(repositoryId: String, policyId: String, objectId: String) async throws {
        let url = try await policiesURL(repositoryId: repositoryId, objectId: objectId)
        let request = changeRequest(
            .delete, url: Self.url(url, query: [("policyId", policyId)]), repositoryId: repositoryId, body: nil,
            operation: "remove CMIS policy \(policyId) from \(objectId)")
        _ = try await send(request)
    }

    /// GET on the object's `policies` link.
    public func appliedPolicies(
        repositoryId: String, objectId: String, context: OperationContext
    ) async throws -> [CMISObject] {
        let url = try await policiesURL(repositoryId: repositoryId, objectId: objectId)
        return try await objectList(
            repositoryId: repositoryId, url: Self.url(url, query: Self.contextQuery(context)),
            operation: "get the policies of CMIS object \(objectId)"
        ).objects
    }

    func aclURL(repositoryId: String, objectId: String) async throws -> URL {
        let entry = try await objectEntry(repositoryId: repositoryId, objectId: objectId)
        guard let link = entry.links.cmis("acl") else {
            throw CMISError(.notSupported, "object \(objectId) has no acl link")
        }
        return try resolve(link.href)
    }

    func policiesURL(repositoryId: String, objectId: String) async throws -> URL {
        let entry = try await objectEntry(repositoryId: repositoryId, objectId: objectId)
        guard let link = entry.links.cmis("policies") else {
            throw CMISError(.notSupported, "object \(objectId) has no policies link")
        }
        return try resolve(link.href)
    }
}
