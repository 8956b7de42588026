import Foundation
import SatchelCMISCore
import SatchelCMISQL
import SatchelJSON
import SatchelRepository

/// Locks, the trash, versions and the caller's permissions over the Nuxeo API (docs/nuxeo.md).
///
/// Locks and the trash are ``DocumentMarks``. Versions are the repository's: a document's Nuxeo uid is its CMIS
/// version series id (the id of its first version), so it stays the same when `X-Versioning-Option` or
/// `Document.CheckIn` makes a new version; the uid always names the latest version.
extension NuxeoHandler {
    var marks: DocumentMarks { environment.documentMarks }

    /// The object a Nuxeo uid names: the latest version of a document whose series it names.
    func object(uid: String, repository: String, caller: CallerContext) async throws -> CMISObject {
        let object = try await service.object(
            repositoryId: repository, id: uid, context: OperationContext(includePathSegment: true), caller: caller)
        // A working copy (a document created checked out over CMIS) has no checked-in version to go to.
        guard object.baseType == .document, object.isLatestVersion == false, object.versionSeriesId == uid,
            object.properties["cmis:isPrivateWorkingCopy"]?.values.first?.boolValue != true
        else { return object }
        return try await service.objectOfLatestVersion(
            repositoryId: repository, objectId: uid, major: false, context: OperationContext(includePathSegment: true),
            caller: caller)
    }

    /// A document's Nuxeo uid: its version series for the latest version of a document, its id otherwise.
    static func uid(of object: CMISObject) -> String {
        guard object.baseType == .document, object.isLatestVersion != false, let series = object.versionSeriesId else {
            return object.id ?? ""
        }
        return series
    }

    /// What locks and trash marks are kept under: a document's version series (every version and working copy of
    /// it shares its lock and its place in the trash), a folder's id.
    static func markKey(of object: CMISObject) -> String {
        guard object.baseType == .document, let series = object.versionSeriesId else { return object.id ?? "" }
        return series
    }

    // MARK: Locks

    /// `Document.Lock`: needs the right to change the document; a locked document is refused.
    func lockDocument(_ object: CMISObject, repository: String, caller: CallerContext) async throws {
        try await require(
            \.canUpdateProperties, on: object, repository: repository, caller: caller, "change", "lock it")
        let owned = marks.locks(in: repository).values.count { $0.owner == caller.user }
        if owned >= DocumentMarks.maximumLocksPerUser {
            // At the quota: forget the locks of what was deleted meanwhile (over CMIS, or with its folder) first.
            await forgetDeleted(
                marks.locks(in: repository).filter { $0.value.owner == caller.user }.keys, repository: repository,
                caller: caller)
        }
        _ = try marks.lock(Self.markKey(of: object), in: repository, by: caller.user)
    }

    /// `Document.Unlock`: the lock's owner, or someone with `Everything` on the document.
    func unlockDocument(_ object: CMISObject, repository: String, caller: CallerContext) async throws {
        let id = Self.markKey(of: object)
        guard let lock = marks.lock(of: id, in: repository) else { return }
        var mayOverride = caller.isAdministrator
        if lock.owner != caller.user, !mayOverride {
            mayOverride =
                try await service.allowableActions(repositoryId: repository, objectId: object.id ?? id, caller: caller)
                .canApplyACL
        }
        try marks.unlock(id, in: repository, by: caller.user, mayOverride: mayOverride)
    }

    /// Throws `updateConflict` when another user holds the document's lock.
    func checkUnlocked(_ object: CMISObject, repository: String, caller: CallerContext) throws(CMISError) {
        try marks.checkUnlocked(Self.markKey(of: object), in: repository, for: caller.user)
    }

    /// Throws `updateConflict` when another user holds the lock of the folder or of anything under it.
    func checkTreeUnlocked(_ folder: CMISObject, repository: String, caller: CallerContext) async throws {
        try checkUnlocked(folder, repository: repository, caller: caller)
        let others = marks.locks(in: repository).filter { $0.value.owner != caller.user }
        guard !others.isEmpty, folder.baseType == .folder else { return }
        let base = try await path(of: folder, repository: repository, caller: caller)
        for (id, lock) in others {
            // A lock on what the caller cannot see, or on what is gone, stops nothing the caller could delete;
            // any other failure stops the delete.
            let path: String
            do {
                path = try await self.path(
                    of: try await object(uid: id, repository: repository, caller: caller), repository: repository,
                    caller: caller)
            } catch let error as CMISError where [.objectNotFound, .permissionDenied].contains(error.code) {
                continue
            }
            if base == "/" || path.hasPrefix(base + "/") {
                throw CMISError(.updateConflict, "\(path) is locked by \(lock.owner)")
            }
        }
    }

