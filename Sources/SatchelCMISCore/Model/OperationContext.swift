import Foundation

/// What a read operation asks the repository to include, and how large its pages are.
///
/// ```swift
/// var context = OperationContext()
/// context.filter = ["cmis:name", "cmis:contentStreamLength"]
/// context.includeAllowableActions = true
/// context.orderBy = "cmis:name ASC"
/// let doc = try await session.object(id: "42", context: context)
/// ```
public struct OperationContext: Sendable, Hashable {
    /// Which relationships to return with each object.
    public enum IncludeRelationships: String, Sendable, Hashable, CaseIterable {
        /// No relationships (`none`).
        case none
        /// Relationships in which the object is the source (`source`).
        case source
        /// Relationships in which the object is the target (`target`).
        case target
        /// Relationships in which the object is source or target (`both`).
        case both
    }

    /// The property ids (or query names) to return; `nil` asks for all of them (`*`).
    public var filter: [String]?
    /// Whether each object carries its allowable actions. Default `false`.
    public var includeAllowableActions: Bool
    /// Whether each object carries its ACL. Default `false`.
    public var includeACL: Bool
    /// Which relationships each object carries. Default `.none`.
    public var includeRelationships: IncludeRelationships
    /// Whether each object carries the ids of its applied policies. Default `false`.
    public var includePolicyIds: Bool
    /// Children: whether each child carries its path segment.
    public var includePathSegment: Bool
    /// Which renditions to return (`cmis:none`, `*`, `image/*` …); `nil` leaves it to the repository.
    public var renditionFilter: String?
    /// Children: the sort order (`cmis:name ASC`), when the repository supports ordering.
    public var orderBy: String?
    /// The page size of lists; `nil` uses the session's page size (the server's default on the server).
    public var maxItemsPerPage: Int?

    /// A context with these settings. By default: all properties; no allowable actions, ACL, relationships or
    /// policy ids; path segments on; renditions, order and page size left to the defaults.
    public init(
        filter: [String]? = nil, includeAllowableActions: Bool = false, includeACL: Bool = false,
        includeRelationships: IncludeRelationships = .none, includePolicyIds: Bool = false,
        includePathSegment: Bool = true, renditionFilter: String? = nil, orderBy: String? = nil,
        maxItemsPerPage: Int? = nil
    ) {
        self.filter = filter
        self.includeAllowableActions = includeAllowableActions
        self.includeACL = includeACL
        self.includeRelationships = includeRelationships
        self.includePolicyIds = includePolicyIds
        self.includePathSegment = includePathSegment
        self.renditionFilter = renditionFilter
        self.orderBy = orderBy
        self.maxItemsPerPage = maxItemsPerPage
    }

    /// The filter as the bindings send it: comma-separated ids, or `*`.
    public var filterString: String { filter.map { $0.joined(separator: ",") } ?? "*" }
}
