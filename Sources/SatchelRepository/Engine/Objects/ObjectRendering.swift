import Foundation
import SatchelCMISCore

/// Which properties an operation returns: all (`*` or no filter) or the named query names.
struct PropertyFilter: Sendable {
    /// nil: every property.
    let names: Set<String>?

    static let all = PropertyFilter(names: nil)
    /// Always returned so a client can tell what an object is.
    static let essential: Set<String> = ["cmis:objectId", "cmis:baseTypeId", "cmis:objectTypeId"]

    init(names: Set<String>?) { self.names = names }

    /// Parses a filter. Names no type defines are ignored, as clients expect (a filter that names nothing known
    /// still returns the essential properties).
    init(_ filter: [String]?, types: TypeRegistry) throws {
        guard let filter else {
            names = nil
            return
        }
        var names: Set<String> = []
        for raw in filter {
            let name = raw.trimmingCharacters(in: .whitespaces)
            if name.isEmpty { continue }
            if name == "*" {
                self.names = nil
                return
            }
            guard types.allQueryNames.contains(name) else { continue }
            names.insert(name)
        }
        if filter.allSatisfy({ $0.trimmingCharacters(in: .whitespaces).isEmpty }) {
            self.names = nil
            return
        }
        self.names = names.union(Self.essential)
    }

    func includes(_ property: CMISProperty) -> Bool {
        guard let names else { return true }
        return names.contains(property.queryName ?? property.id)
    }

    func includes(_ queryName: String) -> Bool { names?.contains(queryName) ?? true }
}

extension CMISRepository {
    /// An object as CMIS returns it, shaped by the operation context. Pass the caller's permission when it is
    /// already known, to save computing it again for allowable actions.
    func render(
        _ scope: Scope, _ object: StoredObject, _ context: OperationContext, filter: PropertyFilter,
        permission known: Permission? = nil
    ) async throws -> CMISObject {
        var properties = object.properties
        if !filter.includes("cmis:path") || object.baseTypeId != .folder {
            if filter.names != nil {
                properties = Properties(object.properties.filter { filter.includes($0) })
            }
        } else {
            var all = object.properties.all.filter { filter.includes($0) }
            if let definition = types.definition(typeId: object.typeId, propertyId: "cmis:path") {
                let path = try await path(scope, ofFolder: object)
                let index = all.firstIndex { $0.id == "cmis:parentId" }.map { $0 + 1 } ?? all.count
                all.insert(CMISProperty(definition: definition, values: [.string(path)]), at: index)
            }
            properties = Properties(all)
        }
        if object.id == scope.rootId && object.name.isEmpty, properties["cmis:name"] != nil {
            // Roots stored before they were named take their repository's name.
            properties["cmis:name"]?.values = [.string(scope.repository.name)]
        }
        var result = CMISObject(properties: properties)
        if context.includeAllowableActions {
            let granted: Permission
            if let known { granted = known } else { granted = try await permission(scope, on: object) }
            result.allowableActions = allowableActions(scope, object, granted)
        }
        if context.includeACL {
            result.acl = ACL(aces: try await aclEntries(scope, of: object), isExact: true)
        }
        if context.includePolicyIds { result.policyIds = object.policyIds }
        if context.includeRelationships != .none && object.baseTypeId != .relationship {
            result.relationships = try await relationships(
                scope, of: object, direction: context.includeRelationships)
        }
        return result
    }

    /// An object's relationships (source, target or both), as plain objects with all properties.
    func relationships(
        _ scope: Scope, of object: StoredObject, direction: OperationContext.IncludeRelationships
    ) async throws -> [CMISObject] {
        var result: [CMISObject] = []
        for relationship in try await store.relationships(repositoryId: scope.id, objectId: object.id) {
            let matches: Bool
            switch direction {
            case .none: matches = false
            case .source: matches = relationship.sourceId == object.id
            case .target: matches = relationship.targetId == object.id
            case .both: matches = true
            }
            guard matches, try await permission(scope, on: relationship) >= .read else { continue }
            result.append(try await render(scope, relationship, OperationContext(), filter: .all))
        }
        return result
    }

