import Crypto
public import Foundation
import SatchelHTTP
public import SatchelRepository
import SatchelText

/// Blobs as objects in an S3-compatible bucket (`satchel serve --blobs s3://…`): what several server processes share.
///
/// Each blob is the object `prefix + hash`. A blob arrives whole (the `BlobStore` wrote and hashed it into a local
/// scratch file first): up to ``Configuration/multipartThreshold`` it is one PUT whose `x-amz-content-sha256` is the
/// blob's own hash, so the store itself checks the bytes it received against the name; larger blobs go as a
/// multipart upload in ``Configuration/partSize`` parts, ``Configuration/concurrentParts`` at a time, each part signed
/// with its own SHA-256 (read again from the scratch file) so the store checks every byte, and an upload that fails
/// is aborted. Reads stream a ranged GET; nothing is buffered whole.
///
/// An object store has no way to mark an object as recently used, so storing bytes already stored sends them again:
/// the new write's date is what spares the blob from another node's collection.
///
/// ```swift
/// let configuration = try S3BlobBackend.Configuration(
///     url: "s3://satchel-blobs?endpoint=http://127.0.0.1:8080&region=us-east-1")
/// let blobs = try BlobStore(backend: S3BlobBackend(configuration), scratchDirectory: scratch)
/// ```
public struct S3BlobBackend: BlobBackend {
    /// Where the bucket is, how to sign, and how uploads are cut.
    public struct Configuration: Sendable {
        /// The store's URL (`http://127.0.0.1:8080`, `https://s3.eu-central-1.amazonaws.com`).
        public var endpoint: URL
        /// The bucket.
        public var bucket: String
        /// Put before every blob's name (`blobs/`; empty by default).
        public var prefix: String
        /// The signing region (`us-east-1` unless the store says otherwise).
        public var region: String
        /// The keys.
        public var credentials: S3Credentials
        /// Blobs up to this size go in one PUT (64 MiB by default).
        public var multipartThreshold: Int64
        /// The size of each part of a larger blob (64 MiB by default; S3 wants at least 5 MiB, and at most 10,000
        /// parts).
        public var partSize: Int64
        /// Parts sent at the same time (2 by default).
        public var concurrentParts: Int
        /// The longest a call waits for the store to answer or to send more bytes (60 seconds by default).
        public var timeout: Duration

        /// A configuration of its parts.
        public init(
            endpoint: URL, bucket: String, prefix: String = "", region: String = "us-east-1",
            credentials: S3Credentials, multipartThreshold: Int64 = 64 << 20, partSize: Int64 = 64 << 20,
            concurrentParts: Int = 2, timeout: Duration = .seconds(60)
        ) {
            self.endpoint = endpoint
            self.bucket = bucket
            self.prefix = prefix
            self.region = region
            self.credentials = credentials
            self.multipartThreshold = multipartThreshold
            self.partSize = max(5 << 20, partSize)
            self.concurrentParts = max(1, concurrentParts)
            self.timeout = timeout
        }

