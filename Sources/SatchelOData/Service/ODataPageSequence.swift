import Foundation

/// The pages of a collection: the first request, then each next link (`@odata.nextLink`, `__next`) until there
/// is none. With ``ODataService/Configuration/pageSize`` set and a V2 server that does not page, the client
/// pages itself with `$top`/`$skip`.
public struct ODataPageSequence: AsyncSequence, Sendable {
    /// Each element is one page of the collection.
    public typealias Element = ODataPage
    let service: ODataService
    let path: ODataPath
    let query: ODataQuery

    /// An iterator that sends the first request when first asked for a page.
    public func makeAsyncIterator() -> Iterator { Iterator(sequence: self) }

    /// Fetches the pages one at a time, each only when asked for.
    public struct Iterator: AsyncIteratorProtocol {
        let sequence: ODataPageSequence
        var next: String?
        var started = false
        var clientSkip = 0

        init(sequence: ODataPageSequence) { self.sequence = sequence }

        /// The next page, or `nil` after the last one (no next link; with client paging, a page shorter than
        /// `pageSize` or an empty one). Throws `ODataError` when a request fails, and `CancellationError` when the
        /// task is cancelled between pages.
        public mutating func next() async throws -> ODataPage? {
            let service = sequence.service
            let operation = "read \(sequence.path)"
            if !started {
                started = true
                let version = try await service.version()
                let type = service.entityType(of: sequence.path)
                var query = sequence.query
                let clientPaging = version == .v2 && query.top == nil && service.configuration.pageSize != nil
                if clientPaging, let size = service.configuration.pageSize { query.top = size }
                clientSkip = query.skip ?? 0
                let url = service.url(
                    path: sequence.path.text(for: version), query: try query.queryString(for: version))
                let page = try await service.page(at: url, type: type, operation: operation)
                advance(after: page, clientPaging: clientPaging)
                return page
            }
            guard let link = next else { return nil }
            try Task.checkCancellation()
            let version = try await service.version()
            let type = service.entityType(of: sequence.path)
            let clientPaging = link.isEmpty
            let page: ODataPage
            if clientPaging {
                var query = sequence.query
                query.top = service.configuration.pageSize
                query.skip = clientSkip
                let url = service.url(
                    path: sequence.path.text(for: version), query: try query.queryString(for: version))
                page = try await service.page(at: url, type: type, operation: operation)
                // The previous page was full, so this one was asked for; empty, it only says the data ended there.
                if page.entities.isEmpty && page.nextLink == nil {
                    next = nil
                    return nil
                }
            } else {
                page = try await service.page(at: service.url(absolute: link), type: type, operation: operation)
            }
            advance(after: page, clientPaging: clientPaging)
            return page
        }

        /// Where the next page is: the server's link, or (client paging, marked by an empty link) the next skip.
        private mutating func advance(after page: ODataPage, clientPaging: Bool) {
            if let link = page.nextLink {
                next = link
            } else if clientPaging, let size = sequence.service.configuration.pageSize, page.entities.count >= size,
                size > 0
            {
                clientSkip += page.entities.count
                next = ""
            } else {
                next = nil
            }
        }
    }
}

/// The entities of a collection across all its pages, each page decoded while it arrives: memory holds one
/// entity and one chunk of the response, not a page. The next page is requested only when the previous one has
/// been consumed.
public struct ODataEntitySequence: AsyncSequence, Sendable {
    /// Each element is one entity of the collection.
    public typealias Element = ODataEntity
    let pages: ODataPageSequence

    /// An iterator that sends the first request when first asked for an entity.
    public func makeAsyncIterator() -> Iterator { Iterator(sequence: pages) }

    /// All entities in one array (for small collections).
    public func collect() async throws -> [ODataEntity] {
        var result: [ODataEntity] = []
        for try await entity in self { result.append(entity) }
        return result
    }

    /// Decodes the entities of one page while it arrives, then requests the next page.
    public struct Iterator: AsyncIteratorProtocol {
        let sequence: ODataPageSequence
        var started = false
        var finished = false
        /// The next page: a server link, or (client paging, marked by an empty link) the next `$skip`.
        var next: String?
        var clientPaging = false
        var clientSkip = 0
        var page: (url: URL, stream: ODataEntityStream<ResponseChunks>, count: Int)?
        var entities: ODataEntityStream<ResponseChunks>.AsyncIterator?
        /// A page read whole (an Atom answer): its entities not yet returned, and its next link.
        var buffered: (entities: ArraySlice<ODataEntity>, count: Int, nextLink: String?)?

        init(sequence: ODataPageSequence) { self.sequence = sequence }

        /// The next entity, or `nil` after the last page. A V2 delta page's `__deleted` entries come after its other
        /// entities, marked removed. After an error the iterator returns `nil`.
        public mutating func next() async throws -> ODataEntity? {
            guard !finished else { return nil }
            do {
                while true {
                    if var whole = buffered {
                        if let entity = whole.entities.popFirst() {
                            buffered = whole
                            return entity
                        }
                        buffered = nil
                        advance(nextLink: whole.nextLink, count: whole.count)
                    }
                    if var iterator = entities, var current = page {
                        let entity: ODataEntity?
                        do {
                            entity = try await iterator.next()
                        } catch {
                            throw ODataError.payload(error, url: current.url, operation: operation)
                        }
                        entities = iterator
                        if let entity {
                            current.count += 1
                            page = current
                            return entity
                        }
                        entities = nil
                        page = nil
                        let nextLink: String?
                        do {
                            nextLink = try current.stream.page?.nextLink
                        } catch {
                            throw ODataError.payload(error, url: current.url, operation: operation)
                        }
                        advance(nextLink: nextLink, count: current.count)
                    }
                    guard let url = try await nextURL() else {
                        finished = true
                        return nil
                    }
                    try Task.checkCancellation()
                    let service = sequence.service
                    switch try await service.entityStream(
                        at: url, type: service.entityType(of: sequence.path), version: try await service.version(),
                        operation: operation)
                    {
                    case .streaming(let stream):
                        page = (url, stream, 0)
                        entities = stream.makeAsyncIterator()
                    case .whole(let whole):
                        buffered = (whole.entities[...], whole.entities.count, whole.nextLink)
                    }
                }
            } catch {
                finished = true
                entities = nil
                page = nil
                buffered = nil
                throw error
            }
        }

        private var operation: String { "read \(sequence.path)" }

        /// The URL of the next page, or nil after the last.
        private mutating func nextURL() async throws -> URL? {
            let service = sequence.service
            let version = try await service.version()
            if !started {
                started = true
                var query = sequence.query
                clientPaging = version == .v2 && query.top == nil && service.configuration.pageSize != nil
                if clientPaging, let size = service.configuration.pageSize { query.top = size }
                clientSkip = query.skip ?? 0
                return service.url(path: sequence.path.text(for: version), query: try query.queryString(for: version))
            }
            guard let link = next else { return nil }
            next = nil
            clientPaging = link.isEmpty
            guard link.isEmpty else { return service.url(absolute: link) }
            var query = sequence.query
            query.top = service.configuration.pageSize
            query.skip = clientSkip
            return service.url(path: sequence.path.text(for: version), query: try query.queryString(for: version))
        }

        /// Where the next page is, as ``ODataPageSequence`` decides it.
        private mutating func advance(nextLink: String?, count: Int) {
            if let nextLink {
                next = nextLink
            } else if clientPaging, let size = sequence.service.configuration.pageSize, count >= size, size > 0 {
                clientSkip += count
                next = ""
            } else {
                next = nil
            }
        }
    }
}
