import Foundation
public import SatchelJSON
import Synchronization
import SatchelHTTP

extension ODataService {
    /// The entities of a collection decoded into your own `Decodable` type, page by page, each page's array
    /// decoded element by element by the streaming reader. V2 `/Date(…)/` and ISO 8601 dates both decode as
    /// `Date`.
    ///
    /// ```swift
    /// struct Student: Decodable, Sendable { let StudentId: String; let LastName: String; let BirthDate: Date? }
    /// for try await student in service.entities("StudentSet", as: Student.self) { print(student.LastName) }
    /// ```
    public func entities<T: Decodable & Sendable>(
        _ path: ODataPath, query: ODataQuery = ODataQuery(), as type: T.Type
    ) -> AsyncThrowingStream<T, any Error> {
        decodedPages(path, query: query) { collectionPath, chunks in
            JSONArrayStream(path: collectionPath, chunks: chunks, decoder: Self.decoder, as: T.self)
        }
    }

    /// The entities of a collection pulled straight into a `JSONDecodable` type (what generated
    /// proxies conform to): the fastest path, no intermediate values.
    ///
    /// ```swift
    /// for try await student in service.entities("StudentSet", pullDecoding: Student.self) { … }
    /// ```
    public func entities<T: JSONDecodable & Sendable>(
        _ path: ODataPath, query: ODataQuery = ODataQuery(), pullDecoding type: T.Type
    ) -> AsyncThrowingStream<T, any Error> {
        decodedPages(path, query: query) { collectionPath, chunks in
            JSONArrayStream(path: collectionPath, chunks: chunks, as: T.self)
        }
    }

    /// Fetches page after page and yields what `decoder` makes of each page's array while the page arrives:
    /// memory holds one element and one chunk, not the page. Elements are decoded when the consumer asks for
    /// them, so a slow consumer slows the download instead of filling memory.
    private func decodedPages<T: Sendable>(
        _ path: ODataPath, query: ODataQuery,
        decoder: @escaping @Sendable ([String], ResponseChunks) -> JSONArrayStream<ResponseChunks, T>
    ) -> AsyncThrowingStream<T, any Error> {
        let cursor = DecodedPageCursor(service: self, path: path, query: query, decoder: decoder)
        // The cursor hands over every element decoded from a chunk at once: one actor hop per chunk, not per entity.
        let buffer = ElementBuffer<T>()
        return AsyncThrowingStream(unfolding: {
            if let element = buffer.pop() { return element }
            while let batch = try await cursor.nextBatch() {
                if let first = buffer.fill(batch) { return first }
            }
            return nil
        })
    }

    /// One entity decoded into your own `Decodable` type.
    public func entity<T: Decodable>(
        _ path: ODataPath, query: ODataQuery = ODataQuery(), as type: T.Type
    ) async throws -> T {
        let version = try await version()
        let url = url(path: path.text(for: version), query: try query.queryString(for: version))
        let response = try await send(request(.get, url, version: version, operation: "read \(path)"))
        do {
            if version == .v2 {
                return try Self.decoder.decode(V2Envelope<T>.self, from: response.body).d
            }
            return try Self.decoder.decode(T.self, from: response.body)
        } catch {
            throw ODataError(.invalidPayload, "the entity does not decode as \(T.self)", url: url, underlying: error)
        }
    }

    /// A decoder that reads V2 `/Date(ms)/`, V4 ISO 8601 and plain dates.
    static let decoder: SatchelJSONDecoder = {
        var decoder = SatchelJSONDecoder()
        decoder.dateDecodingStrategy = .custom { decoder in
            let text = try decoder.singleValueContainer().decode(String.self)
            if let date = ODataDateFormat.parseV2JSONDate(text)?.date ?? ODataDateFormat.parseISO8601(text) {
                return date
            }
            throw DecodingError.dataCorrupted(
                .init(codingPath: decoder.codingPath, debugDescription: "not an OData date: \(text)"))
        }
        return decoder
    }()
}

/// `{"d": …}`.
private struct V2Envelope<T: Decodable>: Decodable {
    let d: T
}

/// Elements decoded ahead of the consumer, handed out one by one (the stream's unfolding closure is its only user).
/// A plain lock rather than a `Mutex` of a generic tuple, whose type would be looked up on every call.
private final class ElementBuffer<T: Sendable>: @unchecked Sendable {
    // Both guarded by `lock`.
    private var elements: [T] = []
    private var next = 0
    private let lock = NSLock()

