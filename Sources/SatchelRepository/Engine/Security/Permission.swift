import Foundation
import SatchelCMISCore

/// The three basic CMIS permissions, ordered: `cmis:all` includes `cmis:write`, which includes `cmis:read`.
enum Permission: Int, Comparable, Sendable, CaseIterable {
    case none = 0, read, write, all

    /// The principal every user matches.
    static let anyone = "cmis:anyone"

    var name: String {
        switch self {
        case .none: return "cmis:none"
        case .read: return "cmis:read"
        case .write: return "cmis:write"
        case .all: return "cmis:all"
        }
    }

    init?(name: String) {
        switch name {
        case "cmis:read": self = .read
        case "cmis:write": self = .write
        case "cmis:all": self = .all
        default: return nil
        }
    }

    static func < (lhs: Permission, rhs: Permission) -> Bool { lhs.rawValue < rhs.rawValue }

    /// The strongest permission these ACEs grant `user` (directly or through `cmis:anyone`).
    static func granted(by aces: [ACE], to user: String) -> Permission {
        var best = Permission.none
        for ace in aces where ace.principalId == user || ace.principalId == anyone {
            for name in ace.permissions {
                if let permission = Permission(name: name), permission > best { best = permission }
            }
        }
        return best
    }
}

extension CMISRepository {
    /// The folder chain from `folderId` up to the root (inclusive), from the cache where possible.
    func ancestry(_ scope: Scope, from folderId: String) async throws -> [FolderCache.Entry] {
        var chain: [FolderCache.Entry] = []
        var visited: Set<String> = []
        var current: String? = folderId
        while let id = current {
            guard visited.insert(id).inserted, chain.count <= configuration.maximumTreeSize else {
                throw CMISError(.runtime, "The folder hierarchy above '\(folderId)' loops.")
            }
            let entry: FolderCache.Entry
            if let cached = folders.entry(scope.id, id) {
                entry = cached
            } else {
                let generation = folders.generation(scope.id)
                guard let folder = try await store.object(repositoryId: scope.id, id: id),
                    folder.baseTypeId == .folder
                else { break }
                folders.insert(scope.id, folder, generation: generation)
                entry = FolderCache.Entry(
                    id: folder.id, name: folder.name, parentId: folder.parentIds.first, acl: folder.acl)
            }
            chain.append(entry)
            current = entry.parentId
        }
        return chain
    }

    /// A folder's path (`/` for the root).
    func path(_ scope: Scope, ofFolder folder: StoredObject) async throws -> String {
        guard let parentId = folder.parentIds.first else { return "/" }
        let chain = try await ancestry(scope, from: parentId)
        var path = ""
        for entry in chain.reversed() where entry.parentId != nil { path += "/" + entry.name }
        return path + "/" + folder.name
    }

    /// The folder an object inherits its ACEs from: its primary parent (the first of its filings: the folder it
    /// was created in or last moved to); for unfiled versions and working copies, the primary parent of the
    /// filed version of their series; the root for anything else unfiled; nil for the root itself.
    ///
    /// Only the primary parent counts. Filing an object in another folder (`addObjectToFolder`) needs no more
    /// than read access to it, so a filing must not grant anything: with inheritance from every parent, a reader
    /// of a document who may write some folder could file the document there and then change or delete it.
    func inheritanceParent(_ scope: Scope, of object: StoredObject) async throws -> String? {
        if object.id == scope.rootId { return nil }
        if let primary = object.parentIds.first { return primary }
        if object.baseTypeId == .document, let series = object.versionSeriesId {
            let versions = try await store.versions(repositoryId: scope.id, versionSeriesId: series)
            if let filed = versions.first(where: { !$0.parentIds.isEmpty }) { return filed.parentIds.first }
        }
        return scope.rootId
    }

    /// The ACEs that apply to an object: its own, then those inherited from its primary parent and every folder
    /// above it (``ACE/isDirect`` false). Inheritance always propagates; ACEs only grant, never deny.
    func effectiveACEs(_ scope: Scope, of object: StoredObject) async throws -> [ACE] {
        var aces = object.acl.map { ACE(principalId: $0.principalId, permissions: $0.permissions, isDirect: true) }
        if let parent = try await inheritanceParent(scope, of: object) {
            for entry in try await ancestry(scope, from: parent) {
                for ace in entry.acl {
                    aces.append(ACE(principalId: ace.principalId, permissions: ace.permissions, isDirect: false))
                }
            }
        }
        return aces
    }

    /// What the caller may do with an object: the strongest grant among its own ACEs and those of its primary
    /// parent's chain.
    func permission(_ scope: Scope, on object: StoredObject) async throws -> Permission {
        var inherited: [String: Permission] = [:]
        return try await permission(scope, on: object, inherited: &inherited)
    }

    /// ``permission(_:on:)`` for many objects in a row (a query's candidates): what each parent passes down is
    /// worked out once, in `inherited`, not once per object.
    func permission(
        _ scope: Scope, on object: StoredObject, inherited: inout [String: Permission]
    ) async throws -> Permission {
        // Only the owner ever reaches a MyDocuments repository; administrators may do everything in the shared one.
        if scope.isPersonal || scope.caller.isAdministrator { return .all }
        let own = Permission.granted(by: object.acl, to: scope.user)
        if own == .all { return .all }
        guard let parent = try await inheritanceParent(scope, of: object) else { return own }
        if let known = inherited[parent] { return max(own, known) }
        var best = Permission.none
        for entry in try await ancestry(scope, from: parent) {
            best = max(best, Permission.granted(by: entry.acl, to: scope.user))
            if best == .all { break }
        }
        inherited[parent] = best
        return max(own, best)
    }

    /// The principals who may read an object (`cmis:anyone` when everybody may): kept with its deletion in the
    /// change log, which shows the deletion to them alone.
    func readers(_ scope: Scope, of object: StoredObject) async throws -> [String] {
        if scope.isPersonal { return [scope.user] }
        var principals: [String] = []
        for ace in try await effectiveACEs(scope, of: object)
        where !principals.contains(ace.principalId) && Permission.granted(by: [ace], to: ace.principalId) >= .read {
            principals.append(ace.principalId)
        }
        return principals
    }

    /// Whether the caller may see a change log entry: for an object that still exists, whether they may read it
    /// now; for a deleted one, whether they could read it when it went (administrators see everything, in the
    /// shared repository).
    func maySee(_ change: StoredChange, _ scope: Scope) async throws -> Bool {
        if scope.isPersonal || scope.caller.isAdministrator { return true }
        if let object = try await store.object(repositoryId: scope.id, id: change.objectId) {
            return try await permission(scope, on: object) >= .read
        }
        guard let readers = change.readers else { return false }
        return readers.contains(scope.user) || readers.contains(Permission.anyone)
    }

    /// Throws `permissionDenied` unless the caller has at least `needed` on the object; returns what they have.
    @discardableResult
    func require(
        _ needed: Permission, _ scope: Scope, on object: StoredObject, to action: String
    ) async throws
        -> Permission
    {
        let granted = try await permission(scope, on: object)
        guard granted >= needed else {
            throw CMISError(
                .permissionDenied,
                "User '\(scope.user)' may not \(action) this object: it needs \(needed.name).")
        }
        return granted
    }
}
