import Foundation
public import SatchelCMISCore

extension CMISRepository {
    /// Throws `updateConflict` when the caller's change token is not the object's.
    func checkChangeToken(_ token: String?, _ object: StoredObject) throws {
        guard let token, !token.isEmpty else { return }
        guard token == String(object.changeToken) else {
            throw CMISError(
                .updateConflict,
                "'\(object.name)' (\(object.id)) was changed since it was read (change token \(object.changeToken), "
                    + "not \(Self.shorten(token))); read it again and retry.")
        }
    }

    /// Throws `versioning` for old versions, which never change.
    func checkMutable(_ object: StoredObject) throws {
        guard object.baseTypeId != .document || object.isLatestVersion || object.isPrivateWorkingCopy else {
            throw CMISError(
                .versioning, "'\(object.name)' (\(object.id)) is an old version and cannot be changed.")
        }
    }

    /// The object with its change token bumped, the modification stamped and `values` applied.
    func touched(
        _ object: StoredObject, _ scope: Scope, values: [String: [PropertyValue]] = [:], now: Date
    )
        -> StoredObject
    {
        var updated = object
        updated.changeToken += 1
        updated.modifiedAt = now
        updated.properties = stamp(updated, setting: values, by: scope.user, creating: false)
        return updated
    }

    /// Stores one changed object (checked against the token it was read with) and returns it rendered.
    func update(
        _ scope: Scope, from old: StoredObject, to new: StoredObject, extra: [StoredObject] = []
    )
        async throws -> CMISObject
    {
        var tokens = [old.id: old.changeToken]
        for object in extra { tokens[object.id] = object.changeToken - 1 }
        try await apply(
            StoreBatch(
                repositoryId: scope.id, expectedChangeTokens: tokens, updates: [new] + extra,
                changes: [change(new, .updated, new.modifiedAt)]), in: scope)
        return try await render(scope, new, OperationContext(), filter: .all)
    }

    /// Needs `cmis:write`; an old version is `versioning`, renaming the root folder `constraint`. A nil or empty
    /// `changeToken` is not checked. New names are checked as a new object's are.
    public func updateProperties(
        repositoryId: String, objectId: String, changeToken: String?, properties: Properties, caller: CallerContext
    ) async throws -> CMISObject {
        let scope = try await scope(repositoryId, caller)
        let object = try await load(scope, objectId)
        try await require(.write, scope, on: object, to: "change")
        try checkMutable(object)
        try checkChangeToken(changeToken, object)
        let updated = try updatedProperties(scope, object, properties, now: configuration.clock())
        return try await update(scope, from: object, to: updated)
    }

    /// The object with validated new property values (and name).
    func updatedProperties(
        _ scope: Scope, _ object: StoredObject, _ properties: Properties, now: Date
    ) throws
        -> StoredObject
    {
        guard let type = types.type(object.typeId) else {
            throw CMISError(.runtime, "Object '\(object.id)' has the unknown type '\(object.typeId)'.")
        }
        var values = try validate(properties, type: type, .update(isPrivateWorkingCopy: object.isPrivateWorkingCopy))
        var renamed = object
        if let name = values.removeValue(forKey: "cmis:name") {
            if object.id == scope.rootId {
                throw CMISError(.constraint, "The root folder cannot be renamed.")
            }
            guard let first = name.first?.stringValue else {
                guard object.baseTypeId == .relationship else {
                    throw CMISError(.constraint, "cmis:name is required and cannot be removed.")
                }
                renamed.name = ""
                return touched(renamed, scope, values: values, now: now)
            }
            try checkName(first)
            renamed.name = first
        }
        return touched(renamed, scope, values: values, now: now)
    }

    /// Each object is updated on its own, as `updateProperties` would; objects that cannot be (missing, not permitted,
    /// changed since, invalid values) are left out of the answer, while `runtime` and `storage` errors end the call. At
    /// most the configured `maximumMaxItems` objects; `newId` is always nil.
    public func bulkUpdateProperties(
        repositoryId: String, objects: [(id: String, changeToken: String?)], properties: Properties,
        addSecondaryTypeIds: [String], removeSecondaryTypeIds: [String], caller: CallerContext
    ) async throws -> [(id: String, newId: String?, changeToken: String?)] {
        let scope = try await scope(repositoryId, caller)
        guard objects.count <= configuration.maximumMaxItems else {
            throw CMISError(.invalidArgument, "At most \(configuration.maximumMaxItems) objects per bulk update.")
        }
        var results: [(id: String, newId: String?, changeToken: String?)] = []
        for (id, token) in objects {
            do {
                let object = try await load(scope, id)
                try await require(.write, scope, on: object, to: "change")
                try checkMutable(object)
                try checkChangeToken(token, object)
                var input = properties
                if !addSecondaryTypeIds.isEmpty || !removeSecondaryTypeIds.isEmpty {
                    var secondary = object.properties["cmis:secondaryObjectTypeIds"]?.stringValues ?? []
                    secondary.removeAll { removeSecondaryTypeIds.contains($0) }
                    secondary += addSecondaryTypeIds.filter { !secondary.contains($0) }
                    input["cmis:secondaryObjectTypeIds"] = CMISProperty(
                        id: "cmis:secondaryObjectTypeIds", type: .id, cardinality: .multi,
                        values: secondary.map(PropertyValue.id))
                }
                let updated = try updatedProperties(scope, object, input, now: configuration.clock())
                _ = try await update(scope, from: object, to: updated)
                results.append((id, nil, String(updated.changeToken)))
            } catch let error as CMISError where error.code != .runtime && error.code != .storage {
                continue  // bulk update skips the objects it cannot change
            }
        }
        return results
    }

