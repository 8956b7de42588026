import Foundation

/// Reads request parameters: query strings, urlencoded forms and multipart forms (with one file part).
struct CMISTestForm {
    var fields: [String: String] = [:]
    var file: (data: Data, filename: String?, contentType: String?)?

    subscript(name: String) -> String? { fields[name] }

    static func decode(_ text: String) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in text.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false).map {
                String($0).replacingOccurrences(of: "+", with: " ").removingPercentEncoding ?? String($0)
            }
            fields[parts[0]] = parts.count > 1 ? parts[1] : ""
        }
        return fields
    }

    init(query: String?) {
        fields = Self.decode(query ?? "")
    }

    init(body: Data, contentType: String?) {
        let contentType = contentType ?? ""
        guard contentType.lowercased().hasPrefix("multipart/form-data"),
            let boundaryRange = contentType.range(of: "boundary=")
        else {
            fields = Self.decode(String(decoding: body, as: UTF8.self))
            return
        }
        let boundary = contentType[boundaryRange.upperBound...].trimmingCharacters(in: CharacterSet(charactersIn: "\""))
        let delimiter = Data("--\(boundary)".utf8)
        let headerEnd = Data("\r\n\r\n".utf8)
        var cursor = body.startIndex
        while let start = body.range(of: delimiter, in: cursor..<body.endIndex) {
            let partStart = start.upperBound
            guard let next = body.range(of: delimiter, in: partStart..<body.endIndex) else { break }
            cursor = next.lowerBound
            // A part: CRLF, headers, CRLF CRLF, bytes, CRLF.
            guard let headersEnd = body.range(of: headerEnd, in: partStart..<next.lowerBound) else { continue }
            let headers = String(decoding: body[partStart..<headersEnd.lowerBound], as: UTF8.self)
            let contentEnd = max(headersEnd.upperBound, next.lowerBound - 2)
            let content = Data(body[headersEnd.upperBound..<contentEnd])
            guard let name = Self.parameter("name", in: headers) else { continue }
            if let filename = Self.parameter("filename", in: headers) {
                let type = headers.split(separator: "\r\n").first { $0.lowercased().hasPrefix("content-type:") }
                    .map { $0.dropFirst("content-type:".count).trimmingCharacters(in: .whitespaces) }
                file = (content, filename, type)
            } else {
                fields[name] = String(decoding: content, as: UTF8.self)
            }
        }
    }

    private static func parameter(_ name: String, in headers: String) -> String? {
        guard let range = headers.range(of: " \(name)=\"") ?? headers.range(of: ";\(name)=\"") else { return nil }
        let rest = headers[range.upperBound...]
        guard let end = rest.firstIndex(of: "\"") else { return nil }
        return String(rest[..<end])
    }

    /// `propertyId[n]`/`propertyValue[n]` pairs.
    var properties: [String: String] {
        var properties: [String: String] = [:]
        var index = 0
        while let id = fields["propertyId[\(index)]"] {
            properties[id] = fields["propertyValue[\(index)]"] ?? ""
            index += 1
        }
        return properties
    }
}