        /// Reads `s3://BUCKET[/PREFIX]?endpoint=URL[&region=REGION][&credentials=FILE][&profile=NAME]`
        /// `[&part-size=MiB][&multipart-threshold=MiB][&concurrent-parts=N]`.
        ///
        /// Credentials come from the owner-only file `credentials` names (AWS shared-credentials format, `profile`
        /// or `default`), else from `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY` in `environment`. A URL never
        /// carries keys: one with a user or password is refused.
        ///
        /// - Throws: ``S3ConfigurationError`` naming what is wrong.
        public init(
            url text: String, environment: [String: String] = ProcessInfo.processInfo.environment
        ) throws(S3ConfigurationError) {
            // Messages never repeat the text: it might hold keys.
            guard let components = URLComponents(string: text), components.scheme?.lowercased() == "s3" else {
                throw S3ConfigurationError("--blobs takes an s3://BUCKET[/PREFIX]?endpoint=URL address")
            }
            guard components.user == nil, components.password == nil else {
                throw S3ConfigurationError(
                    "an s3:// address must not carry keys: give them in AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY "
                        + "or in an owner-only file named by credentials=FILE")
            }
            guard let bucket = components.host, !bucket.isEmpty else {
                throw S3ConfigurationError("the s3:// address names no bucket (s3://BUCKET?endpoint=URL)")
            }
            var query: [String: String] = [:]
            for item in components.queryItems ?? [] {
                let known = [
                    "endpoint", "region", "credentials", "profile", "part-size", "multipart-threshold",
                    "concurrent-parts",
                ]
                guard known.contains(item.name) else {
                    throw S3ConfigurationError(
                        "unknown s3:// setting '\(item.name)' (known: \(known.joined(separator: ", ")))")
                }
                query[item.name] = item.value ?? ""
            }
            guard let endpointText = query["endpoint"], let endpoint = URL(string: endpointText),
                let scheme = endpoint.scheme?.lowercased(), scheme == "http" || scheme == "https", endpoint.host != nil
            else {
                throw S3ConfigurationError(
                    "the s3:// address needs endpoint=http(s)://HOST[:PORT] (the store's address)")
            }
            guard endpoint.user == nil, endpoint.password == nil, endpoint.query == nil else {
                throw S3ConfigurationError(
                    "the endpoint must be a plain http(s)://HOST[:PORT] address, without keys or a query: give keys in "
                        + "AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY or in an owner-only file named by credentials=FILE"
                )
            }
            func mebibytes(_ name: String, _ fallback: Int64) throws(S3ConfigurationError) -> Int64 {
                guard let value = query[name] else { return fallback }
                guard let number = Int64(value), number >= 5, number <= 5 * 1024 else {
                    throw S3ConfigurationError("\(name)=\(value) must be a number of MiB between 5 and 5120")
                }
                return number << 20
            }
            let credentials: S3Credentials
            if let file = query["credentials"], !file.isEmpty {
                credentials = try S3Credentials.fromFile(
                    URL(fileURLWithPath: file), profile: query["profile"] ?? "default")
            } else {
                credentials = try S3Credentials.fromEnvironment(environment)
            }
            var concurrent = 2
            if let value = query["concurrent-parts"] {
                guard let number = Int(value), (1...16).contains(number) else {
                    throw S3ConfigurationError("concurrent-parts=\(value) must be between 1 and 16")
                }
                concurrent = number
            }
            var prefix = String(components.path.drop { $0 == "/" })
            if !prefix.isEmpty && !prefix.hasSuffix("/") { prefix += "/" }
            self.init(
                endpoint: endpoint, bucket: bucket, prefix: prefix, region: query["region"] ?? "us-east-1",
                credentials: credentials,
                multipartThreshold: try mebibytes("multipart-threshold", 64 << 20),
                partSize: try mebibytes("part-size", 64 << 20), concurrentParts: concurrent)
        }
    }

    /// The settings.
    public let configuration: Configuration
    /// The client that sends the calls.
    public let client: S3Client

    /// A back-end on the bucket `configuration` names. Nothing is sent until it is used (``checkBucket()``).
    public init(_ configuration: Configuration) {
        self.configuration = configuration
        client = S3Client(
            endpoint: configuration.endpoint, bucket: configuration.bucket, region: configuration.region,
            credentials: configuration.credentials, timeout: configuration.timeout)
    }

    /// `s3://bucket/prefix`.
    public var location: String { "s3://\(configuration.bucket)/\(configuration.prefix)" }

    func key(_ hash: String) -> String { configuration.prefix + hash }

    /// Throws unless the bucket answers to these keys: for start-up and readiness.
    public func checkBucket() async throws(BlobStoreError) {
        guard try await client.bucketExists() else {
            throw BlobStoreError(
                operation: "open", path: location, reason: "there is no bucket \(configuration.bucket)", isMissing: true
            )
        }
    }

    /// The part size: the writer hashes each part as the bytes arrive, so no part is read twice.
    public var partSize: Int64? { configuration.partSize }

