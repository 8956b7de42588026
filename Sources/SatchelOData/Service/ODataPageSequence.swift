import Foundation

/// The pages of a collection: the first request, then each next link (`@odata.nextLink`, `__next`) until there
/// is none. With ``ODataService/Configuration/pageSize`` set and a V2 server that does not page, the client
/// pages itself with `$top`/`$skip`.
public struct ODataPageSequence: AsyncSequence, Sendable {
    public typealias Element = ODataPage
    let service: ODataService
    let path: ODataPath
    let query: ODataQuery

    public func makeAsyncIterator() -> Iterator { Iterator(sequence: self) }

    public struct Iterator: AsyncIteratorProtocol {
        let sequence: ODataPageSequence
        var next: String?
        var started = false
        var clientSkip = 0

        init(sequence: ODataPageSequence) { self.sequence = sequence }

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

/// The entities of a collection across all its pages.
public struct ODataEntitySequence: AsyncSequence, Sendable {
    public typealias Element = ODataEntity
    let pages: ODataPageSequence

    public func makeAsyncIterator() -> Iterator { Iterator(pages: pages.makeAsyncIterator()) }

    /// All entities in one array (for small collections).
    public func collect() async throws -> [ODataEntity] {
        var result: [ODataEntity] = []
        for try await entity in self { result.append(entity) }
        return result
    }

    public struct Iterator: AsyncIteratorProtocol {
        var pages: ODataPageSequence.Iterator
        var buffer: [ODataEntity] = []
        var index = 0

        public mutating func next() async throws -> ODataEntity? {
            while index == buffer.count {
                guard let page = try await pages.next() else { return nil }
                buffer = page.entities
                index = 0
            }
            defer { index += 1 }
            return buffer[index]
        }
    }
}