    // MARK: Move

    /// Needs `cmis:write` on the object and on both folders. Moving to the folder it is in returns the object
    /// unchanged; a folder cannot move into itself or below itself, and the root folder, unfiled objects and old
    /// versions cannot move (`constraint`).
    public func moveObject(
        repositoryId: String, objectId: String, targetFolderId: String, sourceFolderId: String?,
        caller: CallerContext
    ) async throws -> CMISObject {
        let scope = try await scope(repositoryId, caller)
        let object = try await load(scope, objectId)
        guard object.id != scope.rootId else { throw CMISError(.constraint, "The root folder cannot be moved.") }
        guard types.type(object.typeId)?.fileable == true else {
            throw CMISError(.constraint, "Objects of type '\(object.typeId)' are not filed and cannot be moved.")
        }
        guard !object.parentIds.isEmpty else {
            throw CMISError(
                .constraint,
                object.baseTypeId == .document && (!object.isLatestVersion || object.isPrivateWorkingCopy)
                    ? "Move the latest version of the document; its other versions follow it."
                    : "'\(object.name)' is not filed in any folder; add it to one instead.")
        }
        let sourceId: String
        if let sourceFolderId {
            guard object.parentIds.contains(sourceFolderId) else {
                throw CMISError(.invalidArgument, "'\(object.name)' is not filed in folder '\(sourceFolderId)'.")
            }
            sourceId = sourceFolderId
        } else {
            guard object.parentIds.count == 1 else {
                throw CMISError(
                    .invalidArgument, "'\(object.name)' is filed in several folders; say which one to move it from.")
            }
            sourceId = object.parentIds[0]
        }
        try await require(.write, scope, on: object, to: "move")
        let source = try await loadFolder(scope, sourceId)
        try await require(.write, scope, on: source, to: "remove objects from")
        let target = try await targetFolder(scope, targetFolderId)
        if sourceId == target.id { return try await render(scope, object, OperationContext(), filter: .all) }
        if object.baseTypeId == .folder {
            for entry in try await ancestry(scope, from: target.id) where entry.id == object.id {
                throw CMISError(.constraint, "A folder cannot be moved into itself or one of its subfolders.")
            }
        }
        var moved = object
        moved.parentIds = object.parentIds.map { $0 == sourceId ? target.id : $0 }
        var seen: Set<String> = []
        moved.parentIds = moved.parentIds.filter { seen.insert($0).inserted }
        return try await update(scope, from: object, to: touched(moved, scope, now: configuration.clock()))
    }

    // MARK: Multi-filing

    /// A document, item or policy that can be filed: for documents, the version that carries the filings.
    func fileable(_ scope: Scope, _ objectId: String) async throws -> StoredObject {
        let object = try await load(scope, objectId)
        guard object.baseTypeId != .folder, types.type(object.typeId)?.fileable == true else {
            throw CMISError(
                .constraint,
                object.baseTypeId == .folder
                    ? "A folder has exactly one parent; move it instead."
                    : "Objects of type '\(object.typeId)' are not filed in folders.")
        }
        if object.baseTypeId == .document && (!object.isLatestVersion || object.isPrivateWorkingCopy) {
            throw CMISError(.constraint, "Versions are filed together: use the latest version of the document.")
        }
        return object
    }

    /// Needs `cmis:read` on the object and `cmis:write` on the folder. A document is filed through its latest version
    /// (other versions are `constraint`), and `allVersions` is not used: versions are filed together. A folder is
    /// `constraint`. Filing where it is filed already changes nothing.
    public func addObjectToFolder(
        repositoryId: String, objectId: String, folderId: String, allVersions: Bool, caller: CallerContext
    ) async throws -> CMISObject {
        let scope = try await scope(repositoryId, caller)
        let object = try await fileable(scope, objectId)
        try await require(.read, scope, on: object, to: "file")
        let folder = try await targetFolder(scope, folderId)
        if object.parentIds.contains(folder.id) {
            return try await render(scope, object, OperationContext(), filter: .all)
        }
        var filed = object
        filed.parentIds.append(folder.id)
        return try await update(scope, from: object, to: touched(filed, scope, now: configuration.clock()))
    }

    /// Needs `cmis:write` on the folder left (every folder, when `folderId` is nil). Removing the object's first
    /// filing, which decides what it inherits, needs `cmis:write` on the object too. The object may end up unfiled.
    public func removeObjectFromFolder(
        repositoryId: String, objectId: String, folderId: String?, caller: CallerContext
    ) async throws -> CMISObject {
        let scope = try await scope(repositoryId, caller)
        let object = try await fileable(scope, objectId)
        try await require(.read, scope, on: object, to: "unfile")
        // The primary filing decides what the object inherits (``inheritanceParent(_:of:)``): removing it hands
        // that role to another folder, or to the root, which is a change of who may reach the object, as a move is.
        if folderId == nil || folderId == object.parentIds.first {
            try await require(.write, scope, on: object, to: "unfile")
        }
        var unfiled = object
        if let folderId {
            guard object.parentIds.contains(folderId) else {
                throw CMISError(.invalidArgument, "'\(object.name)' is not filed in folder '\(folderId)'.")
            }
            let folder = try await loadFolder(scope, folderId)
            try await require(.write, scope, on: folder, to: "remove objects from")
            unfiled.parentIds.removeAll { $0 == folderId }
        } else {
            for parent in try await store.objects(repositoryId: scope.id, ids: object.parentIds) {
                try await require(.write, scope, on: parent, to: "remove objects from")
            }
            unfiled.parentIds = []
        }
        return try await update(scope, from: object, to: touched(unfiled, scope, now: configuration.clock()))
    }
}
