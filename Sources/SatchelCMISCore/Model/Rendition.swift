import Foundation

/// An alternative representation of a document's content (thumbnail, preview …).
public struct Rendition: Sendable, Hashable {
    public var streamId: String
    public var mimeType: String?
    public var length: Int64?
    /// `cmis:thumbnail` or a repository-specific kind.
    public var kind: String?
    public var title: String?
    public var height: Int64?
    public var width: Int64?
    public var renditionDocumentId: String?

    public init(streamId: String, mimeType: String? = nil, length: Int64? = nil, kind: String? = nil) {
        self.streamId = streamId
        self.mimeType = mimeType
        self.length = length
        self.kind = kind
    }
}
