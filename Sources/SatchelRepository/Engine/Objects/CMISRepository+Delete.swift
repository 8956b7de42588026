import Foundation
public import SatchelCMISCore

/// What a delete removes and what it changes alongside (versions promoted, flags cleared).
struct DeletionPlan {
    var deletes: [StoredObject] = []
    var updates: [StoredObject] = []
    var originalTokens: [String: Int64] = [:]

    mutating func delete(_ object: StoredObject) {
        guard !deletes.contains(where: { $0.id == object.id }) else { return }
        updates.removeAll { $0.id == object.id }
        deletes.append(object)
        if originalTokens[object.id] == nil { originalTokens[object.id] = object.changeToken }
    }

    mutating func update(from old: StoredObject, to new: StoredObject) {
        guard !deletes.contains(where: { $0.id == old.id }) else { return }
        if originalTokens[old.id] == nil { originalTokens[old.id] = old.changeToken }
        updates.removeAll { $0.id == old.id }
        updates.append(new)
    }
}

extension CMISRepository {
    /// Versions newest first: the private working copy, then by version label (2.0 before 1.1 before 1.0).
    func sortedVersions(_ versions: [StoredObject]) -> [StoredObject] {
        func key(_ object: StoredObject) -> (Int, Int, Int) {
            if object.isPrivateWorkingCopy { return (1, Int.max, Int.max) }
            let parts = (object.versionLabel ?? "0.0").split(separator: ".").compactMap { Int($0) }
            return (0, parts.first ?? 0, parts.count > 1 ? parts[1] : 0)
        }
        return versions.sorted { lhs, rhs in
            let (a, b) = (key(lhs), key(rhs))
            if a != b { return a > b }
            return lhs.createdAt > rhs.createdAt
        }
    }

    /// Plans deleting a document version (or all of them), promoting the previous version when the latest goes.
    func planDocumentDeletion(
        _ scope: Scope, _ document: StoredObject, allVersions: Bool, into plan: inout DeletionPlan
    )
        async throws
    {
        let series = document.versionSeriesId ?? document.id
        let versions = sortedVersions(try await store.versions(repositoryId: scope.id, versionSeriesId: series))
        let now = configuration.clock()
        let released = versions.filter { !$0.isPrivateWorkingCopy }
        if allVersions || released.allSatisfy({ $0.id == document.id }) {
            for version in versions { plan.delete(version) }
            if versions.isEmpty { plan.delete(document) }
            return
        }
        plan.delete(document)
        let remaining = versions.filter { $0.id != document.id }
        if document.isPrivateWorkingCopy {
            // Deleting the working copy cancels the check-out.
            for version in remaining {
                plan.update(from: version, to: touched(version, scope, values: checkedOutFlags(nil), now: now))
            }
            return
        }
        guard document.isLatestVersion, let next = remaining.first(where: { !$0.isPrivateWorkingCopy }) else { return }
        var promoted = next
        promoted.isLatestVersion = true
        promoted.parentIds = document.parentIds
        let latestMajor = remaining.first { !$0.isPrivateWorkingCopy && $0.isMajorVersion }?.id
        promoted = touched(
            promoted, scope, values: ["cmis:isLatestMajorVersion": [.boolean(latestMajor == promoted.id)]], now: now)
        plan.update(from: next, to: promoted)
        if let latestMajor, latestMajor != promoted.id,
            let major = remaining.first(where: { $0.id == latestMajor })
        {
            plan.update(
                from: major,
                to: touched(major, scope, values: ["cmis:isLatestMajorVersion": [.boolean(true)]], now: now))
        }
    }

    /// The checked-out properties of a version series.
    func checkedOutFlags(_ checkedOut: (id: String, by: String)?) -> [String: [PropertyValue]] {
        [
            "cmis:isVersionSeriesCheckedOut": [.boolean(checkedOut != nil)],
            "cmis:versionSeriesCheckedOutId": checkedOut.map { [.id($0.id)] } ?? [],
            "cmis:versionSeriesCheckedOutBy": checkedOut.map { [.string($0.by)] } ?? [],
        ]
    }

    /// Adds the relationships that start or end at deleted objects, and applies the plan in one batch.
    func execute(_ scope: Scope, _ plan: DeletionPlan) async throws {
        var plan = plan
        for object in plan.deletes where object.baseTypeId != .relationship {
            for relationship in try await store.relationships(repositoryId: scope.id, objectId: object.id) {
                plan.delete(relationship)
            }
        }
        let now = configuration.clock()
        var tokens: [String: Int64] = [:]
        for object in plan.deletes + plan.updates { tokens[object.id] = plan.originalTokens[object.id] }
        var changes: [StoredChange] = []
        for object in plan.deletes {
            var deletion = change(object, .deleted, now)
            deletion.readers = try await readers(scope, of: object)
            changes.append(deletion)
        }
        changes += plan.updates.map { change($0, .updated, now) }
        try await apply(
            StoreBatch(
                repositoryId: scope.id, expectedChangeTokens: tokens, updates: plan.updates,
                deletes: plan.deletes.map(\.id), changes: changes), in: scope)
    }

