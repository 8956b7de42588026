import Foundation

extension CMISSession {
    /// A folder's children as a lazy sequence: each page is fetched when iteration reaches it.
    ///
    /// ```swift
    /// for try await child in session.children(of: folderId) {
    ///     print(child.pathSegment ?? "", child.object.contentStreamLength ?? 0)
    /// }
    /// for try await page in session.children(of: folderId).pages { print(page.numItems ?? -1) }
    /// ```
    public func children(of folderId: String, context: OperationContext? = nil) -> ChildrenSequence {
        let context = context ?? parameters.operationContext
        let binding = binding
        let repositoryId = repositoryId
        return ChildrenSequence(pageSize: pageSize(context)) { skipCount, maxItems in
            try await binding.children(
                repositoryId: repositoryId, folderId: folderId, context: context, maxItems: maxItems,
                skipCount: skipCount)
        }
    }

    /// One page of a folder's children: `maxItems` (the page size by default) from `skipCount`.
    public func childrenPage(
        of folderId: String, skipCount: Int = 0, maxItems: Int? = nil, context: OperationContext? = nil
    ) async throws -> ObjectInFolderList {
        let context = context ?? parameters.operationContext
        return try await binding.children(
            repositoryId: repositoryId, folderId: folderId, context: context,
            maxItems: maxItems ?? pageSize(context), skipCount: skipCount)
    }
}

/// A folder's children, fetched a page at a time while iterated. Iterating again starts over.
public struct ChildrenSequence: AsyncSequence, Sendable {
    public typealias Element = ObjectInFolder
    /// Fetches `maxItems` children from `skipCount`.
    public typealias PageFetcher = @Sendable (_ skipCount: Int, _ maxItems: Int) async throws -> ObjectInFolderList

    /// How many children each request asks for.
    public let pageSize: Int
    let fetch: PageFetcher

    /// A sequence over the pages `fetch` returns; mostly made by ``CMISSession/children(of:context:)``.
    public init(pageSize: Int, fetch: @escaping PageFetcher) {
        self.pageSize = Swift.max(pageSize, 1)
        self.fetch = fetch
    }

    /// The same children, a page (with `hasMoreItems` and `numItems`) at a time.
    public var pages: PageSequence { PageSequence(pageSize: pageSize, fetch: fetch) }

    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(pages: pages.makeAsyncIterator()) }

    /// Yields the children of the current page, fetching the next page when it runs out.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var pages: PageSequence.AsyncIterator
        var buffer: [ObjectInFolder] = []
        var index = 0

        public mutating func next() async throws -> ObjectInFolder? {
            while index >= buffer.count {
                guard let page = try await pages.next() else { return nil }
                buffer = page.objects
                index = 0
            }
            defer { index += 1 }
            return buffer[index]
        }
    }

    /// Pages of children; ends after the page that says `hasMoreItems: false` (or comes back empty).
    public struct PageSequence: AsyncSequence, Sendable {
        public typealias Element = ObjectInFolderList
        public let pageSize: Int
        let fetch: PageFetcher

        public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(pageSize: pageSize, fetch: fetch) }

        /// Fetches the next page from where the previous one ended.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let pageSize: Int
            let fetch: PageFetcher
            var skipCount = 0
            var finished = false

            public mutating func next() async throws -> ObjectInFolderList? {
                guard !finished else { return nil }
                let page = try await fetch(skipCount, pageSize)
                skipCount += page.objects.count
                if !page.hasMoreItems || page.objects.isEmpty { finished = true }
                return page.objects.isEmpty && skipCount > 0 ? nil : page
            }
        }
    }
}
