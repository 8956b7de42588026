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
    /// Whether `decodeElement` only builds a value, so it may run on an element before its end is known (see
    /// ``JSONArrayStreamParser/append(_:decoding:_:)``).
    private var decodesPurely = false
    private let state = EnvelopeBox()

    /// Elements made by `decode`, which gets a reader at each element once the element is complete (it runs once
    /// per element, so it may count or have other side effects).
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

    /// An iterator that reads `chunks` from their start; the envelope it finds replaces `envelope`.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(
            chunks: chunks.makeAsyncIterator(), parser: JSONArrayStreamParser(path: path, limits: limits),
            decode: decodeElement, decodesPurely: decodesPurely, state: state)
    }

    /// Iterates the elements, reading chunks only when no complete element is waiting.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var chunks: Chunks.AsyncIterator
        var parser: JSONArrayStreamParser
        let decode: @Sendable (inout JSONReader) throws -> Element
        let decodesPurely: Bool
        let state: EnvelopeBox
        var pending: [Element] = []
        var next = 0
        var done = false

        /// The next element, reading chunks until one is complete; nil after the document ended (`envelope` is
        /// set then). Throws a `JSONError` for a malformed or cut-off document, and what the chunks or the
        /// decoding closure throw.
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws -> Element? {
            if next == pending.count {
                guard let batch = try await readBatch(isolation: actor) else { return nil }
                pending = batch
                next = 0
            }
            defer { next += 1 }
            return pending[next]
        }

        /// `next(isolation:)` without an actor to stay on.
        public mutating func next() async throws -> Element? { try await next(isolation: nil) }

        /// Every element that is complete now (at least one, reading chunks until there is one), or nil at the
        /// end: for consumers that hand elements on in batches instead of paying an await per element.
        public mutating func nextBatch(
            isolation actor: isolated (any Actor)? = #isolation
        ) async throws
            -> [Element]?
        {
            guard next == pending.count else {
                defer {
                    pending = []
                    next = 0
                }
                return next == 0 ? pending : Array(pending[next...])
            }
            return try await readBatch(isolation: actor)
        }

        /// Reads chunks until at least one element is complete and returns the elements completed; nil at the end.
        private mutating func readBatch(isolation actor: isolated (any Actor)?) async throws -> [Element]? {
            while !done {
                guard let chunk = try await chunks.next(isolation: actor) else {
                    done = true
                    let envelope = try parser.finish()
                    state.value.withLock { $0 = envelope }
                    return nil
                }
                let decode = decode
                var produced: [Element] = []
                if decodesPurely {
                    try parser.append(chunk, decoding: decode, into: &produced)
                } else {
                    try parser.append(chunk) { produced.append(try decode(&$0)) }
                }
                if !produced.isEmpty { return produced }
            }
            return nil
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
        decodesPurely = true
    }
}

extension JSONArrayStream {
    /// Elements decoded with their ``JSONDecodable`` conformance (the fastest way: each element's bytes are read
    /// once; an element split between chunks is decoded again once complete, so `init(from:)` must only build the
    /// value).
    public init(path: [String], chunks: Chunks, limits: JSONLimits = .default, as type: Element.Type)
    where Element: JSONDecodable {
        self.init(path: path, chunks: chunks, limits: limits) { try Element(from: &$0) }
        decodesPurely = true
    }

    /// Elements decoded with their `Decodable` conformance by `decoder` (its limits apply to elements). As with
    /// ``JSONDecodable``, an element split between chunks is decoded again once complete.
    public init(path: [String], chunks: Chunks, decoder: SatchelJSONDecoder, as type: Element.Type)
    where Element: Decodable {
        self.init(path: path, chunks: chunks, limits: decoder.limits) { try decoder.decode(Element.self, from: &$0) }
        decodesPurely = true
    }
}
