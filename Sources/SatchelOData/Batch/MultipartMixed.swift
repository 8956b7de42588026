package import Foundation
package import SatchelHTTP

/// A `multipart/mixed` body read into its parts (RFC 2046 §5.1): the preamble and epilogue are skipped, a
/// delimiter is `--boundary` at the start of a line ending in CRLF or LF (transport padding allowed), and the
/// line break before a delimiter belongs to the delimiter. Parts whose `Content-Type` is itself
/// `multipart/mixed` (OData changesets) are read one level down.
///
/// ```swift
/// let parts = try MultipartMixed.parse(body, boundary: "batchresponse_1")
/// for part in parts { print(part.headers["Content-Type"] ?? "", part.body.count) }
/// ```
package struct MultipartMixed: Sendable {
    /// Bounds on what a response may make the reader do.
    package struct Limits: Sendable {
        /// Parts per multipart level.
        package var maxParts = 10_000
        /// Bytes of one part's header block.
        package var maxHeaderBytes = 64 * 1024
        /// Bytes of one part (headers and body).
        package var maxPartBytes = 256 * 1024 * 1024
        /// Levels of nesting (a batch holding changesets is 2).
        package var maxDepth = 2

        package init() {}
    }

    package struct Part: Sendable {
        package var headers: HTTPClient.Headers
        package var body: Data
        /// The parts of a nested `multipart/mixed` part (a changeset); `nil` for other parts.
        package var parts: [Part]?
    }

    /// Reads `data` as a multipart body delimited by `boundary`.
    package static func parse(_ data: Data, boundary: String, limits: Limits = Limits()) throws -> [Part] {
        let bytes = [UInt8](data)
        return try parse(bytes, range: 0..<bytes.count, boundary: boundary, depth: 1, limits: limits)
    }

    private static func parse(
        _ bytes: [UInt8], range: Range<Int>, boundary: String, depth: Int, limits: Limits
    ) throws -> [Part] {
        let ranges = try partRanges(bytes, range: range, boundary: boundary, limits: limits)
        var parts: [Part] = []
        parts.reserveCapacity(ranges.count)
        for (index, partRange) in ranges.enumerated() {
            let label = "part \(index + 1) of the multipart body with boundary \(boundary)"
            guard partRange.count <= limits.maxPartBytes else {
                throw invalid("\(label) is \(partRange.count) bytes, more than the limit of \(limits.maxPartBytes)")
            }
            let (headers, bodyStart) = try readHeaders(bytes, range: partRange, limits: limits, context: label)
            let bodyRange = bodyStart..<partRange.upperBound
            var part = Part(headers: headers, body: Data(), parts: nil)
            let contentType = headers["Content-Type"] ?? ""
            if MediaType(contentType).type == "multipart/mixed" {
                guard depth < limits.maxDepth else {
                    throw invalid("\(label) nests multipart/mixed deeper than \(limits.maxDepth) levels")
                }
                guard let inner = MediaType(contentType).parameter("boundary"), !inner.isEmpty else {
                    throw invalid("\(label) is multipart/mixed without a boundary parameter")
                }
                part.parts = try parse(bytes, range: bodyRange, boundary: inner, depth: depth + 1, limits: limits)
            } else {
                part.body = Data(bytes[bodyRange])
            }
            parts.append(part)
        }
        return parts
    }

    /// The byte ranges of the parts between the first delimiter and the close delimiter.
    private static func partRanges(
        _ bytes: [UInt8], range: Range<Int>, boundary: String, limits: Limits
    ) throws -> [Range<Int>] {
        let delimiter = Array(("--" + boundary).utf8)
        var ranges: [Range<Int>] = []
        var partStart: Int?
        var position = range.lowerBound
        while let found = nextDelimiter(bytes, delimiter, from: position, in: range) {
            if let start = partStart {
                ranges.append(start..<found.lineStart)
                guard ranges.count <= limits.maxParts else {
                    throw invalid("the multipart body has more than \(limits.maxParts) parts")
                }
            }
            if found.isClose { return ranges }
            partStart = found.next
            position = found.next
        }
        if partStart == nil {
            let excerpt = String(decoding: bytes[range].prefix(120), as: UTF8.self)
            throw invalid(
                "the body does not contain the boundary \(boundary) declared in its Content-Type "
                    + "(it starts with \(excerpt.debugDescription))")
        }
        throw invalid(
            "the multipart body with boundary \(boundary) ends without its close delimiter after "
                + "\(ranges.count + 1) part(s): it is truncated")
    }

    private struct Delimiter {
        /// Where the line break before the delimiter starts (the end of the previous part).
        var lineStart: Int
        /// The first byte after the delimiter line.
        var next: Int
        var isClose: Bool
    }

    private static func nextDelimiter(
        _ bytes: [UInt8], _ delimiter: [UInt8], from start: Int, in range: Range<Int>
    ) -> Delimiter? {
        var index = start
        let end = range.upperBound
        while index + delimiter.count <= end {
            guard bytes[index] == UInt8(ascii: "-"), matches(bytes, delimiter, at: index) else {
                index += 1
                continue
            }
            let atLineStart = index == range.lowerBound || bytes[index - 1] == UInt8(ascii: "\n")
            var after = index + delimiter.count
            var isClose = false
            if after + 1 < end, bytes[after] == UInt8(ascii: "-"), bytes[after + 1] == UInt8(ascii: "-") {
                isClose = true
                after += 2
            }
            while after < end, bytes[after] == UInt8(ascii: " ") || bytes[after] == UInt8(ascii: "\t") { after += 1 }
            var lineEnd: Int?
            if after == end {
                lineEnd = end
            } else if bytes[after] == UInt8(ascii: "\n") {
                lineEnd = after + 1
            } else if bytes[after] == UInt8(ascii: "\r"), after + 1 < end, bytes[after + 1] == UInt8(ascii: "\n") {
                lineEnd = after + 2
            } else if isClose {
                lineEnd = after  // "--boundary--epilogue": the close delimiter needs no line break of its own
            }
            if atLineStart, let lineEnd {
                var lineStart = index
                if lineStart > range.lowerBound, bytes[lineStart - 1] == UInt8(ascii: "\n") {
                    lineStart -= 1
                    if lineStart > range.lowerBound, bytes[lineStart - 1] == UInt8(ascii: "\r") { lineStart -= 1 }
                }
                return Delimiter(lineStart: max(lineStart, start), next: lineEnd, isClose: isClose)
            }
            index += 1
        }
        return nil
    }

    private static func matches(_ bytes: [UInt8], _ pattern: [UInt8], at index: Int) -> Bool {
        for offset in 0..<pattern.count where bytes[index + offset] != pattern[offset] { return false }
        return true
    }

    /// Reads a header block (lines up to an empty line; folded lines joined); returns where the body starts.
    package static func readHeaders(
        _ bytes: [UInt8], range: Range<Int>, limits: Limits, context: String
    ) throws -> (HTTPClient.Headers, Int) {
        var headers = HTTPClient.Headers()
        var index = range.lowerBound
        var lastName: String?
        var lastValue = ""
        func flush() {
            if let name = lastName { headers.add(name, lastValue.trimmingCharacters(in: .whitespaces)) }
            lastName = nil
        }
        let limit = min(range.upperBound, range.lowerBound + limits.maxHeaderBytes)
        while index < range.upperBound {
            var lineEnd = index
            while lineEnd < limit, bytes[lineEnd] != UInt8(ascii: "\n") { lineEnd += 1 }
            guard lineEnd < limit || limit == range.upperBound else {
                throw invalid("the headers of \(context) are longer than \(limits.maxHeaderBytes) bytes")
            }
            let next = min(lineEnd + 1, range.upperBound)
            var contentEnd = lineEnd
            if contentEnd > index, bytes[contentEnd - 1] == UInt8(ascii: "\r") { contentEnd -= 1 }
            if contentEnd == index {
                flush()
                return (headers, next)
            }
            let line = String(decoding: bytes[index..<contentEnd], as: UTF8.self)
            if bytes[index] == 0x20 || bytes[index] == 0x09 {
                // A folded line continues the field before; with none before, it is no field at all.
                guard lastName != nil else {
                    throw invalid("\(context) has a header line that starts with white space")
                }
                lastValue += " " + line.trimmingCharacters(in: .whitespaces)
            } else {
                // A field name is a token (white space before the colon is tolerated, as servers send it).
                let colon = bytes[index..<contentEnd].firstIndex(of: UInt8(ascii: ":")) ?? contentEnd
                var nameEnd = colon
                while nameEnd > index, bytes[nameEnd - 1] == 0x20 || bytes[nameEnd - 1] == 0x09 { nameEnd -= 1 }
                guard colon < contentEnd, nameEnd > index, bytes[index..<nameEnd].allSatisfy(HTTP1Syntax.isTokenByte)
                else {
                    throw invalid("\(context) has a malformed header line \(String(line.prefix(80)).debugDescription)")
                }
                flush()
                lastName = String(decoding: bytes[index..<nameEnd], as: UTF8.self)
                lastValue = String(decoding: bytes[(colon + 1)..<contentEnd], as: UTF8.self)
            }
            index = next
        }
        // Headers that run to the end with no empty line: the part has no body.
        flush()
        return (headers, range.upperBound)
    }

    package static func invalid(_ message: String) -> ODataError {
        ODataError(.invalidPayload, message, operation: "read the $batch response")
    }
}

/// A media type with its parameters (`multipart/mixed; boundary="batch_1"`), read leniently.
package struct MediaType: Sendable {
    /// The type and subtype, lowercased, without parameters.
    package var type: String
    var parameters: [(name: String, value: String)]

    package init(_ text: String) {
        var pieces: [String] = []
        var current = ""
        var quoted = false
        var escaped = false
        for character in text {
            if escaped {
                current.append(character)
                escaped = false
            } else if quoted && character == "\\" {
                escaped = true
            } else if character == "\"" {
                quoted.toggle()
                current.append(character)
            } else if character == ";" && !quoted {
                pieces.append(current)
                current = ""
            } else {
                current.append(character)
            }
        }
        pieces.append(current)
        type = pieces[0].trimmingCharacters(in: .whitespaces).lowercased()
        parameters = pieces.dropFirst().compactMap { piece in
            guard let equals = piece.firstIndex(of: "=") else { return nil }
            let name = piece[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            var value = piece[piece.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if value.count >= 2, value.hasPrefix("\""), value.hasSuffix("\"") {
                value = String(value.dropFirst().dropLast())
            }
            return (name, value)
        }
    }

    package func parameter(_ name: String) -> String? {
        parameters.first { $0.name == name.lowercased() }?.value
    }
}
