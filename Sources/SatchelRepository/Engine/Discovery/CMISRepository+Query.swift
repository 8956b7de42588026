import Foundation
public import SatchelCMISCore
import SatchelCMISQL

/// One query candidate as the CMIS QL evaluator sees it. Folder filings, ancestors, paths and, for a query that
/// searches text, the content's text are worked out before evaluation (they need the stores).
final class QueryCandidate: QueryRow {
    let object: StoredObject
    /// Values by query name, made on first use: a query that tests only folders (`IN_TREE`) never needs them.
    lazy var properties: [String: [PropertyValue]] = {
        var values: [String: [PropertyValue]] = [:]
        for property in object.properties { values[property.queryName ?? property.id] = property.values }
        values.merge(extra) { _, new in new }
        return values
    }()
    /// Values that are not in the object's bag (a folder's `cmis:path`).
    private let extra: [String: [PropertyValue]]

    /// The value of `name` worked out apart from the object's bag, if any.
    func extraValues(_ name: String) -> [PropertyValue]? { extra.isEmpty ? nil : extra[name] }
    let cardinalities: [String: Cardinality]
    let parents: Set<String>
    let ancestors: Set<String>
    private let blobs: BlobStore
    private var text: String?

    /// Text content longer than this is not searched.
    static let maximumTextLength: Int64 = 1 << 20

    init(
        object: StoredObject, extra: [String: [PropertyValue]], cardinalities: [String: Cardinality],
        parents: Set<String>, ancestors: Set<String>, blobs: BlobStore
    ) {
        self.object = object
        self.extra = extra
        self.cardinalities = cardinalities
        self.parents = parents
        self.ancestors = ancestors
        self.blobs = blobs
    }

    func values(for column: ColumnReference) -> [PropertyValue]? {
        if let values = properties[column.name] { return values }
        return cardinalities[column.name] != nil ? [] : nil
    }

    func cardinality(for column: ColumnReference) -> Cardinality? { cardinalities[column.name] }

    func isInFolder(_ folderId: String, qualifier: String?) -> Bool { parents.contains(folderId) }

    func isInTree(_ folderId: String, qualifier: String?) -> Bool { ancestors.contains(folderId) }

    /// The name, and the content of text documents up to 1 MiB: read from the local disk on first use (so a test
    /// that fails before `CONTAINS` is reached reads nothing), or as ``loadText()`` read it from another back-end.
    func fullText(qualifier: String?) -> String? {
        if let text { return text }
        var result = object.name
        if let content = searchableContent, let file = blobs.localFile(for: content.hash) {
            var data = Data()
            if (try? BlobStore.readFile(file, length: content.length, { data.append(contentsOf: $0) })) != nil {
                result += "\n" + String(decoding: data, as: UTF8.self)
            }
        }
        text = result
        return result
    }

    /// Reads the text ``fullText(qualifier:)`` searches from a back-end that is not the local disk, before evaluation
    /// (evaluation cannot wait for it); content the blob store cannot read is not searched.
    func loadText() async {
        guard text == nil, blobs.local == nil else { return }
        var result = object.name
        if let content = searchableContent,
            let data = try? await blobs.data(for: BlobReference(hash: content.hash, length: content.length))
        {
            result += "\n" + String(decoding: data, as: UTF8.self)
        }
        text = result
    }

    /// The content whose text is searched: a text document's, up to 1 MiB.
    private var searchableContent: StoredContent? {
        guard let content = object.content, content.mimeType.lowercased().hasPrefix("text/"),
            content.length <= Self.maximumTextLength
        else { return nil }
        return content
    }
}

/// Which features of the WHERE clause a query uses (each needs extra work per candidate).
private struct QueryNeeds {
    var folders = false
    var tree = false
    /// `CONTAINS`: each candidate's text is read.
    var text = false

    init(_ expression: QueryExpression?) {
        if let expression { visit(expression) }
    }

    private mutating func visit(_ expression: QueryExpression) {
        switch expression {
        case .and(let operands), .or(let operands): for operand in operands { visit(operand) }
        case .not(let operand): visit(operand)
        case .inFolder: folders = true
        case .inTree: tree = true
        case .contains: text = true
        default: break
        }
    }
}

