import Foundation
public import SatchelCMISCore

extension CMISRepository {
    /// A new object with its system properties stamped; not stored yet.
    func newObject(
        _ scope: Scope, type: TypeDefinition, name: String, parentIds: [String], values: [String: [PropertyValue]],
        acl: [ACE] = [], policyIds: [String] = [], content: StoredContent? = nil, now: Date
    ) -> StoredObject {
        var object = StoredObject(
            repositoryId: scope.id, id: configuration.idGenerator(), baseTypeId: type.baseTypeId, typeId: type.id,
            name: name, parentIds: parentIds, properties: Properties(), content: content, acl: acl,
            policyIds: policyIds, createdAt: now, modifiedAt: now)
        var values = values
        values["cmis:name"] = nil
        object.properties = stamp(object, setting: values, by: scope.user, creating: true)
        return object
    }

    /// The name given in validated values, checked.
    func requireName(_ values: [String: [PropertyValue]], fallback: String? = nil) throws -> String {
        guard let given = values["cmis:name"]?.first?.stringValue ?? fallback else {
            throw CMISError(.constraint, "cmis:name is required.")
        }
        let name = Self.normalizedName(given)
        try checkName(name)
        return name
    }

    /// A folder the caller may add objects to.
    func targetFolder(_ scope: Scope, _ id: String) async throws -> StoredObject {
        let folder = try await loadFolder(scope, id)
        try await require(.write, scope, on: folder, to: "add objects to")
        return folder
    }

    /// Unfiled objects inherit from the root: creating one needs what creating in the root needs.
    func checkUnfiledCreation(_ scope: Scope) async throws {
        guard !scope.isPersonal else { return }
        try await require(.write, scope, on: try await load(scope, scope.rootId), to: "add objects to")
    }

    /// The direct ACL of a new object: in the shared repository its creator holds `cmis:all` on it (so they may share
    /// it, while the `cmis:write` everybody inherits from the root does not let anyone else change who may reach
    /// it), then the call's own entries are added and removed.
    func creationACL(_ scope: Scope, _ type: TypeDefinition, add: [ACE], remove: [ACE]) throws -> [ACE] {
        let creator =
            scope.isPersonal || type.controllableACL != true
            ? [] : [ACE(principalId: scope.user, permissions: [Permission.all.name])]
        return try changedACL(creator, add: add, remove: remove)
    }

    /// The direct ACL after adding and removing entries; only the basic permissions are known.
    func changedACL(_ current: [ACE], add: [ACE], remove: [ACE]) throws -> [ACE] {
        var order: [String] = []
        var grants: [String: [String]] = [:]
        for ace in current {
            if grants[ace.principalId] == nil { order.append(ace.principalId) }
            grants[ace.principalId, default: []] += ace.permissions
        }
        for ace in add + remove {
            guard !ace.principalId.trimmingCharacters(in: .whitespaces).isEmpty else {
                throw CMISError(.invalidArgument, "An ACE needs a principal.")
            }
            guard ace.principalId.count <= configuration.maximumNameLength else {
                throw CMISError(
                    .invalidArgument, "A principal id may be at most \(configuration.maximumNameLength) characters.")
            }
            for permission in ace.permissions where Permission(name: permission) == nil {
                throw CMISError(
                    .constraint,
                    "Permission '\(Self.shorten(permission))' is not supported; use cmis:read, cmis:write or cmis:all.")
            }
        }
        for ace in remove {
            grants[ace.principalId]?.removeAll { ace.permissions.contains($0) }
        }
        for ace in add {
            if grants[ace.principalId] == nil { order.append(ace.principalId) }
            for permission in ace.permissions where !(grants[ace.principalId]?.contains(permission) ?? false) {
                grants[ace.principalId, default: []].append(permission)
            }
        }
        return order.compactMap { principal in
            guard let permissions = grants[principal], !permissions.isEmpty else { return nil }
            return ACE(principalId: principal, permissions: permissions)
        }
    }

