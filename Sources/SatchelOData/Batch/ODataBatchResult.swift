public import Foundation
public import SatchelHTTP

/// The answer to a batch: one result per request, in request order.
///
/// ```swift
/// let response = try await service.send(batch)
/// for result in response where !result.succeeded { print(result.operation, result.error!) }
/// let students = try response[studentsReference].page().entities
/// ```
public struct ODataBatchResponse: Sendable, RandomAccessCollection {
    /// The results in request order (changeset members in place).
    public var results: [ODataBatchResult]
    /// The status of the outer `$batch` response (200, or 202 from SAP Gateway).
    public var status: Int
    /// The headers of the outer response.
    public var headers: HTTPClient.Headers

    /// A response with the given results, status and headers.
    public init(results: [ODataBatchResult], status: Int, headers: HTTPClient.Headers = [:]) {
        self.results = results
        self.status = status
        self.headers = headers
    }

    /// The index of the first result: 0.
    public var startIndex: Int { results.startIndex }
    /// The index after the last result: the number of results.
    public var endIndex: Int { results.endIndex }
    /// The result at `position` in request order (changeset members counted).
    public subscript(position: Int) -> ODataBatchResult { results[position] }

    /// The result of the part `reference` names.
    public subscript(reference: ODataBatchReference) -> ODataBatchResult { results[reference.index] }

    /// Whether every part succeeded.
    public var allSucceeded: Bool { results.allSatisfy(\.succeeded) }

    /// The errors of the parts that failed, in request order (a failed changeset's error once per change).
    public var errors: [ODataError] { results.compactMap(\.error) }
}

/// What one request of a batch got back: its status, headers and decoded content, or its error.
///
/// A change in a failed changeset carries the changeset's one error, since the service rolled the whole
/// changeset back. A part the service never answered has no status and the error code
/// ``ODataError/Code/notExecuted``.
public struct ODataBatchResult: Sendable {
    /// What a successful part returned, decoded for its request.
    public enum Content: Sendable, Hashable {
        /// No body (204, a delete, a link), or a part that failed.
        case none
        /// An entity read, created, or returned by an update.
        case entity(ODataEntity)
        /// A page read.
        case page(ODataPage)
        /// A count read.
        case count(Int64)
        /// An operation's result.
        case value(ODataValue)
    }

    /// The request this result answers.
    public var reference: ODataBatchReference
    /// What the request was for (`create in People`, `read People`).
    public var operation: String
    /// The request's HTTP method.
    public var method: HTTPClient.Method
    /// The request's URL relative to the service root, as sent (`People?$top=2`, `$1/Friends/$ref`).
    public var url: String
    /// The part's status; `nil` when the service sent no response for it.
    public var status: Int?
    /// The part's response headers.
    public var headers: HTTPClient.Headers
    /// The part's body as sent by the server.
    public var body: Data
    /// The body decoded for the request's kind; `.none` when the part failed or sent no body.
    public var content: Content
    /// The part's error: the service's error (read from its body), the changeset's error, a body that could
    /// not be decoded, or ``ODataError/Code/notExecuted``.
    public var error: ODataError?

    /// A result with the given parts.
    public init(
        reference: ODataBatchReference, operation: String, method: HTTPClient.Method, url: String, status: Int? = nil,
        headers: HTTPClient.Headers = [:], body: Data = Data(), content: Content = .none, error: ODataError? = nil
    ) {
        self.reference = reference
        self.operation = operation
        self.method = method
        self.url = url
        self.status = status
        self.headers = headers
        self.body = body
        self.content = content
        self.error = error
    }

    /// Whether the part was answered with a 2xx status and its body was read.
    public var succeeded: Bool { error == nil && (status.map { (200..<300).contains($0) } ?? false) }

    /// The ETag: the entity's own, else the part's `ETag` header.
    public var etag: String? {
        if case .entity(let entity) = content, let etag = entity.etag { return etag }
        return headers["ETag"]
    }

    /// `Location` of a created entity.
    public var location: String? { headers["Location"] }

    /// The content, or the part's error thrown.
    public func get() throws -> Content {
        if let error { throw error }
        return content
    }

    /// The entity read, created or returned by an update; throws the part's error, or `invalidPayload` when the
    /// part returned no entity.
    public func entity() throws -> ODataEntity {
        if case .entity(let entity) = try get() { return entity }
        if case .value(.entity(let entity)) = content { return entity }
        throw mismatch("an entity")
    }

    /// The page read; throws the part's error, or `invalidPayload` when the part returned no page.
    public func page() throws -> ODataPage {
        if case .page(let page) = try get() { return page }
        if case .value(.entities(let entities)) = content { return ODataPage(entities: entities) }
        throw mismatch("a page")
    }

    /// The count read; throws the part's error, or `invalidPayload` when the part returned no count.
    public func count() throws -> Int64 {
        if case .count(let count) = try get() { return count }
        throw mismatch("a count")
    }

    /// An operation's result (`.null` when it returned nothing); throws the part's error.
    public func value() throws -> ODataValue {
        switch try get() {
        case .value(let value): return value
        case .none: return .null
        case .entity(let entity): return .entity(entity)
        case .page(let page): return .entities(page.entities)
        case .count(let count): return .int(count)
        }
    }

    private func mismatch(_ expected: String) -> ODataError {
        ODataError(
            .invalidPayload, "part \(reference) returned \(content.kind), not \(expected)", status: status,
            method: method, operation: operation)
    }
}

extension ODataBatchResult.Content {
    var kind: String {
        switch self {
        case .none: "no content"
        case .entity: "an entity"
        case .page: "a page"
        case .count: "a count"
        case .value: "a value"
        }
    }
}
