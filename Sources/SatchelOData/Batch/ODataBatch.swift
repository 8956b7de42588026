public import SatchelHTTP

/// Requests sent together in one `$batch` request: reads, and changesets whose changes succeed or fail as one.
///
/// Every part gets a number in request order, sent as its `Content-ID` (JSON batch: `id`); a later change
/// can address an entity created earlier through the reference's ``ODataBatchReference/path`` (`$1`).
///
/// ```swift
/// var batch = ODataBatch()
/// let students = batch.page("StudentSet", query: ODataQuery().top(10))
/// let visit = batch.changeset { changes in
///     let created = changes.create("StudentSet", ODataEntity(properties: ["LastName": "Lovelace"]))
///     return changes.create(created.path.navigate("Visits"), ODataEntity(properties: ["VisitNo": 1]))
/// }
/// let response = try await service.send(batch)
/// print(try response[students].page().entities.count, response[visit].status ?? 0)
/// ```
public struct ODataBatch: Sendable {
    /// The wire format; `nil` uses the service's ``ODataService/Configuration/batchFormat``.
    public var format: ODataBatchFormat?
    /// V4: asks the service to go on after a failed part (`Prefer: odata.continue-on-error`). Without it a V4
    /// service may stop at the first failure, and the parts after it come back as
    /// ``ODataError/Code/notExecuted``. SAP Gateway (V2) always goes on.
    public var continueOnError: Bool
    /// Headers of the outer `POST $batch` (for instance `Repeatability-Request-ID` for the batch as a whole).
    public var headers: HTTPClient.Headers = [:]

    /// The parts: single requests and changesets, in request order.
    public private(set) var entries: [Entry] = []
    /// How many parts (requests) the batch holds, changeset members included.
    public private(set) var partCount = 0

    /// A top-level part of a batch.
    public enum Entry: Sendable {
        /// A single request outside any changeset.
        case request(ODataBatchRequest)
        /// Changes applied atomically; an empty changeset is never added.
        case changeset([ODataBatchRequest])
    }

    /// An empty batch in `format` (`nil`: the service's default); `continueOnError` asks a V4 service to go on
    /// after a failed part.
    public init(format: ODataBatchFormat? = nil, continueOnError: Bool = false) {
        self.format = format
        self.continueOnError = continueOnError
    }

    /// The requests in request order, changeset members flattened.
    public var requests: [ODataBatchRequest] {
        entries.flatMap { entry -> [ODataBatchRequest] in
            switch entry {
            case .request(let request): [request]
            case .changeset(let requests): requests
            }
        }
    }

    // MARK: Reads

    /// Reads one page of a collection (an entity set, a navigation path, a function returning entities);
    /// the result's ``ODataBatchResult/page()`` holds the entities, count and next link.
    @discardableResult
    public mutating func page(_ path: ODataPath, query: ODataQuery = ODataQuery()) -> ODataBatchReference {
        append(.read(path, query, .page))
    }

    /// Reads one entity: keyed, a singleton, or a to-one navigation (`StudentSet('1')/School`).
    @discardableResult
    public mutating func entity(_ path: ODataPath, query: ODataQuery = ODataQuery()) -> ODataBatchReference {
        append(.read(path, query, .entity))
    }

    /// Reads one entity by key.
    @discardableResult
    public mutating func entity(_ set: String, key: ODataKey, query: ODataQuery = ODataQuery()) -> ODataBatchReference {
        entity(ODataPath(set).key(key), query: query)
    }

    /// Counts a collection (`…/$count`) with the query's filter and search.
    @discardableResult
    public mutating func count(_ path: ODataPath, query: ODataQuery = ODataQuery()) -> ODataBatchReference {
        append(.read(path, query, .count))
    }

    /// Calls a function (a read): a V2 function import sent with GET, a V4 function. Actions and V2 imports
    /// that POST belong in a changeset.
    @discardableResult
    public mutating func call(
        _ name: String, parameters: KeyValuePairs<String, ODataValue> = [:], boundTo path: ODataPath? = nil
    ) -> ODataBatchReference {
        append(.call(name, parameters.map { ($0.key, $0.value) }, boundTo: path))
    }

