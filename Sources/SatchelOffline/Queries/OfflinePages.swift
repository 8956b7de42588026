public import SatchelOData

/// The pages of a read from the store, as ``OfflineStore/pages(_:query:pageSize:)`` gives them: the same element as
/// `ODataService.pages(_:query:)` online (`ODataPage`), each page read from the store only when the one before it
/// was consumed, so a large result never sits in memory whole.
///
/// Each page is its own read, in the result's order (the query's `$orderby`, then the key): a change committed
/// between two pages may move an entity across the boundary, as a change on the server does online. A page carries
/// no next link (the sequence goes on by itself); the first carries the count when the query asks for it
/// (`includeCount`).
public struct OfflinePageSequence: AsyncSequence, Sendable {
    /// Each element is one page of entities.
    public typealias Element = ODataPage
    let store: OfflineStore
    let path: ODataPath
    let query: ODataQuery
    let pageSize: Int

    /// An iterator that reads the first page when first asked.
    public func makeAsyncIterator() -> Iterator { Iterator(sequence: self) }

    /// Reads one page at a time.
    public struct Iterator: AsyncIteratorProtocol {
        let sequence: OfflinePageSequence
        /// Entities delivered so far.
        var delivered = 0
        var finished = false

        /// The next page, or nil after the last.
        public mutating func next() async throws -> ODataPage? {
            guard !finished else { return nil }
            let query = sequence.query
            var wanted = sequence.pageSize
            if let top = query.top { wanted = Swift.min(wanted, top - delivered) }
            guard wanted > 0 else {
                finished = true
                return nil
            }
            var pageQuery = query
            pageQuery.skip = (query.skip ?? 0) + delivered
            pageQuery.top = wanted
            pageQuery.includeCount = false
            let entities = try await sequence.store.entities(sequence.path, query: pageQuery)
            var page = ODataPage(entities: entities)
            if delivered == 0, query.includeCount {
                page.count = Int64(try await sequence.store.countEntities(at: sequence.path, query: query))
            }
            delivered += entities.count
            if entities.count < wanted { finished = true }
            // The last page may be empty only when the result is (an empty first page), as online.
            if entities.isEmpty, delivered > 0 { return nil }
            return page
        }
    }
}

/// The entities of a read from the store, one page at a time: the same element as `ODataService.entities(_:query:)`
/// online (`ODataEntity`), from ``OfflinePageSequence``.
public struct OfflineEntitySequence: AsyncSequence, Sendable {
    /// Each element is one entity.
    public typealias Element = ODataEntity
    let pages: OfflinePageSequence

    /// An iterator that reads the first page when first asked for an entity.
    public func makeAsyncIterator() -> Iterator { Iterator(pages: pages.makeAsyncIterator()) }

    /// All entities in one array (for small results).
    public func collect() async throws -> [ODataEntity] {
        var result: [ODataEntity] = []
        for try await entity in self { result.append(entity) }
        return result
    }

    /// Hands out the entities of one page, then reads the next.
    public struct Iterator: AsyncIteratorProtocol {
        var pages: OfflinePageSequence.Iterator
        var current: [ODataEntity] = []
        var index = 0

        /// The next entity, or nil after the last.
        public mutating func next() async throws -> ODataEntity? {
            while index == current.count {
                guard let page = try await pages.next() else { return nil }
                current = page.entities
                index = 0
            }
            defer { index += 1 }
            return current[index]
        }
    }
}

extension OfflineStore {
    /// The entities at `path` that `query` selects, in pages of at most `pageSize` read from the store one at a time
    /// (local paging): the shape of `ODataService.pages(_:query:)`. `$top` and `$skip` bound the whole result, as
    /// online.
    ///
    /// ```swift
    /// for try await page in store.pages(ODataPath("Products"), query: query, pageSize: 200) { table.append(page.entities) }
    /// ```
    public func pages(
        _ path: ODataPath, query: ODataQuery = ODataQuery(), pageSize: Int = 500
    ) -> OfflinePageSequence {
        OfflinePageSequence(store: self, path: path, query: query, pageSize: max(1, pageSize))
    }

    /// The entities at `path` that `query` selects, one at a time, read from the store `pageSize` at a time: the
    /// shape of `ODataService.entities(_:query:)` (an `AsyncSequence` of `ODataEntity`).
    public func entitySequence(
        _ path: ODataPath, query: ODataQuery = ODataQuery(), pageSize: Int = 500
    ) -> OfflineEntitySequence {
        OfflineEntitySequence(pages: pages(path, query: query, pageSize: pageSize))
    }

    /// The entity at `path` (`Set(key)`), as `ODataService.entity(_:query:)` reads it online.
    public func entity(_ path: ODataPath, query: ODataQuery = ODataQuery()) async throws -> ODataEntity {
        let (set, key) = try Self.address(path)
        guard let key else { throw OfflineStoreError(.invalidReference, "\(path) names no entity (no key)") }
        return try await entity(set, .key(key), query: query)
    }

    /// Creates an entity in the set at `path` locally and queues its creation, as `ODataService.create(_:_:)` takes
    /// it online; returns the entity's id in the store (``create(_:_:options:)-(String,_,_)``).
    @discardableResult
    public func create(
        _ path: ODataPath, _ entity: ODataEntity, options: OfflineChangeOptions = OfflineChangeOptions()
    ) async throws -> Int64 {
        let (set, key) = try Self.address(path)
        guard key == nil else {
            throw OfflineStoreError(.invalidReference, "an entity is created in an entity set, not at \(path)")
        }
        return try await create(set, entity, options: options)
    }

    /// Changes the entity at `path` (`Set(key)`) locally and queues the change, as `ODataService.update(_:with:)`
    /// takes it online (``update(_:_:with:method:options:)``).
    public func update(
        _ path: ODataPath, with changes: ODataEntity, method: ODataUpdateMethod = .merge,
        options: OfflineChangeOptions = OfflineChangeOptions()
    ) async throws {
        let (set, key) = try Self.address(path)
        guard let key else { throw OfflineStoreError(.invalidReference, "\(path) names no entity (no key)") }
        try await update(set, .key(key), with: changes, method: method, options: options)
    }
}
