import Foundation
import SatchelCMIS

extension CMISRepository {
    public func query(
        repositoryId: String, statement: String, searchAllVersions: Bool, includeAllowableActions: Bool,
        includeRelationships: OperationContext.IncludeRelationships, renditionFilter: String?, maxItems: Int?,
        skipCount: Int, caller: CallerContext
    ) async throws -> ObjectList {
        _ = try await scope(repositoryId, caller)
        throw CMISError(.notSupported, "Query is not available yet.")
    }
}
