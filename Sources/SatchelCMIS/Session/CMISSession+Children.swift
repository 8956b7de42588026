import Foundation

extension CMISSession {
    /// A folder's children as a lazy sequence, fetched a page at a time as iteration goes; the next
    /// ``SessionParameters/prefetchPages`` pages are requested while the current one is read.
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
        return ChildrenSequence(pageSize: pageSize(context), prefetch: parameters.prefetchPages) {
            skipCount, maxItems in
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
    /// How many pages beyond the current one are requested ahead of iteration (see ``PageSequence``).
    public let prefetch: Int
    let fetch: PageFetcher

    /// A sequence over the pages `fetch` returns; mostly made by ``CMISSession/children(of:context:)``.
    public init(pageSize: Int, prefetch: Int = 0, fetch: @escaping PageFetcher) {
        self.pageSize = Swift.max(pageSize, 1)
        self.prefetch = Swift.max(prefetch, 0)
        self.fetch = fetch
    }

    /// The same children, a page (with `hasMoreItems` and `numItems`) at a time.
    public var pages: PageSequence { PageSequence(pageSize: pageSize, prefetch: prefetch, fetch: fetch) }

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
    ///
    /// While a page is being consumed, the next ``prefetch`` pages are already being requested (at the offsets
    /// full pages would have), so the server prepares them while this process reads the current one. A page
    /// that comes back shorter than asked while more remain shows the guess was wrong: the pages requested
    /// ahead are dropped and asked for again from the right offset. Stopping early cancels them.
    public struct PageSequence: AsyncSequence, Sendable {
        public typealias Element = ObjectInFolderList
        public let pageSize: Int
        /// How many pages beyond the current one are requested ahead of iteration (0: one request at a time).
        public let prefetch: Int
        let fetch: PageFetcher

        public func makeAsyncIterator() -> AsyncIterator {
            AsyncIterator(pageSize: pageSize, prefetch: prefetch, fetch: fetch)
        }

        /// Fetches the next page from where the previous one ended.
        public struct AsyncIterator: AsyncIteratorProtocol {
            let pageSize: Int
            let prefetch: Int
            let fetch: PageFetcher
            var skipCount = 0
            var finished = false
            /// Requests under way for the pages after the last one returned, in order.
            var ahead: [PendingPage] = []

            init(pageSize: Int, prefetch: Int, fetch: @escaping PageFetcher) {
                self.pageSize = pageSize
                self.prefetch = Swift.max(prefetch, 0)
                self.fetch = fetch
            }

            public mutating func next() async throws -> ObjectInFolderList? {
                guard !finished else { return nil }
                let pending =
                    ahead.isEmpty ? PendingPage(skipCount: skipCount, maxItems: pageSize, fetch) : ahead.removeFirst()
                let page: ObjectInFolderList
                do {
                    page = try await pending.value
                } catch {
                    finished = true
                    ahead = []
                    throw error
                }
                let fullPage = page.objects.count == pageSize
                skipCount += page.objects.count
                if !page.hasMoreItems || page.objects.isEmpty {
                    finished = true
                    ahead = []
                } else {
                    if !fullPage { ahead = [] }  // the offsets asked for ahead assumed a full page
                    var offset = skipCount + ahead.count * pageSize
                    let total = page.numItems.map { Int(clamping: $0) } ?? Int.max
                    while ahead.count < prefetch && offset < total {
                        ahead.append(PendingPage(skipCount: offset, maxItems: pageSize, fetch))
                        offset += pageSize
                    }
                }
                return page.objects.isEmpty && skipCount > 0 ? nil : page
            }
        }
    }
}

/// A page request started ahead of iteration; dropping it cancels the request.
final class PendingPage: Sendable {
    private let task: Task<ObjectInFolderList, any Error>

    init(skipCount: Int, maxItems: Int, _ fetch: @escaping ChildrenSequence.PageFetcher) {
        task = Task { try await fetch(skipCount, maxItems) }
    }

    deinit { task.cancel() }

    /// The page; cancelling the waiting task cancels the request.
    var value: ObjectInFolderList {
        get async throws {
            try await withTaskCancellationHandler {
                try await task.value
            } onCancel: { [task] in
                task.cancel()
            }
        }
    }
}
