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
        case data(Data)
        /// Read from disk only while the request is sent.
        case file(URL)
    }

    public var storage: Storage
    public var filename: String
    public var mimeType: String

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
