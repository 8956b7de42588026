import Foundation
package import SatchelOData

/// Whether a defining query is downloaded as deltas (SAP's `track_deltas`).
public enum OfflineDeltaTracking: String, Sendable, Hashable, CaseIterable {
    /// Deltas, unless the query has `$expand` or brings media streams (their changes seldom show in a delta):
    /// those are read in full each time, content only when its media ETag changed.
    case auto
    /// Deltas whenever the service offers them (it reports changes of expanded entities and content).
    case always
    /// Every download reads the query in full (and removes what vanished).
    case never
}

/// Data an app needs offline, named: an OData read request relative to the service (`Products`,
/// `/Sessions?$filter=EventID eq 10000L`, `Events?$filter=…&$expand=Features`).
public struct OfflineDefiningQuery: Sendable, Hashable {
    /// The query's name, unique in a store: what `OfflineStore.removeDefiningQuery(named:)` takes.
    public var name: String
    /// The request: an entity set and its query options.
    public var query: String
    /// Whether the content of its media entities comes along (read with ``OfflineStore/media(_:_:)``); downloaded
    /// again only when an entity's media ETag changed.
    public var retrievesStreams: Bool
    /// Whether later downloads ask for the changes only (SAP's `track_deltas`).
    public var deltaTracking: OfflineDeltaTracking

    /// A defining query named `name` that reads `query`; by default without media content and with deltas where
    /// they work (`auto`). The query is checked against the service's metadata when a store opens or adds it.
    public init(
        name: String, query: String, retrievesStreams: Bool = false, deltaTracking: OfflineDeltaTracking = .auto
    ) {
        self.name = name
        self.query = query
        self.retrievesStreams = retrievesStreams
        self.deltaTracking = deltaTracking
    }

    /// Whether a download asks the service to track changes for this query.
    var tracksChanges: Bool {
        switch deltaTracking {
        case .always: true
        case .never: false
        // Services seldom report changes of expanded entities in a delta (OData lets them send the parent again,
        // or `$link`/`$deletedLink`; many send nothing), nor changes of media content alone.
        case .auto: !retrievesStreams && !query.contains("$expand=")
        }
    }

    /// The entity set the query reads (what comes before `?`).
    public var entitySet: String { String(request.prefix { $0 != "?" }) }

    /// The query without spaces around it and its leading `/`.
    private var request: Substring {
        let text = query.trimmingCharacters(in: .whitespaces)
        return text.hasPrefix("/") ? text.dropFirst() : Substring(text)
    }

    /// What the query stores of each entity (its `$select`) and which related entities come with it (its
    /// `$expand`).
    func shape(version: ODataVersion, schema: OfflineSchema) throws(OfflineStoreError) -> OfflineShape {
        let (set, query) = try parsed(version: version)
        do {
            return try OfflineShape(
                table: try schema.table(set), select: query.select,
                expand: query.expand.map(\.path).joined(separator: ","), schema: schema)
        } catch {
            throw OfflineStoreError(.invalidDefiningQuery, "defining query \(name): \(error.message)")
        }
    }

    /// The query's entity set and options, its `$filter` parsed for `version`.
    package func parsed(version: ODataVersion) throws(OfflineStoreError) -> (entitySet: String, query: ODataQuery) {
        let parts = request.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let set = entitySet
        guard !set.isEmpty, set.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" || $0 == "." }) else {
            throw OfflineStoreError(
                .invalidDefiningQuery,
                "defining query \(name): '\(set)' is not an entity set (navigation paths come later)")
        }
        var result = ODataQuery()
        guard parts.count > 1 else { return (set, result) }
        for option in parts[1].split(separator: "&") {
            let pair = option.split(separator: "=", maxSplits: 1)
            let key = String(pair[0])
            let value = pair.count > 1 ? (String(pair[1]).removingPercentEncoding ?? String(pair[1])) : ""
            switch key {
            case "$filter":
                do {
                    result = result.filter(try ODataExpression.parse(value, version: version))
                } catch {
                    throw OfflineStoreError(
                        .invalidDefiningQuery, "defining query \(name): $filter: \(error.message)", underlying: error)
                }
            case "$select":
                result = result.select(value.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
            case "$expand":
                // Items may carry their own options: `Items($select=A,B;$expand=Product)`.
                for path in OfflineShape.split(value, at: ",") {
                    result = result.expand(path.trimmingCharacters(in: .whitespaces))
                }
            case "$orderby": result = result.orderBy(list: value)
            case "$top":
                guard let count = Int(value), count >= 0 else {
                    throw OfflineStoreError(.invalidDefiningQuery, "defining query \(name): bad $top")
                }
                result = result.top(count)
            case "$skip":
                guard let count = Int(value), count >= 0 else {
                    throw OfflineStoreError(.invalidDefiningQuery, "defining query \(name): bad $skip")
                }
                result = result.skip(count)
            default:
                result.customOptions.append((name: key, value: value))
            }
        }
        return (set, result)
    }
}