    // MARK: Changesets

    /// Adds a changeset: the changes `build` makes are applied all or none. Returns what `build` returns,
    /// typically references to the changes.
    ///
    /// ```swift
    /// let (created, linked) = batch.changeset { changes in
    ///     let created = changes.create("People", person)
    ///     return (created, changes.addLink(from: created.path, navigation: "Friends", to: "People('russell')"))
    /// }
    /// ```
    @discardableResult
    public mutating func changeset<Result>(_ build: (inout Changeset) throws -> Result) rethrows -> Result {
        var changeset = Changeset(firstIndex: partCount, number: changesetCount + 1)
        let result = try build(&changeset)
        if !changeset.requests.isEmpty {
            entries.append(.changeset(changeset.requests))
            partCount += changeset.requests.count
        }
        return result
    }

    private var changesetCount: Int {
        entries.reduce(0) { count, entry in
            if case .changeset = entry { return count + 1 }
            return count
        }
    }

    private mutating func append(_ operation: ODataBatchRequest.Operation) -> ODataBatchReference {
        let reference = ODataBatchReference(index: partCount)
        entries.append(.request(ODataBatchRequest(reference: reference, operation: operation, changeset: nil)))
        partCount += 1
        return reference
    }

    /// The changes of one changeset, built inside ``ODataBatch/changeset(_:)``.
    public struct Changeset: Sendable {
        /// The changes added so far, in order.
        public private(set) var requests: [ODataBatchRequest] = []
        private let firstIndex: Int
        private let number: Int

        init(firstIndex: Int, number: Int) {
            self.firstIndex = firstIndex
            self.number = number
        }

        /// Creates an entity (deep insert and bindings as in `ODataService.create(_:_:headers:)`). A later change
        /// in the batch addresses it through the reference's ``ODataBatchReference/path``.
        @discardableResult
        public mutating func create(
            _ path: ODataPath, _ entity: ODataEntity, headers: HTTPClient.Headers = [:]
        ) -> ODataBatchReference {
            append(.create(path, entity), headers: headers)
        }

        /// Updates the entity at `path` (or at a reference's path): MERGE/PATCH or PUT, guarded by `ifMatch`.
        @discardableResult
        public mutating func update(
            _ path: ODataPath, with entity: ODataEntity, method: ODataUpdateMethod = .merge,
            ifMatch etag: String? = nil, headers: HTTPClient.Headers = [:]
        ) -> ODataBatchReference {
            append(.update(path, entity, method, ifMatch: etag), headers: headers)
        }

        /// Updates one entity by key.
        @discardableResult
        public mutating func update(
            _ set: String, key: ODataKey, with entity: ODataEntity, method: ODataUpdateMethod = .merge,
            ifMatch etag: String? = nil
        ) -> ODataBatchReference {
            update(ODataPath(set).key(key), with: entity, method: method, ifMatch: etag)
        }

        /// Deletes the entity at `path`, guarded by `ifMatch` (`"*"` matches any version).
        @discardableResult
        public mutating func delete(
            _ path: ODataPath, ifMatch etag: String? = nil, headers: HTTPClient.Headers = [:]
        ) -> ODataBatchReference {
            append(.delete(path, ifMatch: etag), headers: headers)
        }

        /// Links `source` to `target` through a navigation property (V4 `$ref`, V2 `$links`); either may be a
        /// reference's path.
        @discardableResult
        public mutating func addLink(
            from source: ODataPath, navigation: String, to target: ODataPath, replace: Bool = false,
            headers: HTTPClient.Headers = [:]
        ) -> ODataBatchReference {
            append(.addLink(source, navigation, target, replace: replace), headers: headers)
        }