extension CMISRepository {
    /// Joins are `notSupported`; a statement that does not parse, or names an unknown type or property, is
    /// `invalidArgument`. Only objects the caller may read match. While the repository is unchanged (the read
    /// generation holds), later pages of the same statement come from the first page's matches. `renditionFilter` is
    /// not used.
    public func query(
        repositoryId: String, statement: String, searchAllVersions: Bool, includeAllowableActions: Bool,
        includeRelationships: OperationContext.IncludeRelationships, renditionFilter: String?, maxItems: Int?,
        skipCount: Int, caller: CallerContext
    ) async throws -> ObjectList {
        try await query(
            repositoryId: repositoryId, statement: statement, searchAllVersions: searchAllVersions,
            includeAllowableActions: includeAllowableActions, includeRelationships: includeRelationships,
            maxItems: maxItems, skipCount: skipCount, trash: nil, in: nil, caller: caller)
    }

    /// The trash is left out (or kept to) by the store's own scan when the store keeps the marks
    /// (``ServerStateStore``), or, for a query held to one folder by `IN_FOLDER`, by one read of the marks of that
    /// folder's objects; nil when the store keeps no marks.
    public func query(
        repositoryId: String, statement: String, searchAllVersions: Bool, includeAllowableActions: Bool,
        includeRelationships: OperationContext.IncludeRelationships, renditionFilter: String?, maxItems: Int?,
        skipCount: Int, trash: TrashScope, caller: CallerContext
    ) async throws -> ObjectList? {
        guard let marks = store as? any ServerStateStore else { return nil }
        return try await query(
            repositoryId: repositoryId, statement: statement, searchAllVersions: searchAllVersions,
            includeAllowableActions: includeAllowableActions, includeRelationships: includeRelationships,
            maxItems: maxItems, skipCount: skipCount, trash: trash, in: marks, caller: caller)
    }