    // MARK: Trash

    /// `Document.Trash`: needs the right to delete the document; it stays where it is, out of `@children` and of
    /// searches for live documents.
    func trashDocument(_ object: CMISObject, repository: String, caller: CallerContext) async throws {
        let id = Self.markKey(of: object)
        try await require(\.canDeleteObject, on: object, repository: repository, caller: caller, "delete", "trash it")
        try checkUnlocked(object, repository: repository, caller: caller)
        let parent = try await placement(of: object, repository: repository, caller: caller).parentID
        let own = marks.trashed(in: repository, by: caller.user)
        if own.count >= DocumentMarks.maximumTrashedPerUser {
            // Full: forget what was deleted meanwhile (over CMIS, or with its folder) first.
            await forgetDeleted(own.keys, repository: repository, caller: caller)
        }
        try marks.trash(id, parentID: parent, in: repository, by: caller.user)
    }

    /// Forgets the marks of those of `keys` whose documents are gone.
    private func forgetDeleted(_ keys: some Collection<String>, repository: String, caller: CallerContext) async {
        var gone: [String] = []
        for id in keys {
            do {
                _ = try await service.object(
                    repositoryId: repository, id: id, context: OperationContext(filter: ["cmis:objectId"]),
                    caller: CallerContext(user: caller.user, isAdministrator: true))
            } catch let error as CMISError where error.code == .objectNotFound {
                gone.append(id)
            } catch {}
        }
        marks.forget(gone, in: repository)
    }

    /// `Document.Untrash`: back among the live documents.
    func untrashDocument(_ object: CMISObject, repository: String, caller: CallerContext) async throws {
        try await require(
            \.canDeleteObject, on: object, repository: repository, caller: caller, "delete", "restore it from the trash"
        )
        try checkUnlocked(object, repository: repository, caller: caller)
        try marks.untrash(Self.markKey(of: object), in: repository)
    }

    /// Throws `permissionDenied` unless the caller may do `allowed` on the object ("alice may not delete x, so may
    /// not trash it").
    func require(
        _ allowed: (AllowableActions) -> Bool, on object: CMISObject, repository: String, caller: CallerContext,
        _ action: String, _ purpose: String
    ) async throws {
        let id = Self.uid(of: object)
        let actions = try await service.allowableActions(
            repositoryId: repository, objectId: object.id ?? id, caller: caller)
        guard allowed(actions) else {
            throw CMISError(
                .permissionDenied, "\(caller.user) may not \(action) \(object.name ?? id), so may not \(purpose)")
        }
    }

    /// A page of a folder's children without the trashed ones: the children (with their path segments), whether
    /// more follow, and the count when it is known.
    func liveChildren(
        of folderID: String, skip: Int, max: Int, repository: String, caller: CallerContext
    ) async throws -> (children: [ObjectInFolder], more: Bool, total: Int64?) {
        let trashed = marks.trashed(in: repository)
        let context = OperationContext(includePathSegment: true)
        let list = try await service.children(
            repositoryId: repository, folderId: folderID, context: context, maxItems: max, skipCount: skip,
            caller: caller)
        let trashedInPage = list.objects.map { Self.markKey(of: $0.object) }.filter { trashed[$0] != nil }
        // A trashed document moved here since (over CMIS): kept under this folder from now on.
        for key in trashedInPage where trashed[key]?.parentID != folderID {
            marks.moved(key, to: folderID, in: repository)
        }
        guard !trashedInPage.isEmpty || trashed.values.contains(where: { $0.parentID == folderID }) else {
            return (list.objects, list.hasMoreItems, list.numItems)
        }
        // The folder holds trashed children: walk it from the start, leaving them out, up to the page's end.
        var live: [ObjectInFolder] = []
        var offset = 0
        var exhausted = false
        while live.count <= skip + max {
            guard offset < Self.maximumChildren else {
                throw CMISError(
                    .constraint,
                    "the folder holds more than \(Self.maximumChildren) children, some of them trashed: page through"
                        + " it with NXQL (ecm:parentId = '\(folderID)' AND ecm:isTrashed = 0)")
            }
            let chunk = try await service.children(
                repositoryId: repository, folderId: folderID, context: context, maxItems: 1000, skipCount: offset,
                caller: caller)
            live += chunk.objects.filter { trashed[Self.markKey(of: $0.object)] == nil }
            offset += chunk.objects.count
            guard chunk.hasMoreItems, !chunk.objects.isEmpty else {
                exhausted = true
                break
            }
        }
        let page = Array(live.dropFirst(skip).prefix(max))
        let more = live.count > skip + max || !exhausted
        return (page, more, exhausted ? Int64(live.count) : nil)
    }