        /// Removes a link (for a to-one navigation, pass `target: nil`).
        @discardableResult
        public mutating func removeLink(
            from source: ODataPath, navigation: String, to target: ODataPath? = nil, headers: HTTPClient.Headers = [:]
        ) -> ODataBatchReference {
            append(.removeLink(source, navigation, target), headers: headers)
        }

        /// Calls an action, or a V2 function import that changes data.
        @discardableResult
        public mutating func call(
            _ name: String, parameters: KeyValuePairs<String, ODataValue> = [:], boundTo path: ODataPath? = nil
        ) -> ODataBatchReference {
            append(.call(name, parameters.map { ($0.key, $0.value) }, boundTo: path))
        }

        private mutating func append(
            _ operation: ODataBatchRequest.Operation, headers: HTTPClient.Headers = [:]
        ) -> ODataBatchReference {
            let reference = ODataBatchReference(index: firstIndex + requests.count)
            requests.append(
                ODataBatchRequest(reference: reference, operation: operation, changeset: number, headers: headers))
            return reference
        }
    }
}

/// One request of a batch, as the caller described it; the service writes it for its version when sent.
public struct ODataBatchRequest: Sendable {
    /// What the request does.
    public enum Operation: Sendable {
        /// A GET of a path with query options, and what to read from the answer.
        case read(ODataPath, ODataQuery, Expectation)
        /// A POST creating an entity in a collection.
        case create(ODataPath, ODataEntity)
        /// A MERGE/PATCH or PUT of the entity at a path, with an optional `If-Match` ETag.
        case update(ODataPath, ODataEntity, ODataUpdateMethod, ifMatch: String?)
        /// A DELETE of the entity at a path, with an optional `If-Match` ETag.
        case delete(ODataPath, ifMatch: String?)
        /// A link from the first path through the named navigation property to the second; `replace` sets a to-one
        /// link.
        case addLink(ODataPath, String, ODataPath, replace: Bool)
        /// Removes a link through the named navigation property (to the given target, or the to-one link when `nil`).
        case removeLink(ODataPath, String, ODataPath?)
        /// An operation call by name, with its parameters in order, optionally bound to a path.
        case call(String, [(String, ODataValue)], boundTo: ODataPath?)
    }

    /// What a read returns.
    public enum Expectation: Sendable, Hashable {
        /// A page of a collection: entities, count and next link.
        case page
        /// One entity.
        case entity
        /// A number (`$count`).
        case count
    }

    /// The request's position and `Content-ID`.
    public let reference: ODataBatchReference
    /// What the request does.
    public let operation: Operation
    /// The changeset's number (1, 2, …) for a change; `nil` for a request outside changesets.
    public let changeset: Int?
    /// Headers of this part, besides the ones the request's kind sets (`Repeatability-Request-ID`, …).
    public var headers: HTTPClient.Headers = [:]
}

/// A part of a batch: its position in request order and its `Content-ID`.
///
/// ```swift
/// let created = changes.create("People", person)
/// changes.update(created.path, with: patch)        // PATCH $1
/// ```
public struct ODataBatchReference: Sendable, Hashable, CustomStringConvertible {
    /// The part's position in the batch, from 0, changeset members counted.
    public let index: Int

    /// The reference to the part at `index` (from 0).
    public init(index: Int) { self.index = index }

    /// The part's `Content-ID` (JSON batch: `id`): its position from 1.
    public var contentID: String { String(index + 1) }

    /// The path that stands for the entity this part created or addressed (`$1`), for later changes.
    public var path: ODataPath { .raw("$" + contentID) }

    /// The reference's path text: `$1` for the first part.
    public var description: String { "$" + contentID }
}

/// How a batch travels.
public enum ODataBatchFormat: Sendable, Hashable {
    /// `multipart/mixed` with nested changesets (OData V2 and V4.0): what every server understands.
    case multipart
    /// The OData 4.01 JSON batch (`requests`/`responses`, `atomicityGroup`, `dependsOn`); V4 only.
    case json
}
