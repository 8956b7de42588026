import Foundation
import SatchelJSON

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
        decodedPages(path, query: query) { collectionPath, data in
            JSONArrayStream(path: collectionPath, chunks: OneChunk(data: data), decoder: Self.decoder, as: T.self)
        }
    }

    /// The entities of a collection pulled straight into a ``SatchelJSON/JSONDecodable`` type (what generated
    /// proxies conform to): the fastest path, no intermediate values.
    ///
    /// ```swift
    /// for try await student in service.entities("StudentSet", pullDecoding: Student.self) { … }
    /// ```
    public func entities<T: JSONDecodable & Sendable>(
        _ path: ODataPath, query: ODataQuery = ODataQuery(), pullDecoding type: T.Type
    ) -> AsyncThrowingStream<T, any Error> {
        decodedPages(path, query: query) { collectionPath, data in
            JSONArrayStream(path: collectionPath, chunks: OneChunk(data: data), as: T.self)
        }
    }

    /// Fetches page after page and yields what `decoder` makes of each page's array.
    private func decodedPages<T: Sendable>(
        _ path: ODataPath, query: ODataQuery,
        decoder: @escaping @Sendable ([String], Data) -> JSONArrayStream<OneChunk, T>
    ) -> AsyncThrowingStream<T, any Error> {
        let service = self
        return AsyncThrowingStream { continuation in
            let task = Task {
                do {
                    let version = try await service.version()
                    var link: URL? = service.url(
                        path: path.text(for: version), query: try query.queryString(for: version))
                    let reader = ODataPayloadReader(version: version)
                    while let url = link {
                        try Task.checkCancellation()
                        let response = try await service.send(
                            service.request(.get, url, version: version, operation: "read \(path)"))
                        let stream = decoder(reader.collectionPath, response.body)
                        for try await element in stream { continuation.yield(element) }
                        link = stream.envelope.map(reader.envelope)?.nextLink.map { service.url(absolute: $0) }
                    }
                    continuation.finish()
                } catch {
                    continuation.finish(throwing: error)
                }
            }
            continuation.onTermination = { _ in task.cancel() }
        }
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

/// A response body handed to the streaming reader as one chunk.
struct OneChunk: AsyncSequence, Sendable {
    typealias Element = Data
    let data: Data
    func makeAsyncIterator() -> Iterator { Iterator(data: data) }
    struct Iterator: AsyncIteratorProtocol {
        var data: Data?
        mutating func next() async throws -> Data? {
            defer { data = nil }
            return data
        }
    }
}
