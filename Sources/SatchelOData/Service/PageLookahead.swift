import Foundation
import SatchelJSON
import Synchronization
import SatchelHTTP

/// A page of a typed collection read: its body, and a lookahead that finds its next link while the body arrives.
struct FetchedPage: Sendable {
    let url: URL
    let chunks: ResponseChunks
    let lookahead: PageLookahead
}

/// Finds a page's next link while the page arrives, on the transport's thread, so that the next page can be
/// requested at once: its head and first bytes then come while the consumer is still decoding this page, instead
/// of after it.
///
/// The scan only finds where the elements end (`JSONArrayStreamParser.skipElements(in:)`); the
/// consumer still reads and validates every byte, and uses the early request only if its own next link is the same
/// URL. A page that is not valid JSON just gets no early request: the consumer reports the error.
///
/// At most one page is requested ahead: a page's lookahead scans from the moment its head arrives, but requests the
/// next page only once it is armed (``arm()``), when its page becomes the one being decoded, and once the page has
/// arrived whole. Memory then holds two pages' read-ahead buffers at most, whatever the page count.
final class PageLookahead: Sendable {
    /// What the early request is for, and the request.
    struct Prefetch: Sendable {
        let url: URL
        let task: Task<FetchedPage, any Error>

        /// Gives up the early request (and closes its connection once its head has come).
        func cancel() {
            task.cancel()
            Task { try? await task.value.chunks.body.cancel() }
        }
    }

    private struct State: Sendable {
        var parser: JSONArrayStreamParser?
        /// The next page's URL once found.
        var next: URL?
        /// Whether the page's body has arrived whole (its connection is free again).
        var complete = false
        var armed = false
        var prefetch: Prefetch?
        var done = false
    }

    private let state: Mutex<State>
    private let reader: ODataPayloadReader
    private let resolve: @Sendable (String) -> URL
    private let request: @Sendable (URL) -> Task<FetchedPage, any Error>

    /// A lookahead over a page read by `reader`; `resolve` makes a URL of a next link, and `request` starts
    /// the request for the next page.
    init(
        reader: ODataPayloadReader, resolve: @escaping @Sendable (String) -> URL,
        request: @escaping @Sendable (URL) -> Task<FetchedPage, any Error>
    ) {
        self.reader = reader
        self.resolve = resolve
        self.request = request
        state = Mutex(State(parser: JSONArrayStreamParser(path: reader.collectionPath)))
    }

    /// Starts scanning the page's body (its chunks already waiting first), before the consumer reads any of it.
    func start(on chunks: ResponseChunks) {
        chunks.body.inspect { [self] chunk in
            scan(chunk)
        } complete: { [self] in
            state.withLock { state in
                state.complete = true
                fire(&state)
            }
        }
    }

    private func scan(_ chunk: Data) {
        state.withLock { state in
            // Taken out while it reads, so that its buffer is not copied.
            guard var parser = state.parser.take() else { return }
            do {
                try parser.skipElements(in: chunk)
            } catch {
                return
            }
            guard let envelope = parser.envelope else {
                state.parser = parser
                return
            }
            // An unreadable link is not prefetched; the page's own reader throws on it.
            state.next = (try? reader.envelope(envelope))?.nextLink.map(resolve)
            fire(&state)
        }
    }

    /// Lets the lookahead request the next page: its page is being decoded now.
    func arm() {
        state.withLock { state in
            state.armed = true
            fire(&state)
        }
    }

    /// Requests the next page once its link is known, this page is being decoded and its body has arrived whole:
    /// waiting for the whole body lets the request go out on the same kept-alive connection, which matters to
    /// servers that serve one connection at a time.
    private func fire(_ state: inout State) {
        guard state.armed, state.complete, !state.done, let next = state.next else { return }
        state.done = true
        state.prefetch = Prefetch(url: next, task: request(next))
    }

    /// The early request, if the lookahead made one; the caller owns it from now on. The lookahead stops.
    func takePrefetch() -> Prefetch? {
        state.withLock { state in
            state.parser = nil
            state.done = true
            return state.prefetch.take()
        }
    }

    deinit {
        // Cancelled outside the lock: cancelling runs the request's cancellation handlers, which take other locks.
        let prefetch = state.withLock { $0.prefetch.take() }
        prefetch?.cancel()
    }
}
