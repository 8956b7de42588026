import Foundation
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
public struct ODataEntityStream<Chunks: AsyncSequence & Sendable>: AsyncSequence, Sendable
where Chunks.Element: Sequence, Chunks.Element.Element == UInt8 {
    public typealias Element = ODataEntity
    private let stream: JSONArrayStream<Chunks, ODataEntity>
    private let reader: ODataPayloadReader

    public init(chunks: Chunks, reader: ODataPayloadReader, entitySet: String? = nil) {
        let type = entitySet.flatMap { reader.metadata?.entityType(ofSet: $0) }
        self.reader = reader
        stream = JSONArrayStream(path: reader.collectionPath, chunks: chunks) { jsonReader in
            let value = try jsonReader.readValue()
            return try reader.entity(from: value, type: type)
        }
    }

    /// Count, next link and delta link, once iteration has finished.
    public var page: ODataPage? { stream.envelope.map(reader.envelope) }

    public func makeAsyncIterator() -> JSONArrayStream<Chunks, ODataEntity>.AsyncIterator { stream.makeAsyncIterator() }
}