    /// Checks that every id names a policy the caller can read.
    func checkPolicies(_ scope: Scope, _ ids: [String], for type: TypeDefinition) async throws -> [String] {
        guard !ids.isEmpty else { return [] }
        guard type.controllablePolicy == true else {
            throw CMISError(.constraint, "Objects of type '\(type.id)' cannot have policies.")
        }
        for id in ids {
            let policy = try await load(scope, id)
            guard policy.baseTypeId == .policy else {
                throw CMISError(.invalidArgument, "'\(id)' is not a policy.")
            }
            try await require(.read, scope, on: policy, to: "apply")
        }
        var seen: Set<String> = []
        return ids.filter { seen.insert($0).inserted }
    }

    /// Content arriving from a binding, checked against the type and the blob store.
    func storedContent(_ content: ContentInput, for type: TypeDefinition) throws -> StoredContent {
        guard type.contentStreamAllowed != .notAllowed else {
            throw CMISError(.streamNotSupported, "Documents of type '\(type.id)' cannot have content.")
        }
        // The content's lease proves its blob is stored (pinned until the call ends), in the store it came from.
        guard blobs.owns(content.lease) else {
            throw CMISError(
                .storage, "The uploaded content '\(content.blob.hash)' is not in this repository's blob store.")
        }
        // The media type was checked where the content arrived (``ContentInput``).
        if let fileName = content.fileName, fileName.count > configuration.maximumStringLength {
            throw CMISError(.invalidArgument, "The content's file name is too long.")
        }
        return StoredContent(
            hash: content.blob.hash, length: content.blob.length,
            mimeType: content.mimeType, fileName: content.fileName)
    }

    /// Stores a new object (one batch with its change event) and returns it rendered.
    /// Stores a new object; `unchanged` are objects it was made from, which must still be as they were read (a copy
    /// shares its source's content blob, which a concurrent delete of the source would otherwise release).
    func insert(
        _ scope: Scope, _ object: StoredObject, extra: [StoredObject] = [], unchanged: [StoredObject] = []
    ) async throws -> CMISObject {
        let now = object.createdAt
        var tokens: [String: Int64] = [:]
        for source in unchanged { tokens[source.id] = source.changeToken }
        try await apply(
            StoreBatch(
                repositoryId: scope.id, expectedChangeTokens: tokens, inserts: [object], updates: extra,
                changes: [change(object, .created, now)]),
            in: scope)
        return try await render(scope, object, OperationContext(), filter: .all, permission: nil)
    }

    // MARK: Create

    /// Needs `cmis:write` on the parent. `cmis:name` is required (`constraint`), stored in Unicode normalization form
    /// C, and must be free in the parent (`nameConstraintViolation`). In the shared repository the creator holds
    /// `cmis:all` on the new folder (when its type's ACL is controllable) before the call's ACEs are applied.
    public func createFolder(
        repositoryId: String, parentId: String, properties: Properties, policies: [String], addACEs: [ACE],
        removeACEs: [ACE], caller: CallerContext
    ) async throws -> CMISObject {
        let scope = try await scope(repositoryId, caller)
        let type = try inputType(properties, fallback: .folder, expected: [.folder])
        let values = try validate(properties, type: type, .create)
        let name = try requireName(values)
        try checkRequired(values, type: type, computed: ["cmis:name", "cmis:objectTypeId"])
        let parent = try await targetFolder(scope, parentId)
        let acl = try creationACL(scope, type, add: addACEs, remove: removeACEs)
        let policyIds = try await checkPolicies(scope, policies, for: type)
        let folder = newObject(
            scope, type: type, name: name, parentIds: [parent.id], values: values, acl: acl, policyIds: policyIds,
            now: configuration.clock())
        return try await insert(scope, folder)
    }

