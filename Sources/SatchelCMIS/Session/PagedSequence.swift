import Foundation
public import SatchelCMISCore

/// A page of a CMIS list: its items, whether more follow, and the total when the repository knows it.
public protocol CMISPage: Sendable {
    /// What the list holds (an object, or an object in a folder).
    associatedtype Item: Sendable
    /// The page's items.
    var items: [Item] { get }
    /// Whether more items follow this page.
    var hasMoreItems: Bool { get }
    /// How many items the whole list has, when the repository says.
    var numItems: Int64? { get }
}

extension ObjectInFolderList: CMISPage {
    /// The page's children (`objects`).
    public var items: [ObjectInFolder] { objects }
}

extension ObjectList: CMISPage {
    /// The page's objects (`objects`).
    public var items: [CMISObject] { objects }
}

/// A CMIS list (children, query results) as a lazy sequence of its items, fetched a page at a time while
/// iterated. Iterating again starts over.
///
/// While a page is being consumed, the next ``prefetch`` pages are already being requested (at the offsets full
/// pages would have), so the server prepares them while this process reads the current one. A page that comes
/// back shorter than asked while more remain shows the guess was wrong: the pages requested ahead are dropped
/// and asked for again from the right offset. Nothing is requested past `numItems`, and stopping early cancels
/// the requests under way.
///
/// ```swift
/// for try await child in session.children(of: folderId) { print(child.object.name ?? "") }
/// for try await page in session.queryResults("SELECT * FROM cmis:document").pages { print(page.numItems ?? -1) }
/// ```
public struct PagedSequence<Page: CMISPage>: AsyncSequence, Sendable {
    /// Iteration yields the items, across pages.
    public typealias Element = Page.Item
    /// Fetches `maxItems` items from `skipCount`.
    public typealias PageFetcher = @Sendable (_ skipCount: Int, _ maxItems: Int) async throws -> Page

    /// How many items each request asks for.
    public let pageSize: Int
    /// How many pages beyond the current one are requested ahead of iteration (0: one request at a time).
    public let prefetch: Int
    let fetch: PageFetcher

    /// A sequence over the pages `fetch` returns; mostly made by ``CMISSession/children(of:context:)`` and
    /// `CMISSession/queryResults(_:searchAllVersions:)`.
    public init(pageSize: Int, prefetch: Int = 0, fetch: @escaping PageFetcher) {
        self.pageSize = Swift.max(pageSize, 1)
        self.prefetch = Swift.max(prefetch, 0)
        self.fetch = fetch
    }

    /// The same list a page (with `hasMoreItems` and `numItems`) at a time.
    public var pages: PageSequence { PageSequence(pageSize: pageSize, prefetch: prefetch, fetch: fetch) }

    /// An iterator that starts from the first page.
    public func makeAsyncIterator() -> AsyncIterator { AsyncIterator(pages: pages.makeAsyncIterator()) }

    /// Yields the items of the current page, fetching the next page when it runs out.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var pages: PageSequence.AsyncIterator
        var buffer: [Page.Item] = []
        var index = 0

        /// The next item, or nil after the last; throws the error of a page that could not be fetched.
        public mutating func next() async throws -> Page.Item? {
            while index >= buffer.count {
                guard let page = try await pages.next() else { return nil }
                buffer = page.items
                index = 0
            }
            defer { index += 1 }
            return buffer[index]
        }
    }

    /// Pages of the list; ends after the page that says `hasMoreItems: false` (or comes back empty).
    public struct PageSequence: AsyncSequence, Sendable {
        /// Iteration yields whole pages.
        public typealias Element = Page
        /// How many items each request asks for.
        public let pageSize: Int
        /// How many pages are requested ahead of iteration.
        public let prefetch: Int
        let fetch: PageFetcher

        /// An iterator that starts from the first page.
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
            var ahead: [PendingPage<Page>] = []

            /// The next page, or nil after the last; after an error, nil.
            public mutating func next() async throws -> Page? {
                guard !finished else { return nil }
                let pending =
                    ahead.isEmpty ? PendingPage(skipCount: skipCount, maxItems: pageSize, fetch) : ahead.removeFirst()
                let page: Page
                do {
                    page = try await pending.value
                } catch {
                    finished = true
                    ahead = []
                    throw error
                }
                let count = page.items.count
                skipCount += count
                if !page.hasMoreItems || count == 0 {
                    finished = true
                    ahead = []
                } else {
                    if count != pageSize { ahead = [] }  // the offsets asked for ahead assumed a full page
                    var offset = skipCount + ahead.count * pageSize
                    let total = page.numItems.map { Int(clamping: $0) } ?? Int.max
                    while ahead.count < prefetch && offset < total {
                        ahead.append(PendingPage(skipCount: offset, maxItems: pageSize, fetch))
                        offset += pageSize
                    }
                }
                return count == 0 && skipCount > 0 ? nil : page
            }
        }
    }
}

/// A page request started ahead of iteration; dropping it cancels the request.
final class PendingPage<Page: CMISPage>: Sendable {
    private let task: Task<Page, any Error>

    init(skipCount: Int, maxItems: Int, _ fetch: @escaping PagedSequence<Page>.PageFetcher) {
        task = Task { try await fetch(skipCount, maxItems) }
    }

    deinit { task.cancel() }

    /// The page; cancelling the waiting task cancels the request.
    var value: Page {
        get async throws {
            try await withTaskCancellationHandler {
                try await task.value
            } onCancel: { [task] in
                task.cancel()
            }
        }
    }
}
