public import Foundation
import SatchelText

/// A `multipart/form-data` body (RFC 7578) whose file parts stream from disk.
///
/// ```swift
/// var form = MultipartFormData()
/// form.addField("cmisaction", "createDocument")
/// try form.addFile("content", fileURL: url, filename: "report.pdf", contentType: "application/pdf")
/// let request = HTTPClient.Request(.post, url: endpoint, body: .multipart(form))
/// ```
public struct MultipartFormData: Sendable {
    public let boundary: String
    private var segments: [HTTPClient.Body.Segment] = []

    public init(boundary: String = "satchel-" + UUID().uuidString) {
        self.boundary = boundary
    }

    public mutating func addField(_ name: String, _ value: String) {
        appendHeader(disposition: "form-data; name=\"\(Self.quote(name))\"", contentType: nil)
        segments.append(.data(Data(value.utf8)))
        segments.append(.data(Data("\r\n".utf8)))
    }

    public mutating func addData(_ name: String, data: Data, filename: String, contentType: String) {
        appendHeader(
            disposition: "form-data; name=\"\(Self.quote(name))\"; filename=\"\(Self.quote(filename))\"",
            contentType: contentType
        )
        segments.append(.data(data))
        segments.append(.data(Data("\r\n".utf8)))
    }

    /// Adds a file part; its bytes are read from disk only while the body is sent.
    public mutating func addFile(
        _ name: String,
        fileURL: URL,
        filename: String? = nil,
        contentType: String = "application/octet-stream"
    ) throws {
        let length = try FileInfo.size(of: fileURL)
        let filename = filename ?? fileURL.lastPathComponent
        appendHeader(
            disposition: "form-data; name=\"\(Self.quote(name))\"; filename=\"\(Self.quote(filename))\"",
            contentType: contentType
        )
        segments.append(.file(fileURL, offset: 0, length: length))
        segments.append(.data(Data("\r\n".utf8)))
    }

    public var body: HTTPClient.Body {
        HTTPClient.Body(
            segments: segments + [.data(Data("--\(boundary)--\r\n".utf8))],
            contentType: "multipart/form-data; boundary=\(boundary)"
        )
    }

    private mutating func appendHeader(disposition: String, contentType: String?) {
        var header = "--\(boundary)\r\nContent-Disposition: \(disposition)\r\n"
        if let contentType { header += "Content-Type: \(contentType)\r\n" }
        header += "\r\n"
        segments.append(.data(Data(header.utf8)))
    }

    /// Quotes a name for a header parameter: CR, LF and `"` are percent-encoded as browsers do.
    private static func quote(_ value: String) -> String {
        value.escapingScalars {
            switch $0 {
            case "\"": "%22"
            case "\r": "%0D"
            case "\n": "%0A"
            default: nil
            }
        }
    }
}