    /// One PUT signed with the blob's hash, or a multipart upload whose parts are signed with `partDigests` (read
    /// again from the file when they do not fit); the scratch file is removed either way.
    public func store(_ file: URL, as reference: BlobReference, partDigests: [String]) async throws(BlobStoreError) {
        defer { try? FileManager.default.removeItem(at: file) }
        let key = key(reference.hash)
        if reference.length <= configuration.multipartThreshold {
            try await client.putObject(key, file: file, length: reference.length, sha256: reference.hash)
            return
        }
        let uploadID = try await client.createMultipartUpload(key)
        do {
            let parts = try await uploadParts(
                file, length: reference.length, key: key, uploadID: uploadID, digests: partDigests)
            try await client.completeMultipartUpload(key, uploadID: uploadID, parts: parts)
        } catch {
            // From a task of its own: a cancelled upload's task could send nothing more, and the parts would stay.
            let client = client
            Task.detached { try? await client.abortMultipartUpload(key, uploadID: uploadID) }
            throw error
        }
    }

    /// Sends every part, at most ``Configuration/concurrentParts`` at a time, and returns their ETags in order.
    private func uploadParts(
        _ file: URL, length: Int64, key: String, uploadID: String, digests: [String]
    ) async throws(BlobStoreError) -> [String] {
        let size = max(configuration.partSize, (length + 9_999) / 10_000)
        let count = Int((length + size - 1) / size)
        // The writer's digests fit these parts unless a huge blob needed larger ones (S3 takes 10,000 at most).
        let known = size == configuration.partSize && digests.count == count ? digests : nil
        let client = client
        do {
            return try await withThrowingTaskGroup(of: (Int, String).self) { group in
                var etags = [String](repeating: "", count: count)
                var next = 0
                func start() {
                    let number = next
                    let offset = Int64(number) * size
                    group.addTask {
                        let partLength = min(size, length - offset)
                        // Each part signed with its own hash: the store checks every byte it receives.
                        let sha256: String
                        if let known {
                            sha256 = known[number]
                        } else {
                            sha256 = try await Self.sha256(of: file, offset: offset, length: partLength)
                        }
                        let etag = try await client.uploadPart(
                            key, uploadID: uploadID, number: number + 1, file: file, offset: offset,
                            length: partLength, sha256: sha256)
                        return (number, etag)
                    }
                    next += 1
                }
                while next < min(count, configuration.concurrentParts) { start() }
                while let (number, etag) = try await group.next() {
                    etags[number] = etag
                    if next < count { start() }
                }
                return etags
            }
        } catch let error as BlobStoreError {
            throw error
        } catch {
            throw BlobStoreError(operation: "put", path: client.object(key), reason: "\(error)")
        }
    }

    /// A ranged GET, checked to deliver exactly the bytes asked for.
    public func read(
        _ blob: BlobReference, range: ClosedRange<Int64>?
    ) async throws(BlobStoreError) -> AsyncThrowingStream<[UInt8], any Error> {
        let key = key(blob.hash)
        let expected = range.map { $0.upperBound - $0.lowerBound + 1 } ?? blob.length
        if expected == 0 {
            // Nothing to read, but a missing blob is still missing.
            guard try await client.headObject(key) != nil else {
                throw BlobStoreError(
                    operation: "read", path: client.object(key), reason: "no such blob", isMissing: true)
            }
            return AsyncThrowingStream { nil }
        }
        let wanted = range ?? 0...(blob.length - 1)
        let response = try await client.getObject(key, range: wanted)
        let object = client.object(key)
        // The bytes asked for, not the object from its start: a store or proxy that ignores Range answers 200.
        if response.status != 206 || !Self.contentRange(response.headers["Content-Range"], matches: wanted) {
            let whole =
                wanted.lowerBound == 0 && response.status == 200
                && Int64(response.headers["Content-Length"] ?? "") == wanted.upperBound + 1
            guard whole else {
                response.cancel()
                throw BlobStoreError(
                    operation: "read", path: object,
                    reason: "asked for bytes \(wanted.lowerBound)-\(wanted.upperBound), the store answered "
                        + "\(response.status) \(response.headers["Content-Range"] ?? "without a Content-Range")")
            }
        }
        let reader = ExactBodyReader(body: response.body, expected: expected, object: object)
        return AsyncThrowingStream { try await reader.next() }
    }

