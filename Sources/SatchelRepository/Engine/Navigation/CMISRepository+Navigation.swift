import Foundation
public import SatchelCMISCore

extension CMISRepository {
    // MARK: Reading one object

    /// Needs `cmis:read` on the object (`permissionDenied` otherwise); `objectNotFound` for an unknown or empty id. An
    /// invalid `context.filter` is refused.
    public func object(
        repositoryId: String, id: String, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject {
        let (scope, filter, object, granted) = try await readableObject(
            repositoryId, id, context: context, caller: caller)
        return try await render(scope, object, context, filter: filter, permission: granted)
    }

    /// Each segment is looked up by name in its folder (names compared in Unicode normalization form C). A path that
    /// leads nowhere, or to an object the caller may not read, is `objectNotFound` naming the whole path, so it tells
    /// nothing of what exists; only the root folder answers `permissionDenied`. A path not starting with `/` is
    /// `invalidArgument`.
    public func object(
        repositoryId: String, path: String, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject {
        let scope = try await scope(repositoryId, caller)
        let filter = try PropertyFilter(context.filter, types: types)
        let object = try await resolve(scope, path: path)
        // An object the caller may not read is not there for them: a name can be guessed, and a 403 where a
        // missing one gives 404 would tell what exists inside folders they cannot open. The root is no secret
        // (repository info names it): it is refused as any object read by id is.
        let granted: Permission
        if object.id == scope.rootId {
            granted = try await require(.read, scope, on: object, to: "read")
        } else {
            granted = try await permission(scope, on: object)
            guard granted >= .read else { throw Self.noObject(at: path) }
        }
        return try await render(scope, object, context, filter: filter, permission: granted)
    }

    /// The one answer for a path that leads nowhere the caller may go, whichever step it failed at.
    static func noObject(at path: String) -> CMISError {
        CMISError(.objectNotFound, "There is no object at '\(shorten(path))'.")
    }

    /// The object at an absolute path (`/`, `/a/b.txt`). A path that stops anywhere on the way fails with the same
    /// error naming the whole path, so that the error does not tell how much of it exists.
    func resolve(_ scope: Scope, path: String) async throws -> StoredObject {
        guard path.hasPrefix("/") else {
            throw CMISError(.invalidArgument, "A path must start with '/': '\(Self.shorten(path))'.")
        }
        var current = try await load(scope, scope.rootId)
        for segment in path.split(separator: "/", omittingEmptySubsequences: true) {
            guard current.baseTypeId == .folder else { throw Self.noObject(at: path) }
            let name = Self.normalizedName(String(segment))
            var found = try await store.child(repositoryId: scope.id, folderId: current.id, name: name)
            if found == nil && name != segment {
                // Names stored before names were normalized keep the spelling they came with.
                found = try await store.child(repositoryId: scope.id, folderId: current.id, name: String(segment))
            }
            guard let child = found else { throw Self.noObject(at: path) }
            current = child
        }
        return current
    }

    /// Worked out from the caller's permission on the object; needs `cmis:read`.
    public func allowableActions(
        repositoryId: String, objectId: String, caller: CallerContext
    ) async throws
        -> AllowableActions
    {
        let scope = try await scope(repositoryId, caller)
        let object = try await load(scope, objectId)
        let granted = try await require(.read, scope, on: object, to: "read")
        return allowableActions(scope, object, granted)
    }

    // MARK: Navigation

    /// The sort keys for an `orderBy` such as `cmis:name ASC,cmis:creationDate DESC`.
    func storeOrder(_ orderBy: String?) throws -> [StoreOrder] {
        guard let orderBy, !orderBy.trimmingCharacters(in: .whitespaces).isEmpty else { return [StoreOrder(.name)] }
        var order: [StoreOrder] = []
        for clause in orderBy.split(separator: ",") {
            let words = clause.split(separator: " ", omittingEmptySubsequences: true)
            guard let first = words.first, words.count <= 2 else {
                throw CMISError(.invalidArgument, "orderBy '\(Self.shorten(orderBy))' is not 'property [ASC|DESC]'.")
            }
            let ascending: Bool
            switch words.count == 2 ? words[1].uppercased() : "ASC" {
            case "ASC": ascending = true
            case "DESC": ascending = false
            default:
                throw CMISError(.invalidArgument, "orderBy direction must be ASC or DESC, not '\(words[1])'.")
            }
            let field: StoreOrder.Field
            switch first {
            case "cmis:name": field = .name
            case "cmis:creationDate": field = .createdAt
            case "cmis:lastModificationDate": field = .modifiedAt
            case "cmis:objectTypeId": field = .typeId
            case "cmis:baseTypeId": field = .baseTypeId
            case "cmis:contentStreamLength": field = .contentLength
            default:
                throw CMISError(
                    .invalidArgument,
                    "Children cannot be ordered by '\(Self.shorten(String(first)))'; use cmis:name, "
                        + "cmis:creationDate, cmis:lastModificationDate, cmis:objectTypeId, cmis:baseTypeId or "
                        + "cmis:contentStreamLength.")
            }
            order.append(StoreOrder(field, ascending: ascending))
        }
        return order
    }

    /// The caller's permission on a child, knowing their permission on the folder it was listed from (ACEs only
    /// grant, and a child inherits from that folder).
    func childPermission(
        _ scope: Scope, _ child: StoredObject, inFolder folderPermission: Permission
    ) async throws
        -> Permission
    {
        if scope.isPersonal { return .all }
        if child.parentIds.count > 1 { return try await permission(scope, on: child) }
        return max(folderPermission, Permission.granted(by: child.acl, to: scope.user))
    }

    /// Needs `cmis:read` on the folder. `context.orderBy` may sort by `cmis:name` (the default), `cmis:creationDate`,
    /// `cmis:lastModificationDate`, `cmis:objectTypeId`, `cmis:baseTypeId` or `cmis:contentStreamLength`, each `ASC` or
    /// `DESC`, in a comma-separated list; anything else is `invalidArgument`. Ties are broken by id.
    public func children(
        repositoryId: String, folderId: String, context: OperationContext, maxItems: Int?, skipCount: Int,
        caller: CallerContext
    ) async throws -> ObjectInFolderList {
        let scope = try await scope(repositoryId, caller)
        let filter = try PropertyFilter(context.filter, types: types)
        let order = try storeOrder(context.orderBy)
        let limit = try pageSize(maxItems)
        try checkSkipCount(skipCount)
        let folder = try await loadFolder(scope, folderId)
        let granted = try await require(.read, scope, on: folder, to: "list the children of")
        let page = try await store.children(
            repositoryId: scope.id, folderId: folder.id, order: order, offset: skipCount, limit: limit)
        var objects: [ObjectInFolder] = []
        objects.reserveCapacity(page.objects.count)
        for child in page.objects {
            let permission = try await childPermission(scope, child, inFolder: granted)
            let rendered = try await render(scope, child, context, filter: filter, permission: permission)
            objects.append(ObjectInFolder(object: rendered, pathSegment: context.includePathSegment ? child.name : nil))
        }
        return ObjectInFolderList(
            objects: objects, hasMoreItems: skipCount + page.objects.count < page.totalCount,
            numItems: Int64(page.totalCount))
    }

    /// Needs `cmis:read` on the folder; sorted as `children` sorts. `depth` must be nil, -1 (all levels) or at least 1.
    /// A tree of more than the configured `maximumTreeSize` objects is `constraint`.
    public func descendants(
        repositoryId: String, folderId: String, depth: Int?, foldersOnly: Bool, context: OperationContext,
        caller: CallerContext
    ) async throws -> [ContainerNode] {
        let scope = try await scope(repositoryId, caller)
        let filter = try PropertyFilter(context.filter, types: types)
        let order = try storeOrder(context.orderBy)
        let depth = depth ?? -1
        guard depth == -1 || depth >= 1 else {
            throw CMISError(.invalidArgument, "depth must be -1 or at least 1; it was \(depth).")
        }
        let folder = try await loadFolder(scope, folderId)
        let granted = try await require(.read, scope, on: folder, to: "list the descendants of")
        var budget = configuration.maximumTreeSize
        return try await tree(
            scope, folder, permission: granted, level: 1, depth: depth, foldersOnly: foldersOnly, order: order,
            context: context, filter: filter, budget: &budget)
    }

    private func tree(
        _ scope: Scope, _ folder: StoredObject, permission: Permission, level: Int, depth: Int, foldersOnly: Bool,
        order: [StoreOrder], context: OperationContext, filter: PropertyFilter, budget: inout Int
    ) async throws -> [ContainerNode] {
        guard depth == -1 || level <= depth else { return [] }
        let page = try await store.children(
            repositoryId: scope.id, folderId: folder.id, order: order, offset: 0, limit: nil)
        var nodes: [ContainerNode] = []
        for child in page.objects where !foldersOnly || child.baseTypeId == .folder {
            budget -= 1
            guard budget >= 0 else {
                throw CMISError(
                    .constraint,
                    "The tree holds more than \(configuration.maximumTreeSize) objects; ask for a smaller depth.")
            }
            let childPermission = try await childPermission(scope, child, inFolder: permission)
            let rendered = try await render(scope, child, context, filter: filter, permission: childPermission)
            var node = ContainerNode(
                item: ObjectInFolder(object: rendered, pathSegment: context.includePathSegment ? child.name : nil))
            if child.baseTypeId == .folder {
                node.children = try await tree(
                    scope, child, permission: childPermission, level: level + 1, depth: depth,
                    foldersOnly: foldersOnly, order: order, context: context, filter: filter, budget: &budget)
            }
            nodes.append(node)
        }
        return nodes
    }

    /// The folders an object is filed in; for versions and working copies, those of their version series.
    func filedParents(_ scope: Scope, of object: StoredObject) async throws -> [String] {
        if !object.parentIds.isEmpty || object.baseTypeId != .document { return object.parentIds }
        guard let series = object.versionSeriesId else { return [] }
        let versions = try await store.versions(repositoryId: scope.id, versionSeriesId: series)
        return versions.first { !$0.parentIds.isEmpty }?.parentIds ?? []
    }

    /// A page's placements in three store reads (the objects, the versions of unfiled ones, their parents); paths
    /// come from the folder cache, titles from the objects.
    public func placements(
        repositoryId: String, objectIds: [String], caller: CallerContext
    ) async throws -> [String: ObjectPlacement] {
        let scope = try await scope(repositoryId, caller)
        var objects: [StoredObject]
        if let generation = readGeneration(repositoryId: scope.id) {
            // A page the query engine just answered is not read again.
            let recent = recentObjects.objects(objectIds, repository: scope.id, generation: generation)
            objects = recent.found
            if !recent.missing.isEmpty {
                objects += try await store.objects(repositoryId: scope.id, ids: recent.missing)
            }
        } else {
            objects = try await store.objects(repositoryId: scope.id, ids: objectIds)
        }
        var filings: [String: [String]] = [:]
        for object in objects where object.baseTypeId != .folder {
            filings[object.id] = try await filedParents(scope, of: object)
        }
        var parents: [String: StoredObject] = [:]
        for parent in try await store.objects(repositoryId: scope.id, ids: Array(Set(filings.values.joined()))) {
            parents[parent.id] = parent
        }
        var parentPaths: [String: String] = [:]
        var unreadable: Set<String> = []
        var placements: [String: ObjectPlacement] = [:]
        // What each parent passes down, worked out once for the page.
        var inherited: [String: Permission] = [:]
        for object in objects {
            guard try await permission(scope, on: object, inherited: &inherited) >= .read else { continue }
            var placement = ObjectPlacement(
                contentHash: object.content?.hash,
                title: object.properties[DocumentTypes.titleProperty]?.values.first?.stringValue)
            if object.baseTypeId == .folder {
                placement.path = try await path(scope, ofFolder: object)
                placement.parentId = object.parentIds.first
            } else {
                for parentId in filings[object.id] ?? [] {
                    guard let parent = parents[parentId], !unreadable.contains(parentId) else { continue }
                    if parentPaths[parentId] == nil {
                        guard try await permission(scope, on: parent) >= .read else {
                            unreadable.insert(parentId)
                            continue
                        }
                        parentPaths[parentId] = try await path(scope, ofFolder: parent)
                    }
                    guard let parentPath = parentPaths[parentId] else { continue }
                    placement.parentId = parentId
                    placement.path = (parentPath == "/" ? "" : parentPath) + "/" + object.name
                    break
                }
            }
            placements[object.id] = placement
        }
        return placements
    }

    /// A document version or working copy that is not filed itself answers with the folders of its version series.
    /// Parents the caller may not read are left out. A folder is `invalidArgument` (ask for its folder parent), an
    /// object of a type that is not fileable `constraint`.
    public func objectParents(
        repositoryId: String, objectId: String, context: OperationContext, caller: CallerContext
    ) async throws -> [ObjectParent] {
        let (scope, filter, object, _) = try await readableObject(
            repositoryId, objectId, context: context, caller: caller)
        guard object.baseTypeId != .folder else {
            throw CMISError(.invalidArgument, "'\(objectId)' is a folder: ask for its folder parent instead.")
        }
        guard types.type(object.typeId)?.fileable == true else {
            throw CMISError(.constraint, "Objects of type '\(object.typeId)' are not filed in folders.")
        }
        var parents: [ObjectParent] = []
        let ids = try await filedParents(scope, of: object)
        for parent in try await store.objects(repositoryId: scope.id, ids: ids) {
            guard try await permission(scope, on: parent) >= .read else { continue }
            let rendered = try await render(scope, parent, context, filter: filter)
            parents.append(
                ObjectParent(object: rendered, relativePathSegment: context.includePathSegment ? object.name : nil))
        }
        return parents
    }

    /// Needs `cmis:read` on the folder and on its parent; the root folder is `invalidArgument`.
    public func folderParent(
        repositoryId: String, folderId: String, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject {
        let scope = try await scope(repositoryId, caller)
        let filter = try PropertyFilter(context.filter, types: types)
        let folder = try await loadFolder(scope, folderId)
        try await require(.read, scope, on: folder, to: "read")
        guard let parentId = folder.parentIds.first else {
            throw CMISError(.invalidArgument, "The root folder has no parent.")
        }
        let parent = try await load(scope, parentId)
        let granted = try await require(.read, scope, on: parent, to: "read")
        return try await render(scope, parent, context, filter: filter, permission: granted)
    }

    /// Scans the repository's documents for working copies: those the caller may read, and with `folderId` those whose
    /// version series is filed there (which needs `cmis:read` on the folder). Sorted by `context.orderBy` as children
    /// are.
    public func checkedOutDocuments(
        repositoryId: String, folderId: String?, context: OperationContext, maxItems: Int?, skipCount: Int,
        caller: CallerContext
    ) async throws -> ObjectList {
        let scope = try await scope(repositoryId, caller)
        let filter = try PropertyFilter(context.filter, types: types)
        let order = try storeOrder(context.orderBy)
        let limit = try pageSize(maxItems)
        try checkSkipCount(skipCount)
        if let folderId {
            let folder = try await loadFolder(scope, folderId)
            try await require(.read, scope, on: folder, to: "list the children of")
        }
        var matches: [StoredObject] = []
        let candidates = try await store.scan(
            repositoryId: scope.id, baseTypes: [.document], typeIds: nil, latestOnly: false)  // stores differ on PWCs
        for candidate in candidates where candidate.isPrivateWorkingCopy {
            if let folderId, !(try await filedParents(scope, of: candidate)).contains(folderId) { continue }
            guard try await permission(scope, on: candidate) >= .read else { continue }
            matches.append(candidate)
        }
        matches.sort { MemoryMetadataStore.precedes($0, $1, order: order) }
        let page = matches.dropFirst(skipCount).prefix(limit)
        var objects: [CMISObject] = []
        for object in page { objects.append(try await render(scope, object, context, filter: filter)) }
        return ObjectList(
            objects: objects, hasMoreItems: skipCount + page.count < matches.count, numItems: Int64(matches.count))
    }
}
