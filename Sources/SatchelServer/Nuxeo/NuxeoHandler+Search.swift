import Foundation
import HTTPTypes
import Hummingbird
import SatchelCMISCore
import SatchelCMISQL
import SatchelNXQL
import SatchelJSON
import SatchelRepository
import NIOFoundationEssentialsCompat

/// NXQL searches, paged as Nuxeo pages.
extension NuxeoHandler {
    /// An NXQL search (`query/NXQL?query=…`, `search/lang/NXQL/execute?query=…`) run by the repository's query
    /// engine, paged as Nuxeo pages (`pageSize`, `currentPageIndex`; `sortBy`, `sortOrder`).
    func search(repository: String, query: [String: String], caller: CallerContext) async throws -> Response {
        guard let nxql = query["query"], !nxql.isEmpty else {
            throw CMISError(.invalidArgument, "an NXQL search needs query=")
        }
        var translation = try NXQLTranslator.translate(nxql)
        for (index, path) in translation.pathsToResolve.enumerated() {
            let folder = try await service(repository).object(
                repositoryId: repository, path: path, context: OperationContext(), caller: caller)
            translation.resolve(path: index, to: folder.id ?? "")
        }
        let (pageSize, pageIndex) = Self.paging(query)
        if translation.order.isEmpty, let sortBy = query["sortBy"], let mapped = NXQLTranslator.properties[sortBy] {
            let descending = query["sortOrder"].map { $0.lowercased() == "desc" } ?? false
            translation.order = " ORDER BY \(mapped)\(descending ? " DESC" : "")"
            // Folders have no content to sort by.
            if mapped.hasPrefix("cmis:contentStream") { translation.includesFolders = false }
        }
        // One page across the statements (folders, then documents for `FROM Document`): what the first does not fill
        // comes from the next, skipping what the page's offset passed of it.
        var skip = pageIndex * pageSize
        var entries: [JSONValue] = []
        var more = false
        var total: Int64 = 0
        for table in translation.tables {
            let maxItems = max(1, pageSize - entries.count)
            let list: ObjectList
            if let inStore = try await searchLeavingOutTrash(
                translation, over: table, repository: repository, maxItems: maxItems, skip: skip, caller: caller)
            {
                list = inStore
            } else {
                if let trashed = translation.trashed, translation.trash == nil {
                    // A mount: its trash is named in the statements.
                    translation.trash = try await trashFilter(trashed, repository: repository)
                    if let trash = translation.trash, trash.only, trash.keys.isEmpty {
                        return Self.json(Self.page([], index: pageIndex, size: pageSize, more: false, total: 0))
                    }
                }
                list = try await service(repository).query(
                    repositoryId: repository, statement: translation.statement(over: table), searchAllVersions: false,
                    includeAllowableActions: false, includeRelationships: .none, renditionFilter: nil,
                    maxItems: maxItems, skipCount: skip, caller: caller)
            }
            guard let matches = list.numItems else {
                // Paging across the statements needs each one's count.
                throw CMISError(.runtime, "the repository did not count the matches of an NXQL search")
            }
            total += matches
            if entries.count < pageSize {
                entries += try await render(
                    Array(list.objects.prefix(pageSize - entries.count)), repository: repository, caller: caller)
            }
            more = list.hasMoreItems
            skip = Int(max(0, Int64(skip) - matches))
        }
        if translation.tables.count > 1 { more = Int64(pageIndex * pageSize + entries.count) < total }
        return Self.json(Self.page(entries, index: pageIndex, size: pageSize, more: more, total: total))
    }

    /// One statement of a search that says `ecm:isTrashed`, with the trash left out (or kept to) by the store's own
    /// query (``CMISService/query(repositoryId:statement:searchAllVersions:includeAllowableActions:includeRelationships:renditionFilter:maxItems:skipCount:trash:caller:)``).
    /// Nil when the search does not say, or when the repository's store keeps no marks (a gateway mount).
    private func searchLeavingOutTrash(
        _ translation: NXQLTranslator.Translation, over table: String, repository: String, maxItems: Int, skip: Int,
        caller: CallerContext
    ) async throws -> ObjectList? {
        guard let trashed = translation.trashed, translation.trash == nil else { return nil }
        return try await service(repository).query(
            repositoryId: repository, statement: translation.statement(over: table), searchAllVersions: false,
            includeAllowableActions: false, includeRelationships: .none, renditionFilter: nil, maxItems: maxItems,
            skipCount: skip, trash: trashed ? .trashed : .live, caller: caller)
    }

    /// `pageSize` (1…1000, default 50) and `currentPageIndex` (0…1,000,000): what a page asks for, bounded so the
    /// offset (`pageSize × index`) cannot overflow.
    static func paging(_ query: [String: String]) -> (size: Int, index: Int) {
        let size = max(1, min(Int(query["pageSize"] ?? "") ?? 50, 1000))
        let index = max(0, min(Int(query["currentPageIndex"] ?? "") ?? 0, 1_000_000))
        return (size, index)
    }

    /// A page of documents (`entity-type: documents`) with Nuxeo's paging fields.
    static func page(_ entries: [JSONValue], index: Int, size: Int, more: Bool, total: Int64?) -> JSONValue {
        var page: JSONObject = [
            "entity-type": "documents", "isPaginable": true, "currentPageIndex": .number(JSONNumber(index)),
            "pageSize": .number(JSONNumber(size)), "currentPageSize": .number(JSONNumber(entries.count)),
            "isNextPageAvailable": .bool(more), "isPreviousPageAvailable": .bool(index > 0),
            "entries": .array(entries),
        ]
        if let total {
            page.append(key: "resultsCount", value: .number(JSONNumber(total)))
            page.append(key: "totalSize", value: .number(JSONNumber(total)))
            page.append(key: "numberOfPages", value: .number(JSONNumber((total + Int64(size) - 1) / Int64(size))))
        }
        return .object(page)
    }
}