    private func query(
        repositoryId: String, statement: String, searchAllVersions: Bool, includeAllowableActions: Bool,
        includeRelationships: OperationContext.IncludeRelationships, maxItems: Int?, skipCount: Int,
        trash: TrashScope?, in marks: (any ServerStateStore)?, caller: CallerContext
    ) async throws -> ObjectList {
        let scope = try await scope(repositoryId, caller)
        let limit = try pageSize(maxItems)
        try checkSkipCount(skipCount)
        let query: CMISQuery
        do {
            query = try CMISQL.parse(statement)
        } catch {
            throw CMISError(
                .invalidArgument, "The query is not valid CMIS QL: \(error.message) (at offset \(error.offset)).")
        }
        guard query.from.joins.isEmpty else {
            throw CMISError(.notSupported, "This repository does not support joins.")
        }
        let table = query.from.primary
        guard let type = types.types.values.first(where: { ($0.queryName ?? $0.id) == table.queryName }) else {
            throw CMISError(.invalidArgument, "There is no object type with the query name '\(table.queryName)'.")
        }
        guard type.queryable == true else {
            throw CMISError(.invalidArgument, "Objects of type '\(type.id)' cannot be queried.")
        }
        let definitions = Dictionary(
            type.propertyDefinitions.map { ($0.queryName ?? $0.id, $0) }, uniquingKeysWith: { first, _ in first })
        try checkColumns(query, table: table, definitions: definitions)
        let cardinalities = definitions.mapValues(\.cardinality)
        let needs = QueryNeeds(query.whereClause)
        let wantsPath =
            type.baseTypeId == .folder
            && (query.selectAll || query.referencedColumns.contains { $0.name == "cmis:path" }
                || query.select.contains { if case .allColumns = $0 { return true } else { return false } })

        // Later pages of a result read under the same generation come from what the first one matched.
        let generation = readGeneration(repositoryId: scope.id)
        let key = QueryResultKey(
            repository: scope.id, user: caller.user, isAdministrator: caller.isAdministrator, statement: statement,
            searchAllVersions: searchAllVersions, trash: trash, trashGeneration: marks?.trashGeneration ?? 0)
        if let generation, let kept = try await keptMatches(key, generation: generation, scope: scope) {
            let page = Array(kept.page(skip: skipCount, limit: limit))
            var loaded: [String: StoredObject] = [:]
            if case .ids = kept {
                for object in try await store.objects(repositoryId: scope.id, ids: page.map(\.id)) {
                    loaded[object.id] = object
                }
            }
            var rows: [QueryCandidate] = []
            for entry in page {
                guard let object = entry.object ?? loaded[entry.id] else { continue }
                var extra: [String: [PropertyValue]] = [:]
                if wantsPath { extra["cmis:path"] = [.string(try await path(scope, ofFolder: object))] }
                let row = QueryCandidate(
                    object: object, extra: extra, cardinalities: cardinalities, parents: [], ancestors: [],
                    blobs: blobs)
                if needs.text { await row.loadText() }
                rows.append(row)
            }
            recentObjects.remember(rows.map(\.object), repository: scope.id, generation: generation)
            return try await results(
                query, rows, definitions: definitions, scope: scope, includeAllowableActions: includeAllowableActions,
                includeRelationships: includeRelationships, hasMoreItems: skipCount + page.count < kept.count,
                numItems: kept.count)
        }

        let typeIds = Set(types.selfAndDescendants(type.id))
        let candidates: [StoredObject]
        if !searchAllVersions, let folderId = Self.requiredFolder(query.whereClause) {
            // Every match is filed in one folder: its children are the candidates, not the whole repository.
            var inFolder = try await folderCandidates(
                scope, folderId, baseType: type.baseTypeId, typeIds: typeIds, generation: generation)
            if let trash, let marks {
                // The folder's page of marks, in one read.
                let trashed = try await marks.trashMarks(
                    repositoryId: scope.id, keys: inFolder.map { $0.versionSeriesId ?? $0.id })
                inFolder.removeAll { (trashed[$0.versionSeriesId ?? $0.id] != nil) != (trash == .trashed) }
            }
            candidates = inFolder
        } else {
            candidates = try await store.scan(
                repositoryId: scope.id, baseTypes: [type.baseTypeId], typeIds: typeIds, latestOnly: false,
                trash: trash)
        }
        var matches: [QueryCandidate] = []
        // Worked out once per folder, not once per candidate filed in it.
        var inherited: [String: Permission] = [:]
        var treeAbove: [String: [String]] = [:]
        for object in candidates {
            // Working copies are searchable (pwcSearchable), whatever the store counts as "latest".
            if !searchAllVersions && object.baseTypeId == .document && !object.isLatestVersion
                && !object.isPrivateWorkingCopy
            {
                continue
            }
            guard try await permission(scope, on: object, inherited: &inherited) >= .read else { continue }
            var extra: [String: [PropertyValue]] = [:]
            if wantsPath { extra["cmis:path"] = [.string(try await path(scope, ofFolder: object))] }
            var parents: Set<String> = []
            var ancestors: Set<String> = []
            if needs.folders || needs.tree {
                let filed =
                    object.baseTypeId == .folder ? object.parentIds : try await filedParents(scope, of: object)
                parents = Set(filed)
                if needs.tree {
                    for parent in filed {
                        if let known = treeAbove[parent] {
                            ancestors.formUnion(known)
                        } else {
                            let chain = try await ancestry(scope, from: parent).map(\.id)
                            treeAbove[parent] = chain
                            ancestors.formUnion(chain)
                        }
                    }
                }
            }
            let row = QueryCandidate(
                object: object, extra: extra, cardinalities: cardinalities, parents: parents,
                ancestors: ancestors, blobs: blobs)
            if needs.text { await row.loadText() }
            do {
                if try query.matches(row) { matches.append(row) }
            } catch {
                throw CMISError(
                    .invalidArgument, "The query cannot be evaluated: \(error.message) (at offset \(error.offset)).")
            }
        }
        if !query.orderBy.isEmpty {
            // A stable sort: equal keys keep the store's order.
            matches = matches.enumerated().sorted { lhs, rhs in
                if query.areInIncreasingOrder(lhs.element, rhs.element) { return true }
                if query.areInIncreasingOrder(rhs.element, lhs.element) { return false }
                return lhs.offset < rhs.offset
            }.map(\.element)
        }
        if let generation {
            // A result small enough keeps its objects (later pages read nothing), a larger one its ids.
            if matches.count <= queryMatches.maximumWeight {
                queryMatches.keep(matches.map(\.object), for: key, generation: generation)
            } else {
                queryResults.keep(matches.map(\.object.id), for: key, generation: generation)
            }
        }
        let page = matches.dropFirst(skipCount).prefix(limit)
        if let generation { recentObjects.remember(page.map(\.object), repository: scope.id, generation: generation) }
        return try await results(
            query, Array(page), definitions: definitions, scope: scope,
            includeAllowableActions: includeAllowableActions,
            includeRelationships: includeRelationships, hasMoreItems: skipCount + page.count < matches.count,
            numItems: matches.count)
    }

