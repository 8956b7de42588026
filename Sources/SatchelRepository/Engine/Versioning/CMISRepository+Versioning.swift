import Foundation
public import SatchelCMISCore

extension CMISRepository {
    /// The versions of a document's series, newest first (working copy first).
    func seriesVersions(_ scope: Scope, of document: StoredObject) async throws -> [StoredObject] {
        let series = document.versionSeriesId ?? document.id
        let versions = try await store.versions(repositoryId: scope.id, versionSeriesId: series)
        return sortedVersions(versions.isEmpty ? [document] : versions)
    }

    /// Needs `cmis:write` on the latest version of a versionable document (`constraint` otherwise); a series checked
    /// out already, or an old version, is `versioning`. The working copy is unfiled (it is filed through its series),
    /// and every version is marked checked out, in one batch.
    public func checkOut(repositoryId: String, objectId: String, caller: CallerContext) async throws -> CMISObject {
        let scope = try await scope(repositoryId, caller)
        let document = try await load(scope, objectId)
        guard document.baseTypeId == .document, let type = types.type(document.typeId), type.versionable == true
        else {
            throw CMISError(.constraint, "'\(document.name)' is not a versionable document.")
        }
        try await require(.write, scope, on: document, to: "check out")
        guard !document.isCheckedOut, !document.isPrivateWorkingCopy else {
            throw CMISError(
                .versioning,
                "'\(document.name)' is already checked out by \(document.checkedOutBy ?? "someone")"
                    + " (working copy \(document.checkedOutId ?? "?")).")
        }
        guard document.isLatestVersion else {
            throw CMISError(.versioning, "Only the latest version of '\(document.name)' can be checked out.")
        }
        let now = configuration.clock()
        var workingCopy = document
        workingCopy.id = configuration.idGenerator()
        workingCopy.parentIds = []
        workingCopy.isPrivateWorkingCopy = true
        workingCopy.isLatestVersion = false
        workingCopy.changeToken = 1
        workingCopy.createdAt = now
        workingCopy.modifiedAt = now
        let checkedOut = (id: workingCopy.id, by: scope.user)
        workingCopy.properties = stamp(
            workingCopy,
            setting: Self.versioning(
                label: "pwc", major: false, latestMajor: false, checkedOut: checkedOut, comment: nil),
            by: scope.user, creating: true)
        var updates: [StoredObject] = []
        var tokens: [String: Int64] = [:]
        for version in try await seriesVersions(scope, of: document) {
            tokens[version.id] = version.changeToken
            updates.append(touched(version, scope, values: checkedOutFlags(checkedOut), now: now))
        }
        let changes = [change(workingCopy, .created, now)] + updates.map { change($0, .updated, now) }
        try await apply(
            StoreBatch(
                repositoryId: scope.id, expectedChangeTokens: tokens, inserts: [workingCopy], updates: updates,
                changes: changes), in: scope)
        return try await render(scope, workingCopy, OperationContext(), filter: .all)
    }

    /// The working copy of a checked-out series, from the id of the copy or of any version.
    func workingCopy(_ scope: Scope, _ objectId: String) async throws -> StoredObject {
        let object = try await load(scope, objectId)
        guard object.baseTypeId == .document else {
            throw CMISError(.constraint, "'\(object.name)' is not a document.")
        }
        if object.isPrivateWorkingCopy { return object }
        guard object.isCheckedOut, let id = object.checkedOutId,
            let copy = try await store.object(repositoryId: scope.id, id: id)
        else {
            throw CMISError(.versioning, "'\(object.name)' is not checked out.")
        }
        return copy
    }

    /// `objectId` may name the working copy or any version of the checked-out series (`versioning` when it is not
    /// checked out). Needs `cmis:write` on the working copy; deletes it and clears the series' checked-out properties.
    public func cancelCheckOut(repositoryId: String, objectId: String, caller: CallerContext) async throws {
        let scope = try await scope(repositoryId, caller)
        let copy = try await workingCopy(scope, objectId)
        try await require(.write, scope, on: copy, to: "cancel the check-out of")
        var plan = DeletionPlan()
        try await planDocumentDeletion(scope, copy, allVersions: false, into: &plan)
        try await execute(scope, plan)
    }

