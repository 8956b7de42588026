import Foundation
import Synchronization

/// The elements of the array at a path of a JSON document arriving as an `AsyncSequence` of chunks,
/// each yielded as soon as its bytes are complete.
///
/// ```swift
/// let stream = JSONArrayStream(path: ["value"], chunks: response.body, as: Product.self)
/// for try await product in stream {
///     try store.insert(product)
/// }
/// let next = stream.envelope?["@odata.nextLink"]?.stringValue
/// ```
///
/// ``envelope`` holds the rest of the document (the streamed array left empty) once iteration ends.
/// Iterate a stream once; each iteration reads `chunks` again.
public struct JSONArrayStream<Chunks: AsyncSequence & Sendable, Element: Sendable>: AsyncSequence, Sendable
where Chunks.Element: Sequence, Chunks.Element.Element == UInt8 {
    /// Keys of the objects leading to the array.
    public let path: [String]
    /// Limits for the document and each element.
    public let limits: JSONLimits
    private let chunks: Chunks
    private let decodeElement: @Sendable (inout JSONReader) throws -> Element
    private let state = EnvelopeBox()

    /// Elements made by `decode`, which gets a reader at each element.
    public init(
        path: [String], chunks: Chunks, limits: JSONLimits = .default,
        decode: @escaping @Sendable (inout JSONReader) throws -> Element
    ) {
        self.path = path
        self.chunks = chunks
        self.limits = limits
        self.decodeElement = decode
    }

    /// The document without the streamed elements, once iteration has finished without error.
    public var envelope: JSONValue? { state.value.withLock { $0 } }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            chunks: chunks.makeAsyncIterator(), parser: JSONArrayStreamParser(path: path, limits: limits),
            decode: decodeElement, state: state)
    }

    /// Iterates the elements, reading chunks only when no complete element is waiting.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var chunks: Chunks.AsyncIterator
        var parser: JSONArrayStreamParser
        let decode: @Sendable (inout JSONReader) throws -> Element
        let state: EnvelopeBox
        var pending: [Element] = []
        var next = 0
        var done = false

        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws -> Element? {
            while next == pending.count {
                if done { return nil }
                pending.removeAll(keepingCapacity: true)
                next = 0
                guard let chunk = try await chunks.next(isolation: actor) else {
                    done = true
                    let envelope = try parser.finish()
                    state.value.withLock { $0 = envelope }
                    return nil
                }
                let decode = decode
                var produced: [Element] = []
                try parser.append(chunk) { produced.append(try decode(&$0)) }
                pending = produced
            }
            defer { next += 1 }
            return pending[next]
        }

        public mutating func next() async throws -> Element? { try await next(isolation: nil) }

        /// Every element that is complete now (at least one, reading chunks until there is one), or nil at the
        /// end: for consumers that hand elements on in batches instead of paying an await per element.
        public mutating func nextBatch(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws
            -> [Element]?
        {
            if next == pending.count {
                // Reads chunks until an element is complete, and hands out the first one of that batch.
                guard let first = try await self.next(isolation: actor) else { return nil }
                var batch = [first]
                batch.append(contentsOf: pending[next...])
                next = pending.count
                return batch
            }
            let batch = Array(pending[next...])
            next = pending.count
            return batch
        }
    }
}

/// Where an iterator leaves the envelope for the sequence's owner.
final class EnvelopeBox: Sendable {
    let value = Mutex<JSONValue?>(nil)
}

extension JSONArrayStream where Element == JSONValue {
    /// Elements as ``JSONValue``s.
    public init(path: [String], chunks: Chunks, limits: JSONLimits = .default) {
        self.init(path: path, chunks: chunks, limits: limits) { try $0.readValue() }
    }
}

extension JSONArrayStream {
    /// Elements decoded with their ``JSONDecodable`` conformance (the fastest way).
    public init(path: [String], chunks: Chunks, limits: JSONLimits = .default, as type: Element.Type)
    where Element: JSONDecodable {
        self.init(path: path, chunks: chunks, limits: limits) { try Element(from: &$0) }
    }

    /// Elements decoded with their `Decodable` conformance by `decoder` (its limits apply to elements).
    public init(path: [String], chunks: Chunks, decoder: SatchelJSONDecoder, as type: Element.Type)
    where Element: Decodable {
        self.init(path: path, chunks: chunks, limits: decoder.limits) { try decoder.decode(Element.self, from: &$0) }
    }
}