    /// What an earlier page of the same query under `generation` matched: its objects, or its ids.
    private func keptMatches(_ key: QueryResultKey, generation: UInt64, scope: Scope) async throws -> KeptMatches? {
        if let objects = queryMatches.value(key, generation: generation) { return .objects(objects) }
        if let ids = queryResults.value(key, generation: generation) { return .ids(ids) }
        return nil
    }

    /// The folder an `IN_FOLDER` names when the whole condition needs it (alone, or as one operand of an `AND`).
    static func requiredFolder(_ expression: QueryExpression?) -> String? {
        switch expression {
        case .inFolder(_, let folderId)?: return folderId
        case .and(let operands)?:
            for operand in operands { if case .inFolder(_, let folderId) = operand { return folderId } }
            return nil
        default: return nil
        }
    }

    /// What a query held to one folder can match there, in the store's scan order (by id): the folder's children
    /// of the queried types, and the working copies of documents among them, which are filed only through their
    /// version series (``filedParents(_:of:)``).
    func folderCandidates(
        _ scope: Scope, _ folderId: String, baseType: BaseTypeId, typeIds: Set<String>, generation: UInt64?
    ) async throws -> [StoredObject] {
        let key = FolderContentsKey(repository: scope.id, folder: folderId)
        var children: [StoredObject]
        if let generation, let kept = folderContents.value(key, generation: generation) {
            children = kept
        } else {
            // A first page the store reads as a short read; the rest of a large folder, if any, as a long one.
            let firstPage = try await store.children(
                repositoryId: scope.id, folderId: folderId, order: [StoreOrder(.name)], offset: 0, limit: 1000)
            children = firstPage.objects
            if firstPage.totalCount > children.count {
                children += try await store.children(
                    repositoryId: scope.id, folderId: folderId, order: [StoreOrder(.name)], offset: children.count,
                    limit: nil
                ).objects
            }
            if let generation { folderContents.keep(children, for: key, generation: generation) }
        }
        var candidates = children.filter { $0.baseTypeId == baseType && typeIds.contains($0.typeId) }
        var seen = Set(candidates.map(\.id))
        for document in candidates where document.baseTypeId == .document {
            guard let series = document.versionSeriesId,
                document.properties["cmis:isVersionSeriesCheckedOut"]?.values.first?.boolValue == true
            else { continue }
            for version in try await store.versions(repositoryId: scope.id, versionSeriesId: series)
            where version.isPrivateWorkingCopy && version.parentIds.isEmpty && seen.insert(version.id).inserted {
                candidates.append(version)
            }
        }
        return candidates.sorted { $0.id < $1.id }
    }

