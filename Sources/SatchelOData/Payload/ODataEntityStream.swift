import Foundation
import Synchronization
import SatchelJSON

/// The entities of one collection response, decoded one by one while its bytes arrive (the `value` or
/// `d.results` array), with the page's control information once iteration ends.
///
/// ```swift
/// let stream = ODataEntityStream(chunks: chunks, reader: ODataPayloadReader(version: .v4, metadata: metadata),
///                                entitySet: "People")
/// for try await person in stream { print(person["UserName"]?.stringValue ?? "") }
/// print(stream.page?.nextLink ?? "last page")
/// ```
///
/// Memory is bounded by one entity plus one chunk, not by the page. As with whole-page reading, V4.0 delta
/// links among the entities are skipped, and a V2 delta page's `__deleted` entries follow the others (marked
/// removed).
public struct ODataEntityStream<Chunks: AsyncSequence & Sendable>: AsyncSequence, Sendable
where Chunks.Element: Sequence, Chunks.Element.Element == UInt8 {
    /// Each element is one entity of the page.
    public typealias Element = ODataEntity
    private let stream: JSONArrayStream<Chunks, ODataEntity?>
    private let reader: ODataPayloadReader
    private let type: CSDLEntityType?

    /// Entities of the set's type, when `reader` has metadata.
    public init(chunks: Chunks, reader: ODataPayloadReader, entitySet: String? = nil) {
        self.init(chunks: chunks, reader: reader, type: entitySet.flatMap { reader.metadata?.entityType(ofSet: $0) })
    }

    /// Entities of `type` (or derived from it); untyped when nil.
    public init(chunks: Chunks, reader: ODataPayloadReader, type: CSDLEntityType?) {
        self.reader = reader
        self.type = type
        let path = reader.collectionPath.joined(separator: ".")
        let isV4 = reader.version == .v4
        // Elements are decoded one after another; the count gives each error its element index (`value[3].ID`).
        let counter = Mutex(0)
        stream = JSONArrayStream(path: reader.collectionPath, chunks: chunks) { jsonReader in
            let index = counter.withLock { count in
                defer { count += 1 }
                return count
            }
            let value = try jsonReader.readValue()
            // V4.0 delta payloads may list added and deleted links among the entities; they are not entities.
            if isV4, let context = (value["@odata.context"] ?? value["@context"])?.stringValue,
                context.hasSuffix("/$link") || context.hasSuffix("/$deletedLink")
            {
                return nil
            }
            return try reader.entity(from: value, type: type, at: "\(path)[\(index)]")
        }
    }

    /// Count, next link and delta link, once iteration has finished. Throws `.invalidPayload` when a link is there
    /// but cannot be read.
    public var page: ODataPage? {
        get throws { try stream.envelope.map(reader.envelope) }
    }

    /// An iterator over the page's entities.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(elements: stream.makeAsyncIterator(), stream: self)
    }

    /// The entities left in the envelope: a V2 delta page's `d.__deleted`.
    func trailingEntities() throws -> [ODataEntity] {
        guard reader.version == .v2, let deleted = stream.envelope?["d"]?["__deleted"]?.arrayValue else { return [] }
        return try deleted.enumerated().map { index, value in
            var entity = try reader.entity(from: value, type: type, at: "d.__deleted[\(index)]")
            entity.removed = ODataEntity.Removal(reason: "deleted")
            return entity
        }
    }

    /// Decodes one entity at a time from the chunks.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var elements: JSONArrayStream<Chunks, ODataEntity?>.AsyncIterator
        let stream: ODataEntityStream
        var trailing: [ODataEntity]?

        /// The next entity, or `nil` after the last one (a V2 delta page's `__deleted` entries come last). Throws when
        /// the chunks fail or an entity does not decode.
        public mutating func next() async throws -> ODataEntity? {
            if trailing == nil {
                while let element = try await elements.next() {
                    if let element { return element }
                }
                trailing = try stream.trailingEntities().reversed()
            }
            return trailing?.popLast()
        }
    }
}
