import Foundation
/// A parsed HTTP/1.x response head: status line and header fields.
///
/// Parsing is strict where leniency would let a hostile server confuse framing (whitespace before a colon,
/// obsolete line folding, control characters, conflicting lengths) and lenient where it is harmless (bare LF line
/// ends, an empty reason phrase, bytes that are not UTF-8).
struct HTTP1ResponseHead: Sendable {
    var minorVersion: Int
    var status: Int
    var headers: HTTPClient.Headers

    static let malformed = "malformed or oversized response headers"

    /// Parses `bytes`: the head without the empty line that ends it.
    init(parsing bytes: UnsafeRawBufferPointer) throws(HTTPTransferError) {
        var lines = Self.lines(of: bytes)[...]
        guard let statusLine = lines.popFirst() else { throw Self.error("no status line") }
        (minorVersion, status) = try Self.parseStatusLine(statusLine)
        headers = HTTPClient.Headers()
        for line in lines { try Self.parseField(line, into: &headers) }
    }

    /// Parses the trailer fields after the last chunk of a chunked body (same rules as header fields).
    static func parseTrailer(_ line: [UInt8], into headers: inout HTTPClient.Headers) throws {
        try line.withUnsafeBytes { bytes in try parseField(bytes[...], into: &headers) }
    }

    private static func lines(of bytes: UnsafeRawBufferPointer) -> [Slice<UnsafeRawBufferPointer>] {
        var result: [Slice<UnsafeRawBufferPointer>] = []
        var lineStart = 0
        for index in 0..<bytes.count where bytes[index] == 0x0A {
            var lineEnd = index
            if lineEnd > lineStart, bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            result.append(bytes[lineStart..<lineEnd])
            lineStart = index + 1
        }
        if lineStart < bytes.count {
            var lineEnd = bytes.count
            if bytes[lineEnd - 1] == 0x0D { lineEnd -= 1 }
            result.append(bytes[lineStart..<lineEnd])
        }
        return result
    }

    /// `HTTP/1.1 200 OK`: the version must be 1.x and the status three digits from 100 to 599.
    private static func parseStatusLine(_ line: Slice<UnsafeRawBufferPointer>) throws(HTTPTransferError) -> (Int, Int) {
        let bytes = Array(line)
        let prefix = Array("HTTP/1.".utf8)
        guard bytes.count >= 12, Array(bytes[0..<7]) == prefix, isDigit(bytes[7]), bytes[8] == 0x20 else {
            throw error("the status line does not start with HTTP/1.x")
        }
        guard isDigit(bytes[9]), isDigit(bytes[10]), isDigit(bytes[11]), bytes.count == 12 || bytes[12] == 0x20 else {
            throw error("the status code is not three digits")
        }
        let status = Int(bytes[9] - 0x30) * 100 + Int(bytes[10] - 0x30) * 10 + Int(bytes[11] - 0x30)
        guard (100...599).contains(status) else { throw error("the status code \(status) is out of range") }
        if bytes.dropFirst(12).contains(where: HTTP1Syntax.isForbiddenInValue) {
            throw error("the reason phrase contains control characters")
        }
        return (Int(bytes[7] - 0x30), status)
    }

    private static func parseField(
        _ line: Slice<UnsafeRawBufferPointer>, into headers: inout HTTPClient.Headers
    )
        throws(HTTPTransferError)
    {
        guard let first = line.first else { throw error("an empty header line") }
        if first == 0x20 || first == 0x09 { throw error("obsolete line folding") }
        guard let colon = line.firstIndex(of: 0x3A) else { throw error("a header line without a colon") }
        let name = line[line.startIndex..<colon]
        guard !name.isEmpty, name.allSatisfy(HTTP1Syntax.isTokenByte) else { throw error("an invalid header name") }
        var value = line[(colon + 1)...]
        while let byte = value.first, byte == 0x20 || byte == 0x09 { value = value.dropFirst() }
        while let byte = value.last, byte == 0x20 || byte == 0x09 { value = value.dropLast() }
        if value.contains(where: HTTP1Syntax.isForbiddenInValue) {
            throw error("control characters in a header value")
        }
        headers.add(String(decoding: name, as: UTF8.self), String(decoding: value, as: UTF8.self))
    }

    static func error(_ detail: String) -> HTTPTransferError {
        HTTPTransferError(.invalidResponse, "\(malformed) (\(detail))")
    }

    private static func isDigit(_ byte: UInt8) -> Bool { byte >= 0x30 && byte <= 0x39 }
}

/// How the body of a response is delimited (RFC 9112 §6.3).
enum HTTP1BodyFraming: Equatable {
    case none
    case length(Int64)
    case chunked
    /// Until the server closes the connection: HTTP/1.0 style, or a transfer coding we can't delimit.
    case untilClose

    init(head: HTTP1ResponseHead, method: HTTPClient.Method) throws(HTTPTransferError) {
        if method == .head || head.status < 200 || head.status == 204 || head.status == 304 {
            self = .none
            return
        }
        let codings = head.headers.values(for: "Transfer-Encoding")
            .flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }
        if !codings.isEmpty {
            self = codings.last == "chunked" ? .chunked : .untilClose
            return
        }
        let lengths = head.headers.values(for: "Content-Length")
            .flatMap { $0.split(separator: ",", omittingEmptySubsequences: false) }
            .map { $0.trimmingCharacters(in: .whitespaces) }
        guard let first = lengths.first else {
            self = .untilClose
            return
        }
        guard first.utf8.count <= 18, first.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), let length = Int64(first),
            lengths.allSatisfy({ $0 == first })
        else {
            throw HTTP1ResponseHead.error("an invalid or conflicting Content-Length")
        }
        self = .length(length)
    }

    /// The body length announced up front, if any.
    var expectedLength: Int64? {
        switch self {
        case .none: 0
        case .length(let length): length
        case .chunked, .untilClose: nil
        }
    }
}
