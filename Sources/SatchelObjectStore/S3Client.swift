import Crypto
public import Foundation
public import SatchelHTTP
public import SatchelRepository
import SatchelXML

/// The few S3 calls a blob store needs, on Satchel's HTTP client, signed with ``SignatureV4``: put (whole, or in
/// parts), ranged get, head, delete and list of objects, and head and create of the bucket. Path-style addressing
/// (`endpoint/bucket/key`), which every S3-compatible store accepts.
///
/// Every failure is a `BlobStoreError` naming the call, the object (`s3://bucket/key`), the HTTP status and the
/// store's own error code and message; a missing object is `BlobStoreError.isMissing`.
public final class S3Client: Sendable {
    /// Where the bucket is.
    public let endpoint: URL
    /// The bucket.
    public let bucket: String
    let http: HTTPClient

    /// A client for `bucket` at `endpoint` (`http://127.0.0.1:8080`, `https://s3.eu-central-1.amazonaws.com`),
    /// signing for `region`. `transport` is the platform's default unless given.
    public init(
        endpoint: URL, bucket: String, region: String, credentials: S3Credentials, timeout: Duration = .seconds(60),
        transport: any HTTPTransport = HTTPClient.defaultTransport()
    ) {
        self.endpoint = endpoint
        self.bucket = bucket
        var configuration = HTTPClient.Configuration(timeout: timeout, maximumRedirects: 0)
        configuration.retry = RetryPolicy(retryableStatuses: [500, 502, 503, 504], retriesTimeouts: true)
        http = HTTPClient(
            configuration: configuration, transport: transport,
            auth: [S3Signing(signer: SignatureV4(credentials: credentials, region: region))])
    }

    // MARK: Objects

    /// Puts `length` bytes of `file` from `offset` as the object `key`; `sha256` is their lower-case hex SHA-256,
    /// which the store checks against what it received.
    public func putObject(
        _ key: String, file: URL, offset: Int64 = 0, length: Int64, sha256: String
    ) async throws(BlobStoreError) {
        var request = HTTPClient.Request(
            .put, url: url(key),
            body: HTTPClient.Body(
                segments: [.file(file, offset: offset, length: length)], contentType: "application/octet-stream"))
        request.headers["x-amz-content-sha256"] = sha256
        _ = try await send(request, "put", key)
    }

    /// Starts a multipart upload of `key` and returns its upload id.
    public func createMultipartUpload(_ key: String) async throws(BlobStoreError) -> String {
        let response = try await send(HTTPClient.Request(.post, url: url(key, query: "uploads")), "start upload", key)
        guard let id = try Self.xml(response, "start upload", object(key)).child("UploadId")?.text, !id.isEmpty else {
            throw BlobStoreError(
                operation: "start upload", path: object(key),
                reason: "the answer holds no UploadId: \(excerpt(response))")
        }
        return id
    }

    /// Uploads part `number` (from 1) of an upload: `length` bytes of `file` from `offset`, whose lower-case hex
    /// SHA-256 is `sha256` (checked by the store). Returns its ETag.
    public func uploadPart(
        _ key: String, uploadID: String, number: Int, file: URL, offset: Int64, length: Int64, sha256: String
    ) async throws(BlobStoreError) -> String {
        var request = HTTPClient.Request(
            .put, url: url(key, query: "partNumber=\(number)&uploadId=\(SignatureV4.uriEncode(uploadID))"),
            body: HTTPClient.Body(
                segments: [.file(file, offset: offset, length: length)], contentType: "application/octet-stream"))
        request.headers["x-amz-content-sha256"] = sha256
        let response = try await send(request, "put part \(number)", key)
        guard let etag = response.headers["ETag"], !etag.isEmpty else {
            throw BlobStoreError(
                operation: "put part \(number)", path: object(key), reason: "the answer carries no ETag")
        }
        return etag
    }

    /// Completes an upload from its parts' ETags, in order.
    public func completeMultipartUpload(
        _ key: String, uploadID: String, parts: [String]
    ) async throws(BlobStoreError) {
        var body = "<CompleteMultipartUpload>"
        for (index, etag) in parts.enumerated() {
            body += "<Part><PartNumber>\(index + 1)</PartNumber><ETag>\(Self.escaped(etag))</ETag></Part>"
        }
        body += "</CompleteMultipartUpload>"
        let request = HTTPClient.Request(
            .post, url: url(key, query: "uploadId=\(SignatureV4.uriEncode(uploadID))"),
            body: .data(Data(body.utf8), contentType: "application/xml"))
        let response = try await send(request, "complete upload", key)
        // A completion can fail after the 200 has been sent: the error is then the body.
        let root = try Self.xml(response, "complete upload", object(key))
        if root.name == "Error" {
            throw BlobStoreError(
                operation: "complete upload", path: object(key),
                reason: "\(root.child("Code")?.text ?? "error"): \(root.child("Message")?.text ?? excerpt(response))")
        }
    }

