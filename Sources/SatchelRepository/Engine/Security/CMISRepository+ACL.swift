import Foundation
public import SatchelCMISCore

extension CMISRepository {
    /// The object's own ACEs and those it inherits from the folders above (in MyDocuments, the owner's `cmis:all`),
    /// as exact. Needs `cmis:read`. `onlyBasicPermissions` changes nothing: the engine knows only the basic
    /// permissions.
    public func acl(
        repositoryId: String, objectId: String, onlyBasicPermissions: Bool, caller: CallerContext
    )
        async throws -> ACL
    {
        let scope = try await scope(repositoryId, caller)
        let object = try await load(scope, objectId)
        try await require(.read, scope, on: object, to: "read the ACL of")
        return ACL(aces: try await aclEntries(scope, of: object), isExact: true)
    }

    /// Changes an object's own ACEs. Inherited ACEs cannot be removed here (change them on the folder they come
    /// from). ACEs on a folder always apply to everything below it: `propagation` may be `propagate` or
    /// `repositorydetermined`; `objectonly` is refused for folders, whose ACEs always propagate.
    public func applyACL(
        repositoryId: String, objectId: String, addACEs: [ACE], removeACEs: [ACE], propagation: String?,
        caller: CallerContext
    ) async throws -> ACL {
        let scope = try await scope(repositoryId, caller)
        let object = try await load(scope, objectId)
        switch propagation ?? "repositorydetermined" {
        case "repositorydetermined", "propagate": break
        case "objectonly":
            guard object.baseTypeId != .folder else {
                throw CMISError(
                    .constraint,
                    "ACEs of a folder always apply to its contents; objectonly propagation is not supported.")
            }
        default:
            throw CMISError(
                .invalidArgument, "ACL propagation must be objectonly, propagate or repositorydetermined.")
        }
        guard types.type(object.typeId)?.controllableACL == true else {
            throw CMISError(.constraint, "Objects of type '\(object.typeId)' have no ACL of their own.")
        }
        try await require(.all, scope, on: object, to: "change the ACL of")
        // The root's ACL is where everybody's access to the shared repository starts: a user who could change it
        // could shut everybody else out.
        if object.id == scope.rootId && !scope.isPersonal && !scope.caller.isAdministrator {
            throw CMISError(.permissionDenied, "Only an administrator may change the ACL of the root folder.")
        }
        let acl = try changedACL(object.acl, add: addACEs, remove: removeACEs)
        guard acl != object.acl else { return ACL(aces: try await aclEntries(scope, of: object), isExact: true) }
        let changed = try await saveSecurityChange(of: object, in: scope) { $0.acl = acl }
        return ACL(aces: try await aclEntries(scope, of: changed), isExact: true)
    }

    /// Stores a change to an object's security (its ACL or its policies), guarded by the change token it was read
    /// with and logged as a `security` change; returns the object as stored.
    @discardableResult
    func saveSecurityChange(
        of object: StoredObject, in scope: Scope, _ edit: (inout StoredObject) -> Void
    ) async throws -> StoredObject {
        var changed = object
        edit(&changed)
        changed = touched(changed, scope, now: configuration.clock())
        try await apply(
            StoreBatch(
                repositoryId: scope.id, expectedChangeTokens: [object.id: object.changeToken], updates: [changed],
                changes: [change(changed, .security, changed.modifiedAt)]), in: scope)
        return changed
    }

    // MARK: Policies

    /// Needs `cmis:read` on the policy and `cmis:write` on the object, whose type must allow policies (`constraint`).
    /// Applying a policy twice changes nothing.
    public func applyPolicy(
        repositoryId: String, policyId: String, objectId: String, caller: CallerContext
    )
        async throws
    {
        let scope = try await scope(repositoryId, caller)
        let object = try await load(scope, objectId)
        guard let type = types.type(object.typeId) else { throw CMISError(.runtime, "Unknown type.") }
        let ids = try await checkPolicies(scope, [policyId], for: type)
        try await require(.write, scope, on: object, to: "apply a policy to")
        guard !object.policyIds.contains(policyId) else { return }
        try await saveSecurityChange(of: object, in: scope) { $0.policyIds += ids }
    }

    /// Needs `cmis:write` on the object; `invalidArgument` when the policy is not applied to it.
    public func removePolicy(
        repositoryId: String, policyId: String, objectId: String, caller: CallerContext
    )
        async throws
    {
        let scope = try await scope(repositoryId, caller)
        let object = try await load(scope, objectId)
        try await require(.write, scope, on: object, to: "remove a policy from")
        guard object.policyIds.contains(policyId) else {
            throw CMISError(.invalidArgument, "Policy '\(policyId)' is not applied to '\(object.name)'.")
        }
        try await saveSecurityChange(of: object, in: scope) { stored in stored.policyIds.removeAll { $0 == policyId } }
    }

    /// Needs `cmis:read` on the object; policies the caller may not read are left out.
    public func appliedPolicies(
        repositoryId: String, objectId: String, context: OperationContext, caller: CallerContext
    ) async throws -> [CMISObject] {
        let (scope, filter, object, _) = try await readableObject(
            repositoryId, objectId, context: context, caller: caller)
        var result: [CMISObject] = []
        for policy in try await store.objects(repositoryId: scope.id, ids: object.policyIds) {
            guard try await permission(scope, on: policy) >= .read else { continue }
            result.append(try await render(scope, policy, context, filter: filter))
        }
        return result
    }

    // MARK: Relationships

    /// Needs `cmis:read` on the object; relationships the caller may not read are left out. `typeId` must name a
    /// relationship type (`invalidArgument`).
    public func objectRelationships(
        repositoryId: String, objectId: String, includeSubRelationshipTypes: Bool,
        direction: RelationshipDirection, typeId: String?, context: OperationContext, maxItems: Int?,
        skipCount: Int, caller: CallerContext
    ) async throws -> ObjectList {
        let scope = try await scope(repositoryId, caller)
        let filter = try PropertyFilter(context.filter, types: types)
        let limit = try pageSize(maxItems)
        try checkSkipCount(skipCount)
        if let typeId {
            let type = try typeOrThrow(typeId)
            guard type.baseTypeId == .relationship else {
                throw CMISError(.invalidArgument, "'\(typeId)' is not a relationship type.")
            }
        }
        let object = try await load(scope, objectId)
        try await require(.read, scope, on: object, to: "read")
        var matches: [StoredObject] = []
        for relationship in try await store.relationships(repositoryId: scope.id, objectId: object.id) {
            switch direction {
            case .source where relationship.sourceId != object.id: continue
            case .target where relationship.targetId != object.id: continue
            default: break
            }
            if let typeId {
                let fits =
                    includeSubRelationshipTypes
                    ? types.isSubtype(relationship.typeId, of: typeId) : relationship.typeId == typeId
                if !fits { continue }
            }
            guard try await permission(scope, on: relationship) >= .read else { continue }
            matches.append(relationship)
        }
        let page = matches.dropFirst(skipCount).prefix(limit)
        var objects: [CMISObject] = []
        for relationship in page { objects.append(try await render(scope, relationship, context, filter: filter)) }
        return ObjectList(
            objects: objects, hasMoreItems: skipCount + page.count < matches.count, numItems: Int64(matches.count))
    }
}