    /// `objectId` must name the working copy (`versioning` otherwise); needs `cmis:write` on it. The new version's
    /// label follows the previous one's: the next major (`2.0`) or minor (`1.2`) number. It takes over the series'
    /// folders; the older versions lose theirs.
    public func checkIn(
        repositoryId: String, objectId: String, major: Bool, properties: Properties, content: ContentInput?,
        comment: String?, policies: [String], addACEs: [ACE], removeACEs: [ACE], caller: CallerContext
    ) async throws -> CMISObject {
        let scope = try await scope(repositoryId, caller)
        let copy = try await load(scope, objectId)
        guard copy.baseTypeId == .document, copy.isPrivateWorkingCopy, let type = types.type(copy.typeId) else {
            throw CMISError(.versioning, "'\(copy.name)' is not a private working copy; check it out first.")
        }
        try await require(.write, scope, on: copy, to: "check in")
        if let comment, comment.count > configuration.maximumStringLength {
            throw CMISError(.constraint, "The check-in comment is too long.")
        }
        let now = configuration.clock()
        let versions = try await seriesVersions(scope, of: copy).filter { $0.id != copy.id }
        let previous = versions.first { $0.isLatestVersion } ?? versions.first
        let label: String
        if let previous, let parts = previous.versionLabel?.split(separator: ".").compactMap({ Int($0) }),
            parts.count == 2
        {
            label = major ? "\(parts[0] + 1).0" : "\(parts[0]).\(parts[1] + 1)"
        } else {
            label = major ? "1.0" : "0.1"
        }
        var version = try updatedProperties(scope, copy, properties, now: now)
        version.isPrivateWorkingCopy = false
        version.isLatestVersion = true
        version.parentIds = previous?.parentIds ?? copy.parentIds
        if let content { version.content = try storedContent(content, for: type) }
        version.acl = try changedACL(copy.acl, add: addACEs, remove: removeACEs)
        for id in try await checkPolicies(scope, policies, for: type) where !version.policyIds.contains(id) {
            version.policyIds.append(id)
        }
        version.properties = stamp(
            version,
            setting: Self.versioning(label: label, major: major, latestMajor: major, checkedOut: nil, comment: comment),
            by: scope.user, creating: false)
        var tokens = [copy.id: copy.changeToken]
        var updates = [version]
        for old in versions {
            var values = checkedOutFlags(nil)
            if major { values["cmis:isLatestMajorVersion"] = [.boolean(false)] }
            var changed = old
            changed.isLatestVersion = false
            changed.parentIds = []
            tokens[old.id] = old.changeToken
            updates.append(touched(changed, scope, values: values, now: now))
        }
        try await apply(
            StoreBatch(
                repositoryId: scope.id, expectedChangeTokens: tokens, updates: updates,
                changes: updates.map { change($0, .updated, now) }), in: scope)
        return try await render(scope, version, OperationContext(), filter: .all)
    }

    /// For an object other than a document, the object itself. `objectNotFound` when the series has no checked-in
    /// version (no major version, when `major` is true).
    public func objectOfLatestVersion(
        repositoryId: String, objectId: String, major: Bool, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject {
        let (scope, filter, object, _) = try await readableObject(
            repositoryId, objectId, context: context, caller: caller)
        guard object.baseTypeId == .document else {
            return try await render(scope, object, context, filter: filter)
        }
        let released = try await seriesVersions(scope, of: object).filter { !$0.isPrivateWorkingCopy }
        let latest = major ? released.first { $0.isMajorVersion } : released.first { $0.isLatestVersion }
        guard let latest else {
            throw CMISError(
                .objectNotFound,
                major ? "'\(object.name)' has no major version." : "'\(object.name)' has no checked-in version.")
        }
        return try await render(scope, latest, context, filter: filter)
    }

    /// The working copy first, then by version label; `invalidArgument` for an object other than a document.
    public func allVersions(
        repositoryId: String, objectId: String, context: OperationContext, caller: CallerContext
    ) async throws -> [CMISObject] {
        let (scope, filter, object, granted) = try await readableObject(
            repositoryId, objectId, context: context, caller: caller)
        guard object.baseTypeId == .document else {
            throw CMISError(.invalidArgument, "'\(object.name)' is a \(object.baseTypeId.rawValue), not a document.")
        }
        var result: [CMISObject] = []
        for version in try await seriesVersions(scope, of: object) {
            result.append(
                try await render(
                    scope, version, context, filter: filter,
                    permission: max(granted, Permission.granted(by: version.acl, to: scope.user))))
        }
        return result
    }
}
