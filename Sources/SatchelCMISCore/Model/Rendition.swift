import Foundation

/// An alternative representation of a document's content (thumbnail, preview …).
public struct Rendition: Sendable, Hashable {
    /// The id to read the rendition's content with.
    public var streamId: String
    /// The rendition's MIME type, when given.
    public var mimeType: String?
    /// The content's size in bytes, when given.
    public var length: Int64?
    /// `cmis:thumbnail` or a repository-specific kind.
    public var kind: String?
    /// The rendition's title, when given.
    public var title: String?
    /// Images: the height in pixels, when given.
    public var height: Int64?
    /// Images: the width in pixels, when given.
    public var width: Int64?
    /// The id of a document that holds the rendition, when the repository has one.
    public var renditionDocumentId: String?

    /// A rendition with this stream id; `title`, `height`, `width` and `renditionDocumentId` start as `nil`.
    public init(streamId: String, mimeType: String? = nil, length: Int64? = nil, kind: String? = nil) {
        self.streamId = streamId
        self.mimeType = mimeType
        self.length = length
        self.kind = kind
    }
}
