/// `versioningState` of createDocument and checkIn: what version a new document becomes.
public enum VersioningState: String, Sendable, Hashable, CaseIterable {
    case none, checkedout, major, minor
}

/// `unfileObjects` of deleteTree: what happens to documents also filed elsewhere.
public enum UnfileObjects: String, Sendable, Hashable, CaseIterable {
    case unfile, deletesinglefiled, delete
}

/// `relationshipDirection` of getObjectRelationships.
public enum RelationshipDirection: String, Sendable, Hashable, CaseIterable {
    case source, target, either
}

/// One result of bulkUpdateProperties: the object's id, its new id when the repository made a new version, and
/// its new change token.
public struct BulkUpdateResult: Sendable, Hashable {
    public var id: String
    public var newId: String?
    public var changeToken: String?

    public init(id: String, newId: String? = nil, changeToken: String? = nil) {
        self.id = id
        self.newId = newId
        self.changeToken = changeToken
    }
}