    /// Abandons an upload and the parts it holds.
    public func abortMultipartUpload(_ key: String, uploadID: String) async throws(BlobStoreError) {
        let request = HTTPClient.Request(
            .delete, url: url(key, query: "uploadId=\(SignatureV4.uriEncode(uploadID))"))
        _ = try await send(request, "abort upload", key, missingIsFine: true)
    }

    /// Starts reading `key` (`range`: inclusive offsets; the whole object when nil) and returns the body as it
    /// arrives. A missing object throws with `BlobStoreError.isMissing`.
    public func getObject(
        _ key: String, range: ClosedRange<Int64>? = nil
    ) async throws(BlobStoreError) -> HTTPStreamingResponse {
        var request = HTTPClient.Request(.get, url: url(key))
        if let range { request.headers["Range"] = "bytes=\(range.lowerBound)-\(range.upperBound)" }
        request.validatesStatus = false
        let response: HTTPStreamingResponse
        do {
            response = try await http.stream(request)
        } catch {
            throw transportError(error, "get", key)
        }
        guard (200..<300).contains(response.status) else {
            let body = try? await response.collect()
            throw statusError(response.status, body?.body ?? Data(), "get", key)
        }
        return response
    }

    /// The object's length and when it was last written, or nil when there is no such object.
    public func headObject(_ key: String) async throws(BlobStoreError) -> (length: Int64, lastModified: Date)? {
        let response = try await send(HTTPClient.Request(.head, url: url(key)), "head", key, missingIsFine: true)
        guard response.status != 404 else { return nil }
        guard let text = response.headers["Last-Modified"], let date = HTTPDate.parse(text) else {
            throw BlobStoreError(operation: "head", path: object(key), reason: "the answer has no Last-Modified date")
        }
        return (Int64(response.headers["Content-Length"] ?? "") ?? 0, date)
    }

    /// Deletes `key`; a missing object is no error.
    public func deleteObject(_ key: String) async throws(BlobStoreError) {
        _ = try await send(HTTPClient.Request(.delete, url: url(key)), "delete", key, missingIsFine: true)
    }

    /// One object in a listing.
    public struct Listing: Sendable, Hashable {
        /// Its key.
        public var key: String
        /// Its length.
        public var size: Int64
        /// When it was last written.
        public var lastModified: Date
    }

    /// Every object whose key starts with `prefix`, following the store's pages (ListObjectsV2) of `pageSize` keys
    /// (the store's default, 1,000 at most, when nil).
    public func listObjects(prefix: String, pageSize: Int? = nil) async throws(BlobStoreError) -> [Listing] {
        var listings: [Listing] = []
        var token: String?
        var seen: Set<String> = []
        let dates = ISO8601DateFormatter()
        repeat {
            var query = "list-type=2&prefix=\(SignatureV4.uriEncode(prefix))"
            if let pageSize { query += "&max-keys=\(pageSize)" }
            if let token { query += "&continuation-token=\(SignatureV4.uriEncode(token))" }
            let response = try await send(HTTPClient.Request(.get, url: url(nil, query: query)), "list", prefix)
            let root = try Self.xml(response, "list", object(prefix))
            for entry in root.children("Contents") {
                guard let key = entry.child("Key")?.text, let stamp = entry.child("LastModified")?.text,
                    let modified = Self.isoDate(stamp, dates)
                else {
                    throw BlobStoreError(
                        operation: "list", path: object(prefix),
                        reason: "an entry lacks its Key or a readable LastModified: \(excerpt(response))")
                }
                listings.append(
                    Listing(key: key, size: Int64(entry.child("Size")?.text ?? "") ?? 0, lastModified: modified))
            }
            let truncated = root.child("IsTruncated")?.text == "true"
            token = root.child("NextContinuationToken")?.text
            if truncated && (token ?? "").isEmpty {
                throw BlobStoreError(
                    operation: "list", path: object(prefix),
                    reason: "the listing is truncated but names no continuation token")
            }
            if !truncated { token = nil }
            // A store that hands out a token twice would be listed forever.
            if let token, !seen.insert(token).inserted {
                throw BlobStoreError(
                    operation: "list", path: object(prefix),
                    reason: "the store gave the continuation token \(token) twice")
            }
        } while token != nil
        return listings
    }

