/// `versioningState` of createDocument and checkIn: what version a new document becomes.
public enum VersioningState: String, Sendable, Hashable, CaseIterable {
    /// The document is not versionable (`none`).
    case none
    /// The document is created checked out, as a private working copy (`checkedout`).
    case checkedout
    /// The document becomes a major version (`major`).
    case major
    /// The document becomes a minor version (`minor`).
    case minor
}

/// `unfileObjects` of deleteTree: what happens to documents also filed elsewhere.
public enum UnfileObjects: String, Sendable, Hashable, CaseIterable {
    /// Unfile objects from the tree's folders without deleting them (`unfile`).
    case unfile
    /// Delete objects filed only in the tree; unfile those also filed elsewhere (`deletesinglefiled`).
    case deletesinglefiled
    /// Delete every object in the tree, wherever else it is filed (`delete`).
    case delete
}

/// `relationshipDirection` of getObjectRelationships.
public enum RelationshipDirection: String, Sendable, Hashable, CaseIterable {
    /// Relationships in which the object is the source (`source`).
    case source
    /// Relationships in which the object is the target (`target`).
    case target
    /// Relationships in which the object is source or target (`either`).
    case either
}

/// One result of bulkUpdateProperties: the object's id, its new id when the repository made a new version, and
/// its new change token.
public struct BulkUpdateResult: Sendable, Hashable {
    /// The id of the object that was updated.
    public var id: String
    /// The id of the new version, when the update created one; `nil` otherwise.
    public var newId: String?
    /// The object's new change token, when the repository returned one.
    public var changeToken: String?

    /// A result for `id`, with the optional new id and change token.
    public init(id: String, newId: String? = nil, changeToken: String? = nil) {
        self.id = id
        self.newId = newId
        self.changeToken = changeToken
    }
}
