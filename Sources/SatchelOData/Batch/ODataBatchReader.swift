package import Foundation
package import SatchelHTTP
import SatchelJSON

/// One response inside a `$batch` response, as the server sent it.
package struct ODataBatchPartResponse: Sendable {
    package var status: Int
    package var headers: HTTPClient.Headers
    package var body: Data
    /// The part's `Content-ID` (multipart) or `id` (JSON), when sent.
    package var contentID: String?
    /// JSON batch: the `atomicityGroup` it belongs to.
    package var atomicityGroup: String?
}

/// One request inside a `$batch` request, as a client sent it.
package struct ODataBatchPartRequest: Sendable {
    package var method: String
    /// As written on the request line: relative to the service root, an absolute path, or an absolute URL.
    package var target: String
    package var headers: HTTPClient.Headers
    package var body: Data
}

/// Reads `$batch` response bodies: `multipart/mixed` (V2 and V4) and 4.01 JSON. Whole-body problems (no
/// boundary, truncated, not JSON) throw ``ODataError/Code/invalidPayload``; a part that cannot be read (a
/// garbled status line) becomes that part's error and the others are kept.
///
/// ```swift
/// let items = try ODataBatchReader().read(body, contentType: response.headers["Content-Type"])
/// ```
package struct ODataBatchReader: Sendable {
    /// A top-level part of a multipart response; JSON responses are all `.single`.
    package enum Item: Sendable {
        case single(Result<ODataBatchPartResponse, ODataError>)
        case changeset([Result<ODataBatchPartResponse, ODataError>])
    }

    package var limits = MultipartMixed.Limits()

    package init(limits: MultipartMixed.Limits = MultipartMixed.Limits()) {
        self.limits = limits
    }

    /// Reads a whole `$batch` response body by its `Content-Type`.
    package func read(_ body: Data, contentType: String?) throws -> [Item] {
        let mediaType = MediaType(contentType ?? "")
        switch mediaType.type {
        case "multipart/mixed":
            guard let boundary = mediaType.parameter("boundary"), !boundary.isEmpty else {
                throw MultipartMixed.invalid("the $batch response is multipart/mixed without a boundary parameter")
            }
            return try readMultipart(body, boundary: boundary)
        case "application/json":
            return try readJSON(body).map { .single(.success($0)) }
        default:
            let excerpt = String(decoding: body.prefix(120), as: UTF8.self)
            throw MultipartMixed.invalid(
                "the $batch response is \(mediaType.type.isEmpty ? "untyped" : mediaType.type), not multipart/mixed "
                    + "or JSON (it starts with \(excerpt.debugDescription))")
        }
    }

    func readMultipart(_ body: Data, boundary: String) throws -> [Item] {
        let parts = try MultipartMixed.parse(body, boundary: boundary, limits: limits)
        return parts.enumerated().map { index, part in
            if let members = part.parts {
                return .changeset(
                    members.enumerated().map { member, inner in
                        httpResponse(inner, label: "part \(member + 1) of changeset part \(index + 1)")
                    })
            }
            return .single(httpResponse(part, label: "part \(index + 1)"))
        }
    }

    private func httpResponse(
        _ part: MultipartMixed.Part, label: String
    ) -> Result<ODataBatchPartResponse, ODataError> {
        let type = MediaType(part.headers["Content-Type"] ?? "application/http").type
        guard type == "application/http" else {
            return .failure(MultipartMixed.invalid("\(label) of the $batch response is \(type), not application/http"))
        }
        do {
            var response = try Self.parseHTTPResponse(part.body, label: label, limits: limits)
            response.contentID = part.headers["Content-ID"] ?? response.headers["Content-ID"]
            return .success(response)
        } catch let error as ODataError {
            return .failure(error)
        } catch {
            return .failure(MultipartMixed.invalid("\(label) could not be read: \(error)"))
        }
    }

    /// An HTTP/1.1 response message: status line, headers, empty line, body (cut at `Content-Length`).
    static func parseHTTPResponse(
        _ data: Data, label: String, limits: MultipartMixed.Limits = .init()
    ) throws -> ODataBatchPartResponse {
        let message = try HTTPMessage(data, label: label, limits: limits)
        let pieces = message.startLine.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: true)
        guard pieces.count >= 2, pieces[0].hasPrefix("HTTP/"), pieces[1].count == 3,
            let status = Int(pieces[1]), (100...599).contains(status)
        else {
            throw MultipartMixed.invalid(
                "\(label) does not start with an HTTP status line: \(String(message.startLine.prefix(80)).debugDescription)"
            )
        }
        return ODataBatchPartResponse(status: status, headers: message.headers, body: message.body)
    }

    /// An HTTP/1.1 request message inside a `$batch` request (a server reading one): request line, headers, empty
    /// line, body (cut at `Content-Length`; the line break before the next delimiter is the delimiter's).
    package static func parseHTTPRequest(
        _ data: Data, label: String, limits: MultipartMixed.Limits = .init()
    ) throws -> ODataBatchPartRequest {
        var message = try HTTPMessage(data, label: label, limits: limits)
        let pieces = message.startLine.split(separator: " ", omittingEmptySubsequences: true)
        guard pieces.count == 3, pieces[2].hasPrefix("HTTP/"), pieces[0].allSatisfy({ $0.isLetter }) else {
            throw MultipartMixed.invalid(
                "\(label) does not start with an HTTP request line: \(String(message.startLine.prefix(80)).debugDescription)"
            )
        }
        while let last = message.body.last, last == UInt8(ascii: "\n") || last == UInt8(ascii: "\r") {
            message.body.removeLast()
        }
        return ODataBatchPartRequest(
            method: String(pieces[0]).uppercased(), target: String(pieces[1]), headers: message.headers,
            body: message.body)
    }

    /// A message's start line, headers and body.
    private struct HTTPMessage {
        var startLine: String
        var headers: HTTPClient.Headers
        var body: Data

        init(_ data: Data, label: String, limits: MultipartMixed.Limits) throws {
            let bytes = [UInt8](data)
            var start = 0
            while start < bytes.count, bytes[start] == UInt8(ascii: "\r") || bytes[start] == UInt8(ascii: "\n") {
                start += 1
            }
            var lineEnd = start
            while lineEnd < bytes.count, bytes[lineEnd] != UInt8(ascii: "\n"), lineEnd - start < 8192 { lineEnd += 1 }
            startLine = String(decoding: bytes[start..<lineEnd], as: UTF8.self)
                .trimmingCharacters(in: .whitespacesAndNewlines)
            let headerStart = min(lineEnd + 1, bytes.count)
            let bodyStart: Int
            (headers, bodyStart) = try MultipartMixed.readHeaders(
                bytes, range: headerStart..<bytes.count, limits: limits, context: label)
            var bodyEnd = bytes.count
            // Content-Length cuts off padding some servers leave before the next delimiter; a larger value than
            // what is there is not trusted (some servers count characters, not bytes).
            if let length = headers["Content-Length"].flatMap({ Int($0.trimmingCharacters(in: .whitespaces)) }),
                length >= 0, bodyStart + length < bodyEnd
            {
                bodyEnd = bodyStart + length
            }
            body = Data(bytes[bodyStart..<bodyEnd])
        }
    }

    /// A 4.01 JSON batch response: `{"responses": [{"id", "status", "headers", "body", "atomicityGroup"}]}`.
    func readJSON(_ body: Data) throws -> [ODataBatchPartResponse] {
        let document: JSONValue
        do {
            document = try JSONValue(parsing: body)
        } catch {
            let excerpt = String(decoding: body.prefix(120), as: UTF8.self)
            throw ODataError(
                .invalidPayload,
                "the JSON $batch response is not valid JSON (it starts with \(excerpt.debugDescription))",
                operation: "read the $batch response", underlying: error)
        }
        guard let responses = document["responses"]?.arrayValue else {
            throw ODataError(
                .invalidPayload, "the JSON $batch response has no \"responses\" array",
                operation: "read the $batch response", location: "responses")
        }
        return try responses.enumerated().map { index, entry in
            let location = "responses[\(index)]"
            guard entry.objectValue != nil else {
                throw ODataError(
                    .invalidPayload, "a JSON $batch response is not an object", operation: "read the $batch response",
                    location: location)
            }
            let statusValue = entry["status"]
            guard let status = statusValue?.intValue ?? statusValue?.stringValue.flatMap({ Int($0) }),
                (100...599).contains(status)
            else {
                throw ODataError(
                    .invalidPayload, "a JSON $batch response has no valid status",
                    operation: "read the $batch response", location: location + ".status")
            }
            var headers = HTTPClient.Headers()
            for (name, value) in entry["headers"]?.objectValue ?? JSONObject() {
                headers.add(name, value.stringValue ?? value.description)
            }
            return ODataBatchPartResponse(
                status: status, headers: headers, body: Self.bodyData(entry["body"], headers: headers),
                contentID: entry["id"]?.stringValue ?? entry["id"]?.int64Value.map { String($0) },
                atomicityGroup: entry["atomicityGroup"]?.stringValue)
        }
    }

    /// A JSON batch `body`: JSON for JSON media types, the text for `text/*`, else base64url-encoded bytes.
    static func bodyData(_ body: JSONValue?, headers: HTTPClient.Headers) -> Data {
        guard let body, body != .null else { return Data() }
        let type = MediaType(headers["Content-Type"] ?? "").type
        guard case .string(let text) = body, !type.contains("json") else { return Data(body.serialized()) }
        if type.isEmpty || type.hasPrefix("text/") { return Data(text.utf8) }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.count % 4) % 4)
        return Data(base64Encoded: base64) ?? Data(text.utf8)
    }
}