    /// Needs `cmis:write`. A folder must be empty and a policy applied to nothing (`constraint`); an old version goes
    /// only with `allVersions` (`constraint`); the root folder cannot be deleted. Deleting the latest version promotes
    /// the previous one, deleting a working copy cancels its check-out, and relationships that start or end at a
    /// deleted object go with it: one batch in all.
    public func deleteObject(
        repositoryId: String, objectId: String, allVersions: Bool, caller: CallerContext
    )
        async throws
    {
        let scope = try await scope(repositoryId, caller)
        let object = try await load(scope, objectId)
        guard object.id != scope.rootId else { throw CMISError(.constraint, "The root folder cannot be deleted.") }
        try await require(.write, scope, on: object, to: "delete")
        var plan = DeletionPlan()
        switch object.baseTypeId {
        case .folder:
            let children = try await store.children(
                repositoryId: scope.id, folderId: object.id, order: [], offset: 0, limit: 1)
            guard children.totalCount == 0 else {
                throw CMISError(
                    .constraint,
                    "Folder '\(object.name)' is not empty (\(children.totalCount) objects); delete its tree instead.")
            }
            plan.delete(object)
        case .document:
            if !allVersions && !object.isLatestVersion && !object.isPrivateWorkingCopy {
                throw CMISError(
                    .constraint, "An old version is immutable: delete the whole version series (allVersions) instead.")
            }
            try await planDocumentDeletion(scope, object, allVersions: allVersions, into: &plan)
        case .policy:
            let users = try await store.scan(repositoryId: scope.id, baseTypes: nil, typeIds: nil, latestOnly: false)
            if let user = users.first(where: { $0.policyIds.contains(object.id) }) {
                throw CMISError(
                    .constraint, "Policy '\(object.name)' is applied to '\(user.name)' (\(user.id)); remove it first.")
            }
            plan.delete(object)
        default:
            plan.delete(object)
        }
        try await execute(scope, plan)
    }

    /// Needs `cmis:write` on the folder. The folder, every folder below it, and what they hold go in one batch; an
    /// object also filed outside the tree is deleted or only unfiled from it as `unfileObjects` says (deleted only when
    /// the caller may write it). Documents go with all their versions. All or nothing: the answer is always empty, and
    /// `allVersions` and `continueOnFailure` are not used. More than the configured `maximumTreeSize` objects is
    /// `constraint`.
    public func deleteTree(
        repositoryId: String, folderId: String, allVersions: Bool, unfileObjects: UnfileObjects,
        continueOnFailure: Bool, caller: CallerContext
    ) async throws -> [String] {
        let scope = try await scope(repositoryId, caller)
        let folder = try await loadFolder(scope, folderId)
        guard folder.id != scope.rootId else { throw CMISError(.constraint, "The root folder cannot be deleted.") }
        // ACEs only grant and are inherited, so write access to the folder covers everything whose primary parent
        // is below it; an object filed here from elsewhere keeps its own rights and is only unfiled from the tree.
        try await require(.write, scope, on: folder, to: "delete")
        var folderIds: Set<String> = [folder.id]
        var queue = [folder]
        var plan = DeletionPlan()
        var others: [String: StoredObject] = [:]
        var visited = 0
        while let current = queue.popLast() {
            plan.delete(current)
            let page = try await store.children(
                repositoryId: scope.id, folderId: current.id, order: [], offset: 0, limit: nil)
            visited += page.objects.count
            guard visited <= configuration.maximumTreeSize else {
                throw CMISError(
                    .constraint,
                    "The tree holds more than \(configuration.maximumTreeSize) objects; delete parts of it first.")
            }
            for child in page.objects {
                if child.baseTypeId == .folder {
                    if folderIds.insert(child.id).inserted { queue.append(child) }
                } else {
                    others[child.id] = child
                }
            }
        }
        let now = configuration.clock()
        for object in others.values.sorted(by: { $0.id < $1.id }) {
            let outside = object.parentIds.filter { !folderIds.contains($0) }
            var remove: Bool
            switch unfileObjects {
            case .delete: remove = true
            case .deletesinglefiled: remove = outside.isEmpty
            case .unfile: remove = false
            }
            if remove, !outside.isEmpty, try await permission(scope, on: object) < .write { remove = false }
            if remove {
                if object.baseTypeId == .document {
                    try await planDocumentDeletion(scope, object, allVersions: true, into: &plan)
                } else {
                    plan.delete(object)
                }
            } else {
                var unfiled = object
                unfiled.parentIds = outside
                plan.update(from: object, to: touched(unfiled, scope, now: now))
            }
        }
        try await execute(scope, plan)
        return []
    }
}
