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
    /// The boundary between parts (`satchel-` and a UUID by default).
    public let boundary: String
    private var segments: [HTTPClient.Body.Segment] = []

    /// An empty form.
    public init(boundary: String = "satchel-" + UUID().uuidString) {
        self.boundary = boundary
    }

    /// Adds a text field.
    public mutating func addField(_ name: String, _ value: String) {
        // A field's part carries no type of its own: nothing here is taken from the caller but the quoted name.
        try! appendHeader(disposition: "form-data; name=\"\(Self.quote(name))\"", contentType: nil)
        segments.append(.data(Data(value.utf8)))
        segments.append(.data(Data("\r\n".utf8)))
    }

    /// Adds a file part from memory. Throws ``HTTPTransferError/Code/invalidRequest`` when `contentType` holds a
    /// control character (which would end the part's header and start another).
    public mutating func addData(_ name: String, data: Data, filename: String, contentType: String) throws {
        try appendHeader(
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
        try appendHeader(
            disposition: "form-data; name=\"\(Self.quote(name))\"; filename=\"\(Self.quote(filename))\"",
            contentType: contentType
        )
        segments.append(.file(fileURL, offset: 0, length: length))
        segments.append(.data(Data("\r\n".utf8)))
    }

    /// The form as a body, with the closing boundary and its `multipart/form-data` content type.
    public var body: HTTPClient.Body {
        HTTPClient.Body(
            segments: segments + [.data(Data("--\(boundary)--\r\n".utf8))],
            contentType: "multipart/form-data; boundary=\(boundary)"
        )
    }

    private mutating func appendHeader(disposition: String, contentType: String?) throws(HTTPTransferError) {
        var header = "--\(boundary)\r\nContent-Disposition: \(disposition)\r\n"
        if let contentType {
            try HTTP1Syntax.checkField(name: "Content-Type", value: contentType, in: "a multipart/form-data part")
            header += "Content-Type: \(contentType)\r\n"
        }
        header += "\r\n"
        segments.append(.data(Data(header.utf8)))
    }

    /// Quotes a name for a header parameter: `"` and control characters (CR and LF above all) are percent-encoded,
    /// as browsers do.
    private static func quote(_ value: String) -> String {
        value.escapingScalars {
            switch $0.value {
            case 0x22: "%22"
            case 0..<0x20, 0x7F: ($0.value < 0x10 ? "%0" : "%") + String($0.value, radix: 16, uppercase: true)
            default: nil
            }
        }
    }
}
