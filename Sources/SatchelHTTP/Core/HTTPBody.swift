import SatchelText
public import Foundation
public import SatchelJSON
extension HTTPClient {
    /// A request body: a sequence of segments, each in memory or in a file.
    ///
    /// Bodies are replayable — a retry, a re-login or a CSRF refetch sends the same body again — and their length
    /// is known up front, so files and multipart forms stream from disk in constant memory with a `Content-Length`.
    ///
    /// ```swift
    /// let upload = try HTTPClient.Body.file(
    ///     URL(fileURLWithPath: "/tmp/big.iso"), contentType: "application/octet-stream")
    /// let form = HTTPClient.Body.form([("user", "alice"), ("password", secret)])
    /// let json = try HTTPClient.Body.json(["name": "Notes"])
    /// ```
    public struct Body: Sendable, Hashable {
        /// One piece of a body.
        public enum Segment: Sendable, Hashable {
            /// Bytes in memory.
            case data(Data)
            /// `length` bytes of a file from `offset`.
            case file(URL, offset: Int64, length: Int64)

            /// The number of bytes the segment sends.
            public var length: Int64 {
                switch self {
                case .data(let data): Int64(data.count)
                case .file(_, _, let length): length
                }
            }
        }

        /// The body's pieces, sent in order.
        public var segments: [Segment]
        /// The `Content-Type` sent with the body, unless the request sets one.
        public var contentType: String?

        /// A body of `segments`.
        public init(segments: [Segment], contentType: String?) {
            self.segments = segments
            self.contentType = contentType
        }

        /// The total number of bytes the body sends.
        public var length: Int64 { segments.reduce(0) { $0 + $1.length } }

        /// The bytes of an all-in-memory body, or nil when a segment is a file.
        public var inMemoryData: Data? {
            var result = Data()
            for segment in segments {
                guard case .data(let data) = segment else { return nil }
                result.append(data)
            }
            return result
        }

        /// Bytes in memory, `application/octet-stream` by default.
        public static func data(_ data: Data, contentType: String? = "application/octet-stream") -> HTTPClient.Body {
            HTTPClient.Body(segments: [.data(data)], contentType: contentType)
        }

        /// Text as UTF-8, `text/plain; charset=utf-8` by default.
        public static func text(_ text: String, contentType: String = "text/plain; charset=utf-8") -> HTTPClient.Body {
            HTTPClient.Body(segments: [.data(Data(text.utf8))], contentType: contentType)
        }

        /// A whole file, streamed from disk when sent. Throws if the file can't be read.
        public static func file(_ url: URL, contentType: String? = "application/octet-stream") throws -> HTTPClient.Body
        {
            let length = try FileInfo.size(of: url)
            return HTTPClient.Body(segments: [.file(url, offset: 0, length: length)], contentType: contentType)
        }

        /// A JSON body from an `Encodable` value.
        public static func json(_ value: some Encodable, encoder: JSONEncoder = JSONEncoder()) throws -> HTTPClient.Body
        {
            HTTPClient.Body(segments: [.data(try encoder.encode(value))], contentType: "application/json")
        }

        /// A JSON value, serialised by SatchelJSON.
        public static func json(_ value: JSONValue) -> HTTPClient.Body {
            HTTPClient.Body(segments: [.data(Data(value.serialized()))], contentType: "application/json")
        }

        /// Already-serialised JSON bytes.
        public static func json(bytes: Data) -> HTTPClient.Body {
            HTTPClient.Body(segments: [.data(bytes)], contentType: "application/json")
        }

        /// An `application/x-www-form-urlencoded` body; order and repeated names are kept.
        public static func form(_ fields: [(String, String)]) -> HTTPClient.Body {
            HTTPClient.Body(
                segments: [.data(Data(FormURLEncoding.encode(fields).utf8))],
                contentType: "application/x-www-form-urlencoded"
            )
        }

        /// A `multipart/form-data` body whose file parts stream from disk.
        public static func multipart(_ form: MultipartFormData) -> HTTPClient.Body { form.body }
    }
}

enum FileInfo {
    static func size(of url: URL) throws -> Int64 {
        do {
            let attributes = try FileManager.default.attributesOfItem(atPath: url.path)
            guard (attributes[.type] as? FileAttributeType) != .typeDirectory else {
                throw HTTPTransferError(.invalidRequest, "\(url.path) is a directory, not a file")
            }
            return (attributes[.size] as? NSNumber)?.int64Value ?? 0
        } catch let error as HTTPTransferError {
            throw error
        } catch {
            throw HTTPTransferError(.fileSystem, "cannot read \(url.path)", underlying: error)
        }
    }
}