    /// A page of matches as the query's select list projects them.
    private func results(
        _ query: CMISQuery, _ page: [QueryCandidate], definitions: [String: PropertyDefinition], scope: Scope,
        includeAllowableActions: Bool, includeRelationships: OperationContext.IncludeRelationships,
        hasMoreItems: Bool, numItems: Int
    ) async throws -> ObjectList {
        var objects: [CMISObject] = []
        for row in page {
            var result = CMISObject(properties: project(query, row, definitions: definitions))
            if includeAllowableActions {
                result.allowableActions = allowableActions(
                    scope, row.object, try await permission(scope, on: row.object))
            }
            if includeRelationships != .none && row.object.baseTypeId != .relationship {
                result.relationships = try await relationships(scope, of: row.object, direction: includeRelationships)
            }
            objects.append(result)
        }
        return ObjectList(objects: objects, hasMoreItems: hasMoreItems, numItems: Int64(numItems))
    }

    /// Every column must name a property of the FROM type, qualified by nothing or by the type's qualifier.
    private func checkColumns(
        _ query: CMISQuery, table: TableReference, definitions: [String: PropertyDefinition]
    )
        throws
    {
        for column in query.referencedColumns {
            if let qualifier = column.qualifier, qualifier != table.qualifier {
                throw CMISError(
                    .invalidArgument, "'\(qualifier)' in '\(column)' does not name the type in the FROM clause.")
            }
            guard definitions[column.name] != nil else {
                throw CMISError(
                    .invalidArgument, "Type '\(table.queryName)' has no property with the query name '\(column.name)'.")
            }
        }
        for item in query.select {
            if case .allColumns(let qualifier) = item, qualifier != table.qualifier {
                throw CMISError(.invalidArgument, "'\(qualifier).*' does not name the type in the FROM clause.")
            }
        }
    }

    /// The select list of one row: properties named by their alias or query name; `SCORE()` as `SEARCH_SCORE`.
    private func project(
        _ query: CMISQuery, _ row: QueryCandidate, definitions: [String: PropertyDefinition]
    )
        -> Properties
    {
        func property(_ definition: PropertyDefinition, values: [PropertyValue], as name: String) -> CMISProperty {
            var property = CMISProperty(definition: definition, values: values)
            property.queryName = name
            return property
        }
        func property(_ definition: PropertyDefinition, as name: String) -> CMISProperty {
            property(definition, values: row.properties[definition.queryName ?? definition.id] ?? [], as: name)
        }
        // `*`: every stored property with its values as stored (no table of the row's values is built), and a
        // folder's path.
        func everything() -> [CMISProperty] {
            var all: [CMISProperty] = []
            all.reserveCapacity(row.object.properties.count + 1)
            var hasPath = false
            for stored in row.object.properties {
                guard let definition = definitions[stored.queryName ?? stored.id] else { continue }
                let name = definition.queryName ?? definition.id
                hasPath = hasPath || name == "cmis:path"
                all.append(property(definition, values: row.extraValues(name) ?? stored.values, as: name))
            }
            if !hasPath, let definition = definitions["cmis:path"], let path = row.extraValues("cmis:path") {
                all.append(property(definition, values: path, as: "cmis:path"))
            }
            return all
        }
        // A stored bag names each property once: `SELECT *` alone needs no check for names selected twice.
        if query.selectAll && query.select.isEmpty { return Properties(everything()) }
        var result: [CMISProperty] = query.selectAll ? everything() : []
        for item in query.select {
            switch item {
            case .column(let column, let alias):
                if let definition = definitions[column.name] {
                    result.append(property(definition, as: alias ?? column.name))
                }
            case .allColumns:
                result += everything()
            case .score(let alias):
                let name = alias ?? "SEARCH_SCORE"
                result.append(
                    CMISProperty(
                        id: name, type: .decimal, values: [.decimal(Decimal(query.score(row)))], localName: name,
                        displayName: name, queryName: name))
            }
        }
        // One property per query name; a property selected twice under two aliases is keyed by its alias.
        var seen: Set<String> = []
        var ids: Set<String> = []
        var unique: [CMISProperty] = []
        for property in result where seen.insert(property.queryName ?? property.id).inserted {
            var keyed = property
            if !ids.insert(property.id).inserted {
                keyed.id = property.queryName ?? property.id
                ids.insert(keyed.id)
            }
            unique.append(keyed)
        }
        return Properties(unique)
    }
}
