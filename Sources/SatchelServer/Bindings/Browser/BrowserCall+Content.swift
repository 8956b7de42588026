import Foundation
import Hummingbird
import SatchelCMIS
import SatchelRepository

extension BrowserCall {
    /// Streams a content stream from its blob file: ETag (the SHA-256), `If-None-Match`, single byte ranges
    /// (`Range: bytes=…` → 206, or 416 when unsatisfiable) and `Content-Disposition` with the file name.
    func contentResponse(_ content: ContentOutput) async throws -> Response {
        var headers = HTTPFields()
        headers[.contentType] = content.mimeType.isEmpty ? "application/octet-stream" : content.mimeType
        headers[.eTag] = "\"\(content.hash)\""
        headers[.acceptRanges] = "bytes"
        let inline = parameters.string("download")?.lowercased() == "inline"
        headers[.contentDisposition] = Self.contentDisposition(
            inline ? "inline" : "attachment", fileName: content.fileName)
        if let match = request.headers[.ifNoneMatch],
            match == "*"
                || match.split(separator: ",").contains(where: {
                    $0.trimmingCharacters(in: .whitespaces).replacingOccurrences(of: "W/", with: "")
                        == "\"\(content.hash)\""
                })
        {
            return Response(status: .notModified, headers: headers, body: .init())
        }
        let length = content.length
        var range: ClosedRange<Int64>?
        if let header = request.headers[.range], length > 0 {
            switch Self.byteRange(header, length: length) {
            case .whole: break
            case .range(let requested): range = requested
            case .unsatisfiable:
                headers[.contentRange] = "bytes */\(length)"
                headers[.contentLength] = "0"
                return Response(status: .rangeNotSatisfiable, headers: headers, body: .init())
            }
        }
        if length == 0 {
            headers[.contentLength] = String(range.map { $0.count } ?? Int(length))
            return Response(status: range == nil ? .ok : .partialContent, headers: headers, body: .init())
        }
        let fileIO = FileIO()
        let selected = range ?? 0...(length - 1)
        let body = try await fileIO.loadFile(
            path: content.file.path, range: Int(selected.lowerBound)...Int(selected.upperBound), context: context)
        headers[.contentLength] = String(selected.count)
        if range != nil {
            headers[.contentRange] = "bytes \(selected.lowerBound)-\(selected.upperBound)/\(length)"
            return Response(status: .partialContent, headers: headers, body: body)
        }
        return Response(status: .ok, headers: headers, body: body)
    }

    /// RFC 8187 attribute characters (ASCII only).
    static let attributeCharacters = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789!#$&+-.^_`|~")

    enum RangeResult: Equatable {
        case whole
        case range(ClosedRange<Int64>)
        case unsatisfiable
    }

    /// One `bytes=first-last`, `bytes=first-` or `bytes=-suffix` range; several ranges or another unit → whole.
    static func byteRange(_ header: String, length: Int64) -> RangeResult {
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard trimmed.lowercased().hasPrefix("bytes=") else { return .whole }
        let spec = trimmed.dropFirst(6).trimmingCharacters(in: .whitespaces)
        guard !spec.contains(","), let dash = spec.firstIndex(of: "-") else { return .whole }
        let first = spec[..<dash].trimmingCharacters(in: .whitespaces)
        let last = spec[spec.index(after: dash)...].trimmingCharacters(in: .whitespaces)
        if first.isEmpty {
            guard let suffix = Int64(last), suffix > 0 else { return .unsatisfiable }
            return .range(max(0, length - suffix)...(length - 1))
        }
        guard let start = Int64(first), start >= 0 else { return .whole }
        guard start < length else { return .unsatisfiable }
        if last.isEmpty { return .range(start...(length - 1)) }
        guard let end = Int64(last), end >= start else { return .whole }
        return .range(start...min(end, length - 1))
    }

    /// `attachment; filename="report.pdf"; filename*=UTF-8''report.pdf` (quotes and control characters removed).
    static func contentDisposition(_ kind: String, fileName: String?) -> String {
        guard let fileName, !fileName.isEmpty else { return kind }
        let plain = String(
            fileName.unicodeScalars.map {
                $0.isASCII && $0.value >= 0x20 && $0 != "\"" && $0 != "\\" ? Character($0) : "_"
            })
        let encoded = fileName.addingPercentEncoding(withAllowedCharacters: Self.attributeCharacters) ?? plain
        return "\(kind); filename=\"\(plain)\"; filename*=UTF-8''\(encoded)"
    }
}
