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

    /// Adds a text field, as UTF-8. A value beyond ASCII says so in its part (`Content-Type: text/plain;
    /// charset=utf-8`): a server that assumes ISO-8859-1 for untyped parts (RFC 7578 leaves the default to it)
    /// would otherwise read `Schriftstück` as `SchriftstÃ¼ck`. A form can also name its charset for every field at
    /// once with a `_charset_` field (RFC 7578, 4.6), as the CMIS Browser binding does.
    public mutating func addField(_ name: String, _ value: String) {
        // Nothing in the part's header is taken from the caller but the quoted name.
        let type = value.unicodeScalars.allSatisfy(\.isASCII) ? nil : "text/plain; charset=utf-8"
        try! appendHeader(disposition: "form-data; name=\"\(Self.quote(name))\"", contentType: type)
        segments.append(.data(Data(value.utf8)))
        segments.append(.data(Data("\r\n".utf8)))
    }

    /// Adds a file part from memory. Throws ``HTTPTransferError/Code/invalidRequest`` when `contentType` holds a
    /// control character (which would end the part's header and start another).
    public mutating func addData(_ name: String, data: Data, filename: String, contentType: String) throws {
        try appendHeader(disposition: Self.fileDisposition(name: name, filename: filename), contentType: contentType)
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
        try appendHeader(disposition: Self.fileDisposition(name: name, filename: filename), contentType: contentType)
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

    /// A file part's disposition: a file name beyond ASCII goes as RFC 5987's `filename*=UTF-8''…` (its UTF-8
    /// percent-encoded but for RFC 3986's unreserved characters, all of them RFC 5987 `attr-char`s), after an ASCII
    /// `filename` for servers that read only that (each character beyond ASCII an underscore).
    static func fileDisposition(name: String, filename: String) -> String {
        let disposition = "form-data; name=\"\(quote(name))\""
        guard !filename.unicodeScalars.allSatisfy(\.isASCII) else {
            return disposition + "; filename=\"\(quote(filename))\""
        }
        let fallback = String(String.UnicodeScalarView(filename.unicodeScalars.map { $0.isASCII ? $0 : "_" }))
        return disposition + "; filename=\"\(quote(fallback))\"; filename*=UTF-8''\(PercentEncoding.encode(filename))"
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
