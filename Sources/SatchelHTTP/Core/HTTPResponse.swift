public import Foundation
public import SatchelJSON

extension HTTPClient {
    /// A response: status, headers and the body, in memory or in a file.
    public struct Response: Sendable {
        /// The HTTP status.
        public var status: Int
        /// The response headers.
        public var headers: HTTPClient.Headers
        /// The URL that answered, after redirects.
        public var url: URL
        /// The body, when the request read it into memory.
        public var body: Data
        /// Where the body was written, for downloads.
        public var bodyFile: URL?

        /// A response of the given parts (for transports and tests).
        public init(status: Int, headers: HTTPClient.Headers = [:], url: URL, body: Data = Data(), bodyFile: URL? = nil)
        {
            self.status = status
            self.headers = headers
            self.url = url
            self.body = body
            self.bodyFile = bodyFile
        }

        /// Whether the status is 2xx.
        public var isSuccess: Bool { (200..<300).contains(status) }
        /// Whether the status is one of the redirects the client follows (301, 302, 303, 307, 308).
        public var isRedirect: Bool { [301, 302, 303, 307, 308].contains(status) }

        /// The media type without parameters, lowercased (`application/json`).
        public var mediaType: String? {
            // `split` drops empty pieces: an empty or all-parameter header has no first piece.
            guard let value = headers["Content-Type"], let type = value.split(separator: ";").first else { return nil }
            let trimmed = type.trimmingCharacters(in: .whitespaces).lowercased()
            return trimmed.isEmpty ? nil : trimmed
        }

        /// The `ETag` header, as sent.
        public var etag: String? { headers["ETag"] }

        /// The body as UTF-8 text (invalid bytes replaced).
        public var text: String { String(decoding: body, as: UTF8.self) }

        /// The body as a JSON value (read with SatchelJSON).
        public func json(limits: JSONLimits = .default) throws -> JSONValue {
            do {
                return try JSONValue(parsing: body, limits: limits)
            } catch {
                throw invalidJSON("the response body is not valid JSON", error)
            }
        }

        /// Decodes the body as JSON into a `Decodable` type, with SatchelJSON's decoder.
        public func decode<T: Decodable>(_ type: T.Type, decoder: SatchelJSONDecoder = SatchelJSONDecoder()) throws -> T
        {
            do {
                return try decoder.decode(type, from: body)
            } catch {
                throw invalidJSON("the response body is not the expected JSON for \(T.self)", error)
            }
        }

        private func invalidJSON(_ message: String, _ error: any Error) -> HTTPTransferError {
            HTTPTransferError(
                .invalidResponse,
                message,
                url: url,
                status: status,
                responseHeaders: headers,
                responseExcerpt: ResponseExcerpt.make(body),
                underlying: error
            )
        }

        /// `Content-Range` of a 206 answer.
        public var contentRange: ContentRange? { headers["Content-Range"].flatMap(ContentRange.init(headerValue:)) }
    }
}

/// A parsed `Content-Range: bytes first-last/complete` header.
public struct ContentRange: Sendable, Hashable {
    /// The first byte's offset.
    public var first: Int64
    /// The last byte's offset (inclusive).
    public var last: Int64
    /// The length of the whole representation, when the server knows it.
    public var completeLength: Int64?

    /// Parses `bytes first-last/complete` (`*` for an unknown length); nil for anything else.
    public init?(headerValue: String) {
        let value = headerValue.trimmingCharacters(in: .whitespaces)
        guard value.hasPrefix("bytes ") else { return nil }
        let rest = value.dropFirst(6)
        let halves = rest.split(separator: "/", maxSplits: 1)
        guard halves.count == 2 else { return nil }
        let bounds = halves[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]), first <= last else {
            return nil
        }
        self.first = first
        self.last = last
        completeLength = halves[1] == "*" ? nil : Int64(halves[1])
    }
}
