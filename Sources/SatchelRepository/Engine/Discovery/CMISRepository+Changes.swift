import Foundation
import SatchelCMIS

extension CMISRepository {
    /// Pages through the change log: `changeLogToken` is the last token the caller saw (nil: from the start);
    /// the answer's token is the last one returned, to pass to the next call.
    public func contentChanges(
        repositoryId: String, changeLogToken: String?, includeProperties: Bool, includePolicyIds: Bool,
        includeACL: Bool, maxItems: Int?, caller: CallerContext
    ) async throws -> ContentChanges {
        let scope = try await scope(repositoryId, caller)
        let limit = try pageSize(maxItems)
        var after: Int64?
        if let changeLogToken, !changeLogToken.isEmpty {
            guard let token = Int64(changeLogToken), token >= 0 else {
                throw CMISError(.invalidArgument, "'\(Self.shorten(changeLogToken))' is not a change log token.")
            }
            after = token
        }
        let entries = try await store.changes(repositoryId: scope.id, after: after, limit: limit + 1)
        let page = entries.prefix(limit)
        var objects: [CMISObject] = []
        for entry in page {
            var properties = Properties()
            properties["cmis:objectId"] = CMISProperty(
                id: "cmis:objectId", type: .id, values: [.id(entry.objectId)], queryName: "cmis:objectId")
            properties["cmis:objectTypeId"] = CMISProperty(
                id: "cmis:objectTypeId", type: .id, values: [.id(entry.typeId)], queryName: "cmis:objectTypeId")
            properties["cmis:baseTypeId"] = CMISProperty(
                id: "cmis:baseTypeId", type: .id, values: [.id(entry.baseTypeId.rawValue)], queryName: "cmis:baseTypeId"
            )
            var object = CMISObject(
                properties: properties,
                changeEventInfo: ChangeEventInfo(changeType: entry.changeType, changeTime: entry.time))
            if (includePolicyIds || includeACL) && entry.changeType != .deleted,
                let current = try await store.object(repositoryId: scope.id, id: entry.objectId),
                try await permission(scope, on: current) >= .read
            {
                if includePolicyIds { object.policyIds = current.policyIds }
                if includeACL { object.acl = ACL(aces: try await aclEntries(scope, of: current), isExact: true) }
            }
            objects.append(object)
        }
        var token = page.last.map { String($0.token) } ?? changeLogToken
        if token == nil { token = String(try await store.latestChangeToken(repositoryId: scope.id) ?? 0) }
        return ContentChanges(objects: objects, hasMoreItems: entries.count > limit, changeLogToken: token)
    }
}