    /// Needs `cmis:write` on the parent; an unfiled document needs what creating in the root folder needs. The name
    /// defaults to the content's file name. `versioningState` nil or `none` makes version `1.0`, `minor` version
    /// `0.1`, `checkedout` a private working copy; a type that is not versionable refuses all but nil and `none`
    /// (`constraint`). The content is the blob its lease keeps in the blob store. The ACL is set up
    /// as `createFolder` sets it.
    public func createDocument(
        repositoryId: String, parentId: String?, properties: Properties, content: ContentInput?,
        versioningState: VersioningState?, policies: [String], addACEs: [ACE], removeACEs: [ACE],
        caller: CallerContext
    ) async throws -> CMISObject {
        let scope = try await scope(repositoryId, caller)
        let type = try inputType(properties, fallback: .document, expected: [.document])
        var values = try validate(properties, type: type, .create)
        let name = try requireName(values, fallback: content?.fileName)
        values["cmis:name"] = [.string(name)]
        try checkRequired(values, type: type, computed: ["cmis:name", "cmis:objectTypeId"])
        var parentIds: [String] = []
        if let parentId { parentIds = [try await targetFolder(scope, parentId).id] }
        if parentIds.isEmpty { try await checkUnfiledCreation(scope) }
        let stored = try content.map { try storedContent($0, for: type) }
        if type.contentStreamAllowed == .required && stored == nil {
            throw CMISError(.constraint, "Documents of type '\(type.id)' need content.")
        }
        let acl = try creationACL(scope, type, add: addACEs, remove: removeACEs)
        let policyIds = try await checkPolicies(scope, policies, for: type)
        let document = try newDocument(
            scope, type: type, name: name, parentIds: parentIds, values: values, content: stored,
            versioningState: versioningState, acl: acl, policyIds: policyIds, now: configuration.clock())
        return try await insert(scope, document)
    }

    /// A new document: the first version of a new series (or a working copy when created checked out).
    func newDocument(
        _ scope: Scope, type: TypeDefinition, name: String, parentIds: [String], values: [String: [PropertyValue]],
        content: StoredContent?, versioningState: VersioningState?, acl: [ACE], policyIds: [String], now: Date
    ) throws -> StoredObject {
        var state = versioningState ?? (type.versionable == true ? .major : VersioningState.none)
        if type.versionable == true && state == .none { state = .major }  // lenient: see docs/server.md
        if type.versionable != true && state != .none {
            throw CMISError(.constraint, "Documents of type '\(type.id)' are not versionable.")
        }
        var document = newObject(
            scope, type: type, name: name, parentIds: parentIds, values: values, acl: acl, policyIds: policyIds,
            content: content, now: now)
        document.versionSeriesId = document.id
        let versioning: [String: [PropertyValue]]
        switch state {
        case .major, .none:
            versioning = Self.versioning(label: "1.0", major: true, latestMajor: true, checkedOut: nil, comment: nil)
        case .minor:
            versioning = Self.versioning(label: "0.1", major: false, latestMajor: false, checkedOut: nil, comment: nil)
        case .checkedout:
            document.isPrivateWorkingCopy = true
            document.isLatestVersion = false
            versioning = Self.versioning(
                label: "pwc", major: false, latestMajor: false, checkedOut: (document.id, scope.user), comment: nil)
        }
        document.properties = stamp(document, setting: versioning, by: scope.user, creating: true)
        return document
    }