    /// The actions the caller may perform, from their permission and the object's state.
    func allowableActions(_ scope: Scope, _ object: StoredObject, _ permission: Permission) -> AllowableActions {
        var actions: Set<AllowableAction> = []
        guard permission >= .read else { return AllowableActions(actions) }
        let isRoot = object.id == scope.rootId
        let type = types.type(object.typeId)
        let fileable = type?.fileable ?? false
        actions.formUnion([.getProperties, .getACL, .getAppliedPolicies, .getObjectRelationships])
        switch object.baseTypeId {
        case .folder:
            actions.formUnion([.getChildren, .getDescendants, .getFolderTree])
            if !isRoot { actions.insert(.getFolderParent) }
        case .document:
            actions.formUnion([.getAllVersions, .getRenditions])
            if object.content != nil { actions.insert(.getContentStream) }
            if !object.parentIds.isEmpty || !object.isLatestVersion || object.isPrivateWorkingCopy {
                actions.insert(.getObjectParents)
            }
        default:
            if fileable && !object.parentIds.isEmpty { actions.insert(.getObjectParents) }
        }
        if permission >= .write {
            let mutable =
                object.baseTypeId != .document || object.isLatestVersion || object.isPrivateWorkingCopy
            if mutable { actions.insert(.updateProperties) }
            // An old version is immutable: it goes with its series (deleteObject with allVersions), not alone.
            if !isRoot && mutable { actions.insert(.deleteObject) }
            actions.formUnion([.applyPolicy, .removePolicy])
            if type?.baseTypeId != .relationship { actions.insert(.createRelationship) }
            switch object.baseTypeId {
            case .folder:
                actions.formUnion([.createDocument, .createFolder, .createItem])
                if !isRoot { actions.formUnion([.deleteTree, .moveObject]) }
            case .document:
                if mutable && type?.contentStreamAllowed != .notAllowed {
                    actions.insert(.setContentStream)
                    if object.content != nil { actions.insert(.deleteContentStream) }
                }
                if object.isPrivateWorkingCopy {
                    actions.formUnion([.checkIn, .cancelCheckOut])
                } else if object.isLatestVersion && !object.isCheckedOut && type?.versionable == true {
                    actions.insert(.checkOut)
                }
                if object.isLatestVersion && !object.isPrivateWorkingCopy {
                    actions.insert(.addObjectToFolder)
                    if !object.parentIds.isEmpty { actions.formUnion([.removeObjectFromFolder, .moveObject]) }
                }
            case .item, .policy:
                actions.insert(.addObjectToFolder)
                if !object.parentIds.isEmpty { actions.formUnion([.removeObjectFromFolder, .moveObject]) }
            default:
                break
            }
        }
        if permission >= .all { actions.insert(.applyACL) }
        return AllowableActions(actions)
    }

    /// The ACEs reported for an object: for MyDocuments, the owner's `cmis:all` (inherited from the repository);
    /// otherwise the direct ACEs and those inherited from the folders above, merged per principal and origin.
    func aclEntries(_ scope: Scope, of object: StoredObject) async throws -> [ACE] {
        var aces = object.acl.map { ACE(principalId: $0.principalId, permissions: $0.permissions, isDirect: true) }
        if scope.isPersonal {
            aces.append(ACE(principalId: scope.user, permissions: [Permission.all.name], isDirect: false))
            return aces
        }
        let inherited = try await effectiveACEs(scope, of: object).filter { !$0.isDirect }
        var merged: [String: [String]] = [:]
        var order: [String] = []
        for ace in inherited {
            if merged[ace.principalId] == nil { order.append(ace.principalId) }
            for permission in ace.permissions where !(merged[ace.principalId]?.contains(permission) ?? false) {
                merged[ace.principalId, default: []].append(permission)
            }
        }
        for principal in order {
            aces.append(ACE(principalId: principal, permissions: merged[principal] ?? [], isDirect: false))
        }
        return aces
    }
}
