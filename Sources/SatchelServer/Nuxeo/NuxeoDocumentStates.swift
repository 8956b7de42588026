import Foundation
import SatchelCMISCore
import SatchelCMISQL
import SatchelNXQL
import SatchelJSON
import SatchelRepository

/// Locks, the trash, versions and the caller's permissions over the Nuxeo API (docs/nuxeo.md).
///
/// Locks and the trash are ``DocumentMarks``, kept in the metadata store. Versions are the repository's: a document's Nuxeo uid is its CMIS
/// version series id (the id of its first version), so it stays the same when `X-Versioning-Option` or
/// `Document.CheckIn` makes a new version; the uid always names the latest version.
extension NuxeoHandler {
    var marks: DocumentMarks { environment.documentMarks }

    /// The object a Nuxeo uid names: the latest version of a document whose series it names.
    func object(uid: String, repository: String, caller: CallerContext) async throws -> CMISObject {
        let object = try await service(repository).object(
            repositoryId: repository, id: uid, context: OperationContext(includePathSegment: true), caller: caller)
        // A working copy (a document created checked out over CMIS) has no checked-in version to go to.
        guard object.baseType == .document, object.isLatestVersion == false, object.versionSeriesId == uid,
            object.properties["cmis:isPrivateWorkingCopy"]?.values.first?.boolValue != true
        else { return object }
        return try await service(repository).objectOfLatestVersion(
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
        _ = try await marks.lock(Self.markKey(of: object), in: repository, by: caller.user)
    }

    /// `Document.Unlock`: the lock's owner, or someone with `Everything` on the document.
    func unlockDocument(_ object: CMISObject, repository: String, caller: CallerContext) async throws {
        let id = Self.markKey(of: object)
        guard let lock = try await marks.lock(of: id, in: repository) else { return }
        var mayOverride = caller.isAdministrator
        if lock.owner != caller.user, !mayOverride {
            mayOverride =
                try await service(repository).allowableActions(
                    repositoryId: repository, objectId: object.id ?? id, caller: caller
                )
                .canApplyACL
        }
        try await marks.unlock(id, in: repository, by: caller.user, mayOverride: mayOverride)
    }

    /// Throws `updateConflict` when another user holds the document's lock.
    func checkUnlocked(_ object: CMISObject, repository: String, caller: CallerContext) async throws {
        try await marks.checkUnlocked(Self.markKey(of: object), in: repository, for: caller.user)
    }

    /// Throws `updateConflict` when another user holds the lock of the folder or of anything under it.
    func checkTreeUnlocked(_ folder: CMISObject, repository: String, caller: CallerContext) async throws {
        try await checkUnlocked(folder, repository: repository, caller: caller)
        guard folder.baseType == .folder else { return }
        let others = try await marks.store.locks(
            repositoryId: repository, notOwnedBy: caller.user, limit: Self.maximumLocksChecked + 1)
        guard !others.isEmpty else { return }
        guard others.count <= Self.maximumLocksChecked else {
            throw CMISError(
                .constraint,
                "other users hold more than \(Self.maximumLocksChecked) locks here: delete what is inside the folder"
                    + " first, or have them unlocked")
        }
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
        try await checkUnlocked(object, repository: repository, caller: caller)
        let parent = try await placement(of: object, repository: repository, caller: caller).parentID
        try await marks.trash(id, parentID: parent, in: repository, by: caller.user)
    }

    /// `Document.Untrash`: back among the live documents.
    func untrashDocument(_ object: CMISObject, repository: String, caller: CallerContext) async throws {
        try await require(
            \.canDeleteObject, on: object, repository: repository, caller: caller, "delete", "restore it from the trash"
        )
        try await checkUnlocked(object, repository: repository, caller: caller)
        try await marks.untrash(Self.markKey(of: object), in: repository)
    }

    /// Throws `permissionDenied` unless the caller may do `allowed` on the object ("alice may not delete x, so may
    /// not trash it").
    func require(
        _ allowed: (AllowableActions) -> Bool, on object: CMISObject, repository: String, caller: CallerContext,
        _ action: String, _ purpose: String
    ) async throws {
        let id = Self.uid(of: object)
        let actions = try await service(repository).allowableActions(
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
        let context = OperationContext(includePathSegment: true)
        let list = try await service(repository).children(
            repositoryId: repository, folderId: folderID, context: context, maxItems: max, skipCount: skip,
            caller: caller)
        let trashed = try await marks.trashMarks(of: list.objects.map { Self.markKey(of: $0.object) }, in: repository)
        // A trashed document moved here since (over CMIS): kept under this folder from now on.
        for (key, mark) in trashed where mark.parentId != folderID {
            try await marks.moved(key, to: folderID, in: repository)
        }
        var holdsTrash = !trashed.isEmpty
        if !holdsTrash { holdsTrash = try await marks.store.holdsTrash(repositoryId: repository, folderId: folderID) }
        guard holdsTrash else { return (list.objects, list.hasMoreItems, list.numItems) }
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
            let chunk = try await service(repository).children(
                repositoryId: repository, folderId: folderID, context: context, maxItems: 1000, skipCount: offset,
                caller: caller)
            let inChunk = try await marks.trashMarks(
                of: chunk.objects.map { Self.markKey(of: $0.object) }, in: repository)
            live += chunk.objects.filter { inChunk[Self.markKey(of: $0.object)] == nil }
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

    /// The trash keys an NXQL search of a repository whose store cannot leave out the trash itself (a gateway
    /// mount) leaves out (`ecm:isTrashed = 0`) or keeps to (`= 1`), as conditions of the search: at most
    /// ``maximumTrashNamed`` of them. Nil when the trash is empty and the search leaves it out.
    func trashFilter(_ trashed: Bool, repository: String) async throws -> NXQLTranslator.TrashFilter? {
        let keys = try await marks.store.trashKeys(repositoryId: repository, limit: Self.maximumTrashNamed + 1)
        guard keys.count <= Self.maximumTrashNamed else {
            throw CMISError(
                .constraint,
                "more than \(Self.maximumTrashNamed) documents of this mount are in the trash, and a search of a"
                    + " mount names each one: empty some of the trash first")
        }
        guard !keys.isEmpty || trashed else { return nil }
        return NXQLTranslator.TrashFilter(keys: keys, only: trashed)
    }

    /// At most this many trash keys in a search of a gateway mount (``trashFilter(_:repository:)``), and this many
    /// other users' locks looked at before a folder is deleted (``checkTreeUnlocked(_:repository:caller:)``).
    static let maximumTrashNamed = 1000
    static let maximumLocksChecked = 10_000

    // MARK: Versions

    /// `X-Versioning-Option` / `Document.CheckIn`: a new version of the document (`MAJOR` or `MINOR`), with the
    /// same uid. `NONE` (or no option) leaves it be.
    func version(
        _ object: CMISObject, option: String?, comment: String? = nil, repository: String, caller: CallerContext
    ) async throws -> CMISObject {
        guard let option = try Self.versioningOption(option) else { return object }
        try await checkVersionable(object, repository: repository, caller: caller)
        guard let id = object.id else { throw CMISError(.objectNotFound, "no such document") }
        let workingCopy = try await service(repository).checkOut(repositoryId: repository, objectId: id, caller: caller)
        guard let copy = workingCopy.id else { throw CMISError(.runtime, "the working copy has no id") }
        do {
            return try await service(repository).checkIn(
                repositoryId: repository, objectId: copy, major: option == "MAJOR", properties: Properties(),
                content: nil, comment: comment, policies: [], addACEs: [], removeACEs: [], caller: caller)
        } catch {
            try? await service(repository).cancelCheckOut(repositoryId: repository, objectId: copy, caller: caller)
            throw error
        }
    }

    /// Throws unless a new version of the object can be made: a document, not locked by another user, that the
    /// caller may check out. Asked before any change a versioned update makes.
    func checkVersionable(_ object: CMISObject, repository: String, caller: CallerContext) async throws {
        guard object.baseType == .document else {
            throw CMISError(.invalidArgument, "only documents have versions: \(object.name ?? "this") is a folder")
        }
        try await checkUnlocked(object, repository: repository, caller: caller)
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
        let actions = try await service(repository).allowableActions(
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
