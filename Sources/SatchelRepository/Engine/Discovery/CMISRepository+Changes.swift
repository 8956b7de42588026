import Foundation
public import SatchelCMISCore

extension CMISRepository {
    /// Pages through the change log: `changeLogToken` is the last token the caller saw (nil: from the start);
    /// the answer's token is the last one read, to pass to the next call. Tokens count per repository; entries
    /// about objects the caller may not read are left out (`maySee(_:_:)`).
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
        // Entries the caller may not see are skipped, not counted: read on until a page is full, but no further than
        // ten pages' worth of entries in one call (the answer then says there is more, from the last entry read).
        var visible: [StoredChange] = []
        var lastRead: Int64?
        var hasMore = false
        var cursor = after
        var budget = 10 * max(limit, 100)
        scanning: while true {
            let batch = try await store.changes(repositoryId: scope.id, after: cursor, limit: max(limit, 100))
            for entry in batch {
                if visible.count == limit || budget == 0 {
                    hasMore = true
                    break scanning
                }
                budget -= 1
                lastRead = entry.token
                if try await maySee(entry, scope) { visible.append(entry) }
            }
            guard batch.count == max(limit, 100) else { break }
            cursor = batch.last?.token
        }
        var objects: [CMISObject] = []
        for entry in visible {
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
        var token = lastRead.map { String($0) } ?? changeLogToken
        if token == nil { token = String(try await store.latestChangeToken(repositoryId: scope.id) ?? 0) }
        return ContentChanges(objects: objects, hasMoreItems: hasMore, changeLogToken: token)
    }
}
