import Foundation
import HTTPTypes
import Hummingbird
import SatchelCMISCore
import SatchelRepository
import SatchelText

/// A content stream as an HTTP response, the same for both bindings: the blob file streamed (never more than the
/// content's length), the SHA-256 as a strong ETag with `If-None-Match`, one byte range (`206`; `416` with
/// `Content-Range` when it lies outside; a range covering everything is answered whole, `200`), and the file name
/// in `Content-Disposition`.
///
/// User content must not be able to script the server's own origin: every content response carries
/// `Content-Security-Policy: sandbox` (a browser renders it in a unique origin, scripts off) and
/// `X-Content-Type-Options: nosniff`, and types a browser would run (HTML, SVG, XML, scripts) are always sent as
/// `attachment`, whatever the request asked for.
struct ContentResponse {
    let content: ContentOutput
    /// The client asked to see the content in place (`download=inline`).
    var inline = false

    static let sandbox = "sandbox; default-src 'none'; style-src 'unsafe-inline'; img-src data:"

    func response(to request: Request, context: ServerRequestContext) async throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = content.mimeType.isEmpty ? "application/octet-stream" : content.mimeType
        if let tag = content.entityTag { headers[.eTag] = "\"\(tag)\"" }
        headers[.acceptRanges] = "bytes"
        headers[.contentSecurityPolicy] = Self.sandbox
        headers[.xContentTypeOptions] = "nosniff"
        let disposition = inline && !Self.isActive(content.mimeType) ? "inline" : "attachment"
        headers[.contentDisposition] = Self.contentDisposition(disposition, fileName: content.fileName)
        if let match = request.headers[.ifNoneMatch], let tag = content.entityTag, Self.matches(match, hash: tag) {
            return Response(status: .notModified, headers: headers, body: .init())
        }
        let length = content.length
        guard length > 0 else {
            // Nothing to take a range of: the whole (empty) content.
            headers[.contentLength] = "0"
            return Response(status: .ok, headers: headers, body: .init())
        }
        var range: ClosedRange<Int64>?
        if let header = request.headers[.range] {
            switch Self.byteRange(header, length: length) {
            case .whole: break
            case .part(let part): range = part
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(length)"
                headers[.contentLength] = "0"
                return Response(status: .rangeNotSatisfiable, headers: headers, body: .init())
            }
        }
        let selected = range ?? 0...(length - 1)
        headers[.contentLength] = String(selected.count)
        if let range {
            headers[.contentRange] = "bytes \(range.lowerBound)-\(range.upperBound)/\(length)"
        }
        let status: HTTPResponse.Status = range == nil ? .ok : .partialContent
        switch content.body {
        case .file(let file):
            let body = try await FileIO().loadFile(
                path: file.path, range: Int(selected.lowerBound)...Int(selected.upperBound), context: context)
            return Response(status: status, headers: headers, body: body)
        case .stream(let streamer):
            // A HEAD asks for the head only: nothing is read from the source.
            if request.method == .head { return Response(status: status, headers: headers, body: .init()) }
            // Opened before the head is sent, so a source that cannot be read still gets an error answer.
            let chunks = try await streamer.open(range)
            return Response(status: status, headers: headers, body: Self.streamed(chunks, count: selected.count))
        }
    }

    /// `count` bytes of `chunks`, written as they arrive. A source that ends early or fails cuts the response
    /// short (the client sees fewer bytes than `Content-Length`), which is all HTTP/1.1 allows once the head
    /// is out.
    static func streamed(_ chunks: AsyncThrowingStream<[UInt8], any Error>, count: Int) -> ResponseBody {
        ResponseBody(contentLength: count) { writer in
            var remaining = count
            // Never more than announced: a source that sends more (or never stops) is cut off, not read on.
            for try await chunk in chunks {
                let part = chunk.count <= remaining ? chunk[...] : chunk.prefix(remaining)
                remaining -= part.count
                try await writer.write(ByteBuffer(bytes: part))
                if remaining == 0 { break }
            }
            guard remaining == 0 else {
                throw CMISError(.storage, "the content ended \(remaining) bytes short of its length")
            }
            try await writer.finish(nil)
        }
    }

    /// Types a browser renders actively (markup that can hold scripts, and scripts themselves).
    static func isActive(_ mimeType: String) -> Bool {
        let type =
            mimeType.split(separator: ";").first.map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
            ?? ""
        return type.contains("html") || type.contains("xml") || type.contains("svg") || type.contains("javascript")
            || type.contains("ecmascript")
    }

    static func matches(_ header: String, hash: String) -> Bool {
        header == "*"
            || header.split(separator: ",").contains {
                $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "W/", with: "") == "\"\(hash)\""
            }
    }

    enum RangeAnswer: Equatable {
        case whole
        case part(ClosedRange<Int64>)
        case unsatisfiable
    }

    /// One `bytes=` range of RFC 9110. Several ranges, another unit or a malformed header give the whole content,
    /// and so does a range that covers all of it.
    static func byteRange(_ header: String, length: Int64) -> RangeAnswer {
        let text = header.trimmingCharacters(in: .whitespaces)
        guard text.lowercased().hasPrefix("bytes="), !text.contains(",") else { return .whole }
        let spec = text.dropFirst("bytes=".count)
        guard let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        let part: ClosedRange<Int64>
        if first.isEmpty {
            guard let suffix = Int64(last) else { return .whole }
            guard suffix > 0, length > 0 else { return .unsatisfiable }
            part = max(0, length - suffix)...(length - 1)
        } else {
            guard let start = Int64(first), start >= 0 else { return .whole }
            guard start < length else { return .unsatisfiable }
            var end = length - 1
            if !last.isEmpty {
                guard let value = Int64(last), value >= start else { return .whole }
                end = min(value, length - 1)
            }
            part = start...end
        }
        return part == 0...(length - 1) ? .whole : .part(part)
    }

    /// `attachment; filename="report.pdf"; filename*=UTF-8''report.pdf` (quotes and control characters removed).
    static func contentDisposition(_ kind: String, fileName: String?) -> String {
        guard let fileName, !fileName.isEmpty else { return kind }
        let plain = String(
            fileName.unicodeScalars.map {
                $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" ? Character($0) : "_"
            })
        return "\(kind); filename=\"\(plain)\"; filename*=UTF-8''\(PercentEncoding.encode(fileName))"
    }
}

extension HTTPField.Name {
    static let xContentTypeOptions = HTTPField.Name("X-Content-Type-Options")!
}