    /// The lower-case hex SHA-256 of `length` bytes of `file` from `offset`, read on a dispatch thread.
    static func sha256(of file: URL, offset: Int64, length: Int64) async throws(BlobStoreError) -> String {
        try await BlockingWork.shared.run { () throws(BlobStoreError) -> String in
            let handle: FileHandle
            do {
                handle = try FileHandle(forReadingFrom: file)
                try handle.seek(toOffset: UInt64(offset))
            } catch {
                throw BlobStoreError(operation: "read", path: file.path, reason: "\(error)")
            }
            defer { try? handle.close() }
            var hasher = SHA256()
            var left = length
            while left > 0 {
                let chunk: Data?
                do {
                    chunk = try handle.read(upToCount: Int(min(left, 1 << 20)))
                } catch {
                    throw BlobStoreError(operation: "read", path: file.path, reason: "\(error)")
                }
                guard let chunk, !chunk.isEmpty else {
                    throw BlobStoreError(
                        operation: "read", path: file.path, reason: "the file ends before its part does")
                }
                hasher.update(data: chunk)
                left -= Int64(chunk.count)
            }
            return Hex.lowercase(hasher.finalize())
        }
    }

    /// Whether `header` (`bytes 10-19/100`) names exactly `range`.
    static func contentRange(_ header: String?, matches range: ClosedRange<Int64>) -> Bool {
        guard let header, header.hasPrefix("bytes ") else { return false }
        let span = header.dropFirst(6).split(separator: "/", maxSplits: 1).first ?? ""
        let ends = span.split(separator: "-", maxSplits: 1)
        guard ends.count == 2, let first = Int64(ends[0]), let last = Int64(ends[1]) else { return false }
        return first == range.lowerBound && last == range.upperBound
    }

    /// A listing of at most one key: the bucket answers to these keys.
    public func checkAvailable() async throws(BlobStoreError) { try await checkBucket() }

    /// A HEAD's `Last-Modified`.
    public func lastWritten(_ hash: String) async throws(BlobStoreError) -> Date? {
        try await client.headObject(key(hash))?.lastModified
    }

    /// A DELETE.
    public func remove(_ hash: String) async throws(BlobStoreError) {
        try await client.deleteObject(key(hash))
    }

    /// The bucket's objects under the prefix whose names are blob names.
    public func list() async throws(BlobStoreError) -> [BlobListing] {
        try await client.listObjects(prefix: configuration.prefix).compactMap { listing in
            let name = String(listing.key.dropFirst(configuration.prefix.count))
            return BlobName.isValid(name) ? BlobListing(hash: name, lastWritten: listing.lastModified) : nil
        }
    }
}

/// A response body read to exactly `expected` bytes: fewer or more is an error, never content cut short or run on.
/// Read by one consumer at a time (the stream pulls one chunk after another), so it needs no lock.
private final class ExactBodyReader: @unchecked Sendable {
    private let body: HTTPResponseBody
    private var iterator: HTTPResponseBody.AsyncIterator
    private let expected: Int64
    private let object: String
    private var received: Int64 = 0

    init(body: HTTPResponseBody, expected: Int64, object: String) {
        self.body = body
        iterator = body.makeAsyncIterator()
        self.expected = expected
        self.object = object
    }

    func next() async throws -> [UInt8]? {
        guard let chunk = try await iterator.next() else {
            guard received == expected else {
                throw BlobStoreError(
                    operation: "read", path: object,
                    reason: "the store sent \(received) bytes where \(expected) were expected")
            }
            return nil
        }
        received += Int64(chunk.count)
        guard received <= expected else {
            body.cancel()
            throw BlobStoreError(
                operation: "read", path: object, reason: "the store sent more than the \(expected) bytes expected")
        }
        return [UInt8](chunk)
    }
}