    // MARK: The bucket

    /// Whether the bucket answers (for readiness): throws when the store cannot be reached or refuses the keys,
    /// returns false when there is no such bucket.
    public func bucketExists() async throws(BlobStoreError) -> Bool {
        // A listing of at most one key rather than a HEAD: a refusal then comes with the store's reason.
        let request = HTTPClient.Request(.get, url: url(nil, query: "list-type=2&max-keys=1"))
        return try await send(request, "check bucket", "", missingIsFine: true).status != 404
    }

    /// Creates the bucket; one that exists and is this account's is no error.
    public func createBucket() async throws(BlobStoreError) {
        var request = HTTPClient.Request(.put, url: url(nil))
        request.validatesStatus = false
        let response: HTTPClient.Response
        do {
            response = try await http.send(request)
        } catch {
            throw transportError(error, "create bucket", "")
        }
        if response.isSuccess { return }
        if Self.errorCode(response.body) == "BucketAlreadyOwnedByYou" { return }
        throw statusError(response.status, response.body, "create bucket", "")
    }

    // MARK: Plumbing

    /// `s3://bucket/key`, for messages.
    func object(_ key: String) -> String { "s3://\(bucket)/\(key)" }

    func url(_ key: String?, query: String? = nil) -> URL {
        var text = endpoint.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        text += "/" + SignatureV4.uriEncode(bucket)
        if let key { text += "/" + SignatureV4.uriEncode(key, keepingSlash: true) }
        if let query { text += "?" + query }
        return URL(string: text)!
    }

    private func send(
        _ request: HTTPClient.Request, _ operation: String, _ key: String, missingIsFine: Bool = false
    ) async throws(BlobStoreError) -> HTTPClient.Response {
        var request = request
        request.validatesStatus = false
        let response: HTTPClient.Response
        do {
            response = try await http.send(request)
        } catch {
            throw transportError(error, operation, key)
        }
        if response.isSuccess || (missingIsFine && response.status == 404) { return response }
        throw statusError(response.status, response.body, operation, key)
    }

    private func transportError(_ error: any Error, _ operation: String, _ key: String) -> BlobStoreError {
        BlobStoreError(operation: operation, path: object(key), reason: "\(error)")
    }

    private func statusError(_ status: Int, _ body: Data, _ operation: String, _ key: String) -> BlobStoreError {
        let root = try? XDocument.parse(data: body).root
        let code = root?.child("Code")?.text
        let message = root?.child("Message")?.text
        var reason = "HTTP \(status)"
        if let code { reason += " \(code)" }
        if let message, !message.isEmpty {
            reason += ": \(message)"
        } else if code == nil, !body.isEmpty {
            reason += ": " + String(decoding: body.prefix(200), as: UTF8.self)
        }
        return BlobStoreError(
            operation: operation, path: object(key), reason: reason,
            isMissing: status == 404 && (code == nil || code == "NoSuchKey"))
    }

    private func excerpt(_ response: HTTPClient.Response) -> String {
        String(decoding: response.body.prefix(200), as: UTF8.self)
    }

    static func errorCode(_ body: Data) -> String? { (try? XDocument.parse(data: body).root)?.child("Code")?.text }

    static func xml(
        _ response: HTTPClient.Response, _ operation: String, _ path: String
    ) throws(BlobStoreError) -> XElement {
        do {
            return try XDocument.parse(data: response.body).root
        } catch {
            throw BlobStoreError(
                operation: operation, path: path,
                reason:
                    "the answer is not XML (\(error)): \(String(decoding: response.body.prefix(200), as: UTF8.self))")
        }
    }

    /// Text with `&`, `<` and `>` escaped for an XML element.
    static func escaped(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;")
    }

    /// `2026-11-29T08:39:44.000Z`, with or without fractional seconds.
    static func isoDate(_ text: String, _ formatter: ISO8601DateFormatter = ISO8601DateFormatter()) -> Date? {
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}

/// Signs every attempt of every request (a retry is signed again, with its own time).
struct S3Signing: HTTPAuthProvider {
    let signer: SignatureV4

    func authorize(_ request: inout HTTPClient.Request, context: HTTPAuthContext) async throws {
        let hash: String
        if let given = request.headers["x-amz-content-sha256"] {
            hash = given
        } else if let body = request.body {
            hash = body.inMemoryData.map { SignatureV4.hex(SHA256.hash(data: $0)) } ?? SignatureV4.unsignedPayload
        } else {
            hash = SignatureV4.emptyPayloadHash
        }
        signer.sign(&request, payloadHash: hash)
    }
}
