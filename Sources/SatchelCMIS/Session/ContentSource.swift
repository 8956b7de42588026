public import Foundation
import SatchelCMISCore

/// The content of a new document: bytes in memory or a file streamed from disk, with its name and MIME type.
///
/// ```swift
/// let note = ContentSource.data(Data("hello".utf8), filename: "hello.txt", mimeType: "text/plain")
/// let video = ContentSource.file(URL(fileURLWithPath: "/tmp/talk.mp4"), mimeType: "video/mp4")
/// ```
public struct ContentSource: Sendable, Hashable {
    /// Where the bytes are.
    public enum Storage: Sendable, Hashable {
        /// Bytes in memory.
        case data(Data)
        /// Read from disk only while the request is sent.
        case file(URL)
    }

    /// The bytes, in memory or in a file.
    public var storage: Storage
    /// The file name sent with the content.
    public var filename: String
    /// The content's MIME type.
    public var mimeType: String

    /// Content from its parts; `data(_:filename:mimeType:)` and `file(_:filename:mimeType:)` are shorter.
    public init(storage: Storage, filename: String, mimeType: String) {
        self.storage = storage
        self.filename = filename
        self.mimeType = mimeType
    }

    /// Bytes in memory.
    public static func data(
        _ data: Data, filename: String, mimeType: String = "application/octet-stream"
    ) -> ContentSource {
        ContentSource(storage: .data(data), filename: filename, mimeType: mimeType)
    }

    /// A file; `filename` defaults to the file's own name.
    public static func file(
        _ url: URL, filename: String? = nil, mimeType: String = "application/octet-stream"
    ) -> ContentSource {
        ContentSource(storage: .file(url), filename: filename ?? url.lastPathComponent, mimeType: mimeType)
    }
}