    func pop() -> T? {
        lock.lock()
        defer { lock.unlock() }
        guard next < elements.count else { return nil }
        defer { next += 1 }
        return elements[next]
    }

    /// Takes the batch's first element and keeps the rest.
    func fill(_ batch: [T]) -> T? {
        lock.lock()
        defer { lock.unlock() }
        elements = batch
        next = batch.isEmpty ? 0 : 1
        return batch.first
    }
}

/// Where ``ODataService/entities(_:query:as:)`` and ``ODataService/entities(_:query:pullDecoding:)`` are: the
/// page being decoded and the link to the next one. While a page is decoded, its ``PageLookahead`` finds the
/// next link as the bytes arrive and requests the next page early.
private actor DecodedPageCursor<T: Sendable> {
    let service: ODataService
    let path: ODataPath
    let query: ODataQuery
    let decoder: @Sendable ([String], ResponseChunks) -> JSONArrayStream<ResponseChunks, T>
    private var started = false
    private var finished = false
    private var link: URL?
    private var reader = ODataPayloadReader(version: .v4)
    private var page: (url: URL, stream: JSONArrayStream<ResponseChunks, T>, lookahead: PageLookahead)?
    private var iterator: JSONArrayStream<ResponseChunks, T>.AsyncIterator?
    /// The next page, requested before this one was decoded to its end.
    private var prefetch: PageLookahead.Prefetch?

    init(
        service: ODataService, path: ODataPath, query: ODataQuery,
        decoder: @escaping @Sendable ([String], ResponseChunks) -> JSONArrayStream<ResponseChunks, T>
    ) {
        self.service = service
        self.path = path
        self.query = query
        self.decoder = decoder
    }

    deinit { prefetch?.cancel() }

    func nextBatch() async throws -> [T]? {
        guard !finished else { return nil }
        let operation = "read \(path)"
        do {
            while true {
                if var elements = iterator, let page {
                    let batch: [T]?
                    do {
                        batch = try await elements.nextBatch(isolation: self)
                    } catch {
                        throw ODataError.payload(error, url: page.url, operation: operation)
                    }
                    iterator = elements
                    if let batch { return batch }
                    iterator = nil
                    self.page = nil
                    do {
                        link = try page.stream.envelope.map(reader.envelope)?.nextLink.map { service.url(absolute: $0) }
                    } catch {
                        throw ODataError.payload(error, url: page.url, operation: operation)
                    }
                    prefetch = page.lookahead.takePrefetch()
                }
                if !started {
                    started = true
                    let version = try await service.version()
                    reader = ODataPayloadReader(version: version)
                    link = service.url(path: path.text(for: version), query: try query.queryString(for: version))
                }
                let early = prefetch.take()
                guard let url = link else {
                    early?.cancel()
                    finished = true
                    return nil
                }
                link = nil
                try Task.checkCancellation()
                let fetched: FetchedPage
                if let early, early.url == url {
                    fetched = try await withTaskCancellationHandler {
                        try await early.task.value
                    } onCancel: {
                        early.cancel()
                    }
                } else {
                    early?.cancel()
                    fetched = try await Self.fetch(url, service: service, reader: reader, operation: operation)
                }
                fetched.lookahead.arm()
                let stream = decoder(reader.collectionPath, fetched.chunks)
                page = (url, stream, fetched.lookahead)
                iterator = stream.makeAsyncIterator()
            }
        } catch {
            finished = true
            iterator = nil
            page = nil
            prefetch?.cancel()
            prefetch = nil
            throw error
        }
    }

    /// Requests the page at `url` and starts its lookahead, which can request the page after it in the same way.
    private static func fetch(
        _ url: URL, service: ODataService, reader: ODataPayloadReader, operation: String
    ) async throws -> FetchedPage {
        let chunks = try await service.stream(service.request(.get, url, version: reader.version, operation: operation))
        let lookahead = PageLookahead(reader: reader) {
            service.url(absolute: $0)
        } request: { next in
            Task { try await fetch(next, service: service, reader: reader, operation: operation) }
        }
        lookahead.start(on: chunks)
        return FetchedPage(url: url, chunks: chunks, lookahead: lookahead)
    }
}