    /// The trash keys an NXQL search leaves out (`ecm:isTrashed = 0`) or keeps to (`= 1`); nil when it changes
    /// nothing, empty when it asks for the trash and the trash is empty.
    func trashFilter(_ trashed: Bool?, repository: String) -> NXQLTranslator.TrashFilter? {
        guard let trashed else { return nil }
        let keys = marks.trashed(in: repository).keys.sorted()
        guard !keys.isEmpty || trashed else { return nil }
        return NXQLTranslator.TrashFilter(keys: keys, only: trashed)
    }

    // MARK: Versions

    /// `X-Versioning-Option` / `Document.CheckIn`: a new version of the document (`MAJOR` or `MINOR`), with the
    /// same uid. `NONE` (or no option) leaves it be.
    func version(
        _ object: CMISObject, option: String?, comment: String? = nil, repository: String, caller: CallerContext
    ) async throws -> CMISObject {
        guard let option = try Self.versioningOption(option) else { return object }
        try await checkVersionable(object, repository: repository, caller: caller)
        guard let id = object.id else { throw CMISError(.objectNotFound, "no such document") }
        let workingCopy = try await service.checkOut(repositoryId: repository, objectId: id, caller: caller)
        guard let copy = workingCopy.id else { throw CMISError(.runtime, "the working copy has no id") }
        do {
            return try await service.checkIn(
                repositoryId: repository, objectId: copy, major: option == "MAJOR", properties: Properties(),
                content: nil, comment: comment, policies: [], addACEs: [], removeACEs: [], caller: caller)
        } catch {
            try? await service.cancelCheckOut(repositoryId: repository, objectId: copy, caller: caller)
            throw error
        }
    }

    /// Throws unless a new version of the object can be made: a document, not locked by another user, that the
    /// caller may check out. Asked before any change a versioned update makes.
    func checkVersionable(_ object: CMISObject, repository: String, caller: CallerContext) async throws {
        guard object.baseType == .document else {
            throw CMISError(.invalidArgument, "only documents have versions: \(object.name ?? "this") is a folder")
        }
        try checkUnlocked(object, repository: repository, caller: caller)
        try await require(
            \.canCheckOut, on: object, repository: repository, caller: caller, "check out", "make a version of it")
    }

    /// `MAJOR` or `MINOR`; nil for `NONE`, `AUTO` or none. Anything else is refused (before any change is made).
    static func versioningOption(_ option: String?) throws(CMISError) -> String? {
        guard let option = option?.uppercased(), option != "NONE", option != "AUTO" else { return nil }
        guard option == "MAJOR" || option == "MINOR" else {
            throw CMISError(.invalidArgument, "the versioning option is MAJOR, MINOR or NONE, not \(option)")
        }
        return option
    }

    // MARK: Permissions

    /// The `permissions` enricher: what the caller may do with the document, in Nuxeo's names.
    func permissionNames(of object: CMISObject, repository: String, caller: CallerContext) async throws -> JSONValue {
        let actions = try await service.allowableActions(
            repositoryId: repository, objectId: object.id ?? "", caller: caller)
        var names: [String] = []
        if actions.canGetProperties { names += ["Browse", "Read", "ReadProperties", "ReadChildren"] }
        if actions.canUpdateProperties { names += ["ReadWrite", "Write", "WriteProperties", "ReadVersion"] }
        if actions.canDeleteObject { names += ["Remove", "ReadRemove"] }
        if actions.canCreateDocument || actions.canCreateFolder { names.append("AddChildren") }
        if actions.canCheckOut || actions.canCheckIn { names.append("WriteVersion") }
        if actions.canApplyACL { names += ["Everything", "WriteSecurity", "ReadSecurity", "Unlock"] }
        return .array(names.map { .string($0) })
    }
}
