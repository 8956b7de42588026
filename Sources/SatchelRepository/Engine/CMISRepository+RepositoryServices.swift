import Foundation
public import SatchelCMISCore

extension CMISRepository {
    /// The shared repository, then the caller's MyDocuments (created with its root folder on first use).
    public func repositoryInfos(caller: CallerContext) async throws -> [RepositoryInfo] {
        let shared = try await scope(configuration.sharedRepositoryId, caller)
        let personal = try await scope(RepositoryConfiguration.myDocumentsRepositoryId(user: caller.user), caller)
        return [try await info(shared), try await info(personal)]
    }

    /// The shared repository or the caller's own MyDocuments (created on first use). Another user's MyDocuments is
    /// `objectNotFound`, as a missing repository is. MyDocuments info names its root folder and, when the caller has a
    /// session, its XSRF token in extensions.
    public func repositoryInfo(repositoryId: String, caller: CallerContext) async throws -> RepositoryInfo {
        try await info(try await scope(repositoryId, caller))
    }

    func info(_ scope: Scope) async throws -> RepositoryInfo {
        let repository = scope.repository
        var capabilities = RepositoryCapabilities()
        capabilities.contentStreamUpdatability = .anytime
        capabilities.changes = .objectIdsOnly
        capabilities.renditions = RenditionsCapability.none
        capabilities.getDescendants = true
        capabilities.getFolderTree = true
        capabilities.orderBy = .common
        capabilities.multifiling = true
        capabilities.unfiling = true
        capabilities.versionSpecificFiling = false
        capabilities.pwcSearchable = true
        capabilities.pwcUpdatable = true
        capabilities.allVersionsSearchable = true
        capabilities.query = .bothCombined
        capabilities.join = JoinCapability.none
        capabilities.acl = .manage
        // Types cannot be created or changed here: nothing is creatable, no attribute settable. Saying so (rather
        // than leaving the two out) is what clients that read CMIS 1.1 repository info expect.
        capabilities.creatablePropertyTypes = []
        var settable = NewTypeSettableAttributes()
        settable.id = false
        settable.localName = false
        settable.localNamespace = false
        settable.displayName = false
        settable.queryName = false
        settable.description = false
        settable.creatable = false
        settable.fileable = false
        settable.queryable = false
        settable.fulltextIndexed = false
        settable.includedInSupertypeQuery = false
        settable.controllablePolicy = false
        settable.controllableACL = false
        capabilities.newTypeSettableAttributes = settable
        var extensions: [CMISExtension] = []
        if scope.isPersonal {
            extensions.append(
                CMISExtension(
                    namespace: MobileDocuments.namespace, name: MobileDocuments.myDocumentsExtension,
                    value: repository.rootFolderId))
            if let token = scope.caller.sessionToken {
                extensions.append(
                    CMISExtension(
                        namespace: MobileDocuments.namespace, name: MobileDocuments.tokenExtension, value: token))
            }
        }
        var info = RepositoryInfo(
            id: repository.id, name: repository.name, rootFolderId: repository.rootFolderId,
            capabilities: capabilities, extensions: extensions)
        info.description = repository.description
        info.vendorName = configuration.vendorName
        info.productName = configuration.productName
        info.productVersion = configuration.productVersion
        info.cmisVersionSupported = "1.1"
        info.latestChangeLogToken = String(try await store.latestChangeToken(repositoryId: repository.id) ?? 0)
        info.changesIncomplete = false
        info.changesOnType = [.document, .folder, .item, .policy, .relationship]
        info.principalIdAnonymous = "cmis:anonymous"
        info.principalIdAnyone = Permission.anyone
        info.aclCapabilities = Self.aclCapabilities
        return info
    }