    /// Needs `cmis:read` on the source. The copy takes the source's updatable properties, then `properties`, and shares
    /// the source's content blob; it has no policies, and its ACL is a new document's. The source must not change
    /// meanwhile (`updateConflict`).
    public func createDocumentFromSource(
        repositoryId: String, sourceId: String, parentId: String?, properties: Properties,
        versioningState: VersioningState?, caller: CallerContext
    ) async throws -> CMISObject {
        let scope = try await scope(repositoryId, caller)
        let source = try await load(scope, sourceId)
        guard source.baseTypeId == .document else {
            throw CMISError(.invalidArgument, "'\(sourceId)' is not a document.")
        }
        try await require(.read, scope, on: source, to: "copy")
        let type = try inputType(
            properties, fallback: .document, expected: [.document], defaultTypeId: source.typeId)
        var values: [String: [PropertyValue]] = [:]
        for property in source.properties {
            guard let definition = types.definition(typeId: type.id, propertyId: property.id),
                definition.updatability != .readonly
            else { continue }
            values[property.id] = property.values
        }
        for (id, newValues) in try validate(properties, type: type, .create) { values[id] = newValues }
        let name = try requireName(values, fallback: source.name)
        values["cmis:name"] = [.string(name)]
        var parentIds: [String] = []
        if let parentId { parentIds = [try await targetFolder(scope, parentId).id] }
        if parentIds.isEmpty { try await checkUnfiledCreation(scope) }
        let document = try newDocument(
            scope, type: type, name: name, parentIds: parentIds, values: values, content: source.content,
            versioningState: versioningState, acl: try creationACL(scope, type, add: [], remove: []), policyIds: [],
            now: configuration.clock())
        return try await insert(scope, document, unchanged: [source])
    }

    /// `inputType` with a type to use when the properties name none.
    func inputType(
        _ properties: Properties, fallback: BaseTypeId?, expected: Set<BaseTypeId>, defaultTypeId: String
    )
        throws -> TypeDefinition
    {
        if properties["cmis:objectTypeId"]?.stringValue == nil, let type = types.type(defaultTypeId) {
            return type
        }
        return try inputType(properties, fallback: fallback, expected: expected)
    }

    /// Items and policies are filed as documents are. A relationship takes no folder (`constraint`) and needs
    /// `cmis:sourceId` and `cmis:targetId` naming objects the caller may read, neither of them a relationship.
    public func createObject(
        repositoryId: String, parentId: String?, properties: Properties, policies: [String], addACEs: [ACE],
        removeACEs: [ACE], caller: CallerContext
    ) async throws -> CMISObject {
        let scope = try await scope(repositoryId, caller)
        let type = try inputType(properties, fallback: nil, expected: [.item, .policy, .relationship])
        var values = try validate(properties, type: type, .create)
        let acl = try creationACL(scope, type, add: addACEs, remove: removeACEs)
        let policyIds = try await checkPolicies(scope, policies, for: type)
        let now = configuration.clock()
        if type.baseTypeId == .relationship {
            guard parentId == nil else {
                throw CMISError(.constraint, "Relationships are not filed in folders; leave out the folder.")
            }
            try checkRequired(values, type: type, computed: ["cmis:objectTypeId"])
            let sourceId = values["cmis:sourceId"]?.first?.stringValue ?? ""
            let targetId = values["cmis:targetId"]?.first?.stringValue ?? ""
            let source = try await load(scope, sourceId)
            let target = try await load(scope, targetId)
            try await require(.read, scope, on: source, to: "relate")
            try await require(.read, scope, on: target, to: "relate")
            guard source.baseTypeId != .relationship, target.baseTypeId != .relationship else {
                throw CMISError(.constraint, "A relationship cannot start or end at another relationship.")
            }
            let name = values["cmis:name"]?.first?.stringValue ?? ""
            if !name.isEmpty { try checkName(name) }
            values["cmis:sourceId"] = nil
            values["cmis:targetId"] = nil
            var relationship = newObject(
                scope, type: type, name: name, parentIds: [], values: values, acl: acl, policyIds: policyIds,
                now: now)
            relationship.sourceId = source.id
            relationship.targetId = target.id
            relationship.properties = stamp(relationship, setting: [:], by: scope.user, creating: true)
            return try await insert(scope, relationship)
        }
        let name = try requireName(values)
        try checkRequired(values, type: type, computed: ["cmis:name", "cmis:objectTypeId"])
        var parentIds: [String] = []
        if let parentId { parentIds = [try await targetFolder(scope, parentId).id] }
        if parentIds.isEmpty { try await checkUnfiledCreation(scope) }
        let object = newObject(
            scope, type: type, name: name, parentIds: parentIds, values: values, acl: acl, policyIds: policyIds,
            now: now)
        return try await insert(scope, object)
    }
}