    static let aclCapabilities: ACLCapabilities = {
        let read = ["cmis:read"]
        let write = ["cmis:write"]
        let mapping: [(String, [String])] = [
            ("canGetDescendents.Folder", read), ("canGetChildren.Folder", read), ("canGetParents.Folder", read),
            ("canGetFolderParent.Object", read), ("canCreateDocument.Folder", write),
            ("canCreateFolder.Folder", write), ("canCreateRelationship.Source", read),
            ("canCreateRelationship.Target", read), ("canGetProperties.Object", read),
            ("canViewContent.Object", read), ("canUpdateProperties.Object", write), ("canMove.Object", write),
            ("canMove.Target", write), ("canMove.Source", write), ("canDelete.Object", write),
            ("canDeleteTree.Folder", write), ("canSetContent.Document", write),
            ("canDeleteContent.Document", write), ("canAddToFolder.Object", read),
            ("canAddToFolder.Folder", write), ("canRemoveFromFolder.Object", read),
            ("canRemoveFromFolder.Folder", write), ("canCheckout.Document", write),
            ("canCancelCheckout.Document", write), ("canCheckin.Document", write),
            ("canGetAllVersions.VersionSeries", read), ("canGetObjectRelationships.Object", read),
            ("canAddPolicy.Object", write), ("canAddPolicy.Policy", read), ("canRemovePolicy.Object", write),
            ("canRemovePolicy.Policy", read), ("canGetAppliedPolicies.Object", read),
            ("canGetACL.Object", read), ("canApplyACL.Object", ["cmis:all"]),
        ]
        return ACLCapabilities(
            supportedPermissions: .basic, propagation: .propagate,
            permissions: [
                PermissionDefinition(permission: "cmis:read", description: "Read properties and content"),
                PermissionDefinition(permission: "cmis:write", description: "Read and change"),
                PermissionDefinition(permission: "cmis:all", description: "Everything, including ACLs"),
            ],
            permissionMapping: mapping.map { PermissionMapping(key: $0.0, permissions: $0.1) })
    }()

    // MARK: Types

    func typeOrThrow(_ id: String) throws -> TypeDefinition {
        guard let type = types.type(id) else { throw CMISError(.objectNotFound, "There is no object type '\(id)'.") }
        return type
    }

    func shaped(_ type: TypeDefinition, withProperties: Bool) -> TypeDefinition {
        guard !withProperties else { return type }
        var copy = type
        copy.propertyDefinitions = []
        return copy
    }

    /// From the engine's fixed type registry: the same types in every repository. `maxItems` is cut to the configured
    /// maximum; a negative `maxItems` or `skipCount` is `invalidArgument`, an unknown `typeId` `objectNotFound`.
    public func typeChildren(
        repositoryId: String, typeId: String?, includePropertyDefinitions: Bool, maxItems: Int?, skipCount: Int,
        caller: CallerContext
    ) async throws -> (types: [TypeDefinition], hasMoreItems: Bool, numItems: Int) {
        _ = try await scope(repositoryId, caller)
        if let typeId { _ = try typeOrThrow(typeId) }
        let limit = try pageSize(maxItems)
        try checkSkipCount(skipCount)
        let ids = types.childIds[typeId ?? ""] ?? []
        let page = ids.dropFirst(skipCount).prefix(limit)
        return (
            page.compactMap { types.type($0) }.map { shaped($0, withProperties: includePropertyDefinitions) },
            skipCount + page.count < ids.count, ids.count
        )
    }

    /// From the engine's fixed type registry. `depth` must be nil, -1 (all levels) or at least 1, else
    /// `invalidArgument`; an unknown `typeId` is `objectNotFound`.
    public func typeDescendants(
        repositoryId: String, typeId: String?, depth: Int?, includePropertyDefinitions: Bool, caller: CallerContext
    ) async throws -> [TypeTreeNode] {
        _ = try await scope(repositoryId, caller)
        if let typeId { _ = try typeOrThrow(typeId) }
        let depth = depth ?? -1
        guard depth == -1 || depth >= 1 else {
            throw CMISError(.invalidArgument, "depth must be -1 or at least 1; it was \(depth).")
        }
        func nodes(under id: String, level: Int) -> [TypeTreeNode] {
            guard depth == -1 || level <= depth else { return [] }
            return (types.childIds[id] ?? []).compactMap { types.type($0) }.map {
                TypeTreeNode(
                    type: shaped($0, withProperties: includePropertyDefinitions),
                    children: nodes(under: $0.id, level: level + 1))
            }
        }
        return nodes(under: typeId ?? "", level: 1)
    }

    /// From the engine's fixed type registry; `objectNotFound` for a type it does not know.
    public func typeDefinition(
        repositoryId: String, typeId: String, caller: CallerContext
    ) async throws
        -> TypeDefinition
    {
        _ = try await scope(repositoryId, caller)
        return try typeOrThrow(typeId)
    }
}
