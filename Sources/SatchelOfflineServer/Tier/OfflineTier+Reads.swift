import Foundation
import Logging
import SatchelHTTP
import SatchelOData
import SatchelOffline
import SatchelRepository
import Synchronization

/// Reads: a defining query's rows and deltas from the row state, everything else passed to the back-end
/// (docs/offline-server.md, "Reads and deltas").
extension OfflineTier {
    /// The request header that names the defining query a read is.
    static let definingQueryHeader = "Satchel-Defining-Query"

    func read(
        _ request: OfflineTierRequest, endpoint: OfflineEndpoint, version: ODataVersion
    ) async throws
        -> OfflineTierResponse
    {
        let options = OfflineReadOptions(query: request.query)
        guard let matched = try match(request, options: options, endpoint: endpoint, version: version) else {
            return try await passThrough(request, endpoint: endpoint)
        }
        let backend = try endpoint.backend(for: matched.configured, user: request.user, password: request.password)
        let id = OfflineQueryID(
            endpoint: endpoint.configuration.name, query: matched.configured.name,
            scope: matched.configured.isShared ? OfflineQueryID.shared : OfflineQueryID.user(request.user))
        let pageSize = max(1, min(limits.pageSize, Self.preferredPageSize(request.headers) ?? .max))
        let writer = OfflinePageWriter(version: version, root: request.root, entitySet: matched.entitySet)
        if let token = options.deltaToken {
            return try await delta(
                id, since: token, continuation: options.continuation, matched: matched, backend: backend,
                endpoint: endpoint, request: request, options: options, pageSize: pageSize, writer: writer)
        }
        let snapshot: Int64
        var after: String?
        if let skip = options.snapshot {
            (snapshot, after) = (skip.version, skip.key)
        } else {
            try await refreshIfDue(id, matched, backend: backend, endpoint: endpoint)
            snapshot = try await store.offlineState(id)?.version ?? 0
        }
        let rows = try await store.offlineRows(id, after: after, limit: pageSize + 1)
        let page = rows.prefix(pageSize)
        var links = OfflinePageWriter.Links()
        if rows.count > pageSize, let last = page.last {
            links.next = options.link(
                request, adding: "$skiptoken=" + OfflineReadOptions.snapshotToken(version: snapshot, key: last.key))
        } else if matched.configured.deltaTracking != .never {
            links.delta = options.link(request, adding: "$deltatoken=" + OfflineReadOptions.deltaToken(snapshot))
        }
        if links.next == nil { await recordSyncPoint(id, request: request, version: snapshot) }
        return writer.response(rows: page, removedKeys: [], links: links, isDelta: false)
    }

    private func delta(
        _ id: OfflineQueryID, since version: Int64, continuation: String?, matched: MatchedQuery,
        backend: OfflineBackend, endpoint: OfflineEndpoint, request: OfflineTierRequest, options: OfflineReadOptions,
        pageSize: Int, writer: OfflinePageWriter
    ) async throws -> OfflineTierResponse {
        if continuation == nil { try await refreshIfDue(id, matched, backend: backend, endpoint: endpoint) }
        let expired = OfflineTierFailure(
            410, code: "satchel.deltaTokenExpired",
            "the delta token of \(matched.configured.name) has expired: read the defining query in full")
        guard let state = try await store.offlineState(id), version <= state.version else { throw expired }
        let changes: OfflineChanges
        do {
            changes = try await store.offlineChanges(id, since: version, after: continuation, limit: pageSize)
        } catch is OfflineTierError {
            throw expired
        }
        var links = OfflinePageWriter.Links()
        if let next = changes.continuation {
            links.next = options.link(
                request,
                adding: "$deltatoken=" + OfflineReadOptions.deltaToken(version) + "&$skiptoken="
                    + OfflineReadOptions.continuationToken(next))
        } else {
            links.delta = options.link(
                request, adding: "$deltatoken=" + OfflineReadOptions.deltaToken(changes.version))
            await recordSyncPoint(id, request: request, version: changes.version)
        }
        return writer.response(
            rows: changes.rows[...], removedKeys: changes.removedKeys, links: links, isDelta: true)
    }

    /// Notes that the caller received `id` up to `version` (the operator's view); a failure is logged, the read goes
    /// on.
    private func recordSyncPoint(_ id: OfflineQueryID, request: OfflineTierRequest, version: Int64) async {
        do {
            try await store.recordSyncPoint(id, client: request.user, version: version, at: clock())
        } catch {
            logger.warning("offline sync point not recorded", metadata: ["query": "\(id)", "error": "\(error)"])
        }
    }

    /// A read that is one of the endpoint's defining queries.
    struct MatchedQuery: Sendable {
        var configured: OfflineApplicationConfiguration.DefiningQuery
        /// The query as read from the back-end (the file's, or the client's own when the file gives none).
        var definingQuery: OfflineDefiningQuery
        var entitySet: String
    }

    /// The defining query `request` reads: named by the `Satchel-Defining-Query` header, or found by comparing the
    /// path and options (normalised) with each defining query of the file. Nil: not a defining query.
    func match(
        _ request: OfflineTierRequest, options: OfflineReadOptions, endpoint: OfflineEndpoint, version: ODataVersion
    ) throws -> MatchedQuery? {
        let path = request.path.removingPercentEncoding ?? request.path
        let asked = "/" + path + (options.matchingQuery.isEmpty ? "" : "?" + options.matchingQuery)
        let queries = endpoint.configuration.definingQueries
        if let name = request.headers[Self.definingQueryHeader] {
            guard let configured = queries.first(where: { $0.name == name }) else {
                throw OfflineTierFailure(
                    404, code: "satchel.noSuchDefiningQuery",
                    "endpoint \(endpoint.configuration.name) defines no query \(name); it defines "
                        + queries.map(\.name).joined(separator: ", "))
            }
            let definingQuery = Self.definingQuery(configured, text: configured.query ?? asked)
            return MatchedQuery(
                configured: configured, definingQuery: definingQuery,
                entitySet: try definingQuery.parsed(version: version).entitySet)
        }
        guard let wanted = try? Self.normalised(asked, version: version) else { return nil }
        for configured in queries {
            guard let text = configured.query else { continue }
            let definingQuery = Self.definingQuery(configured, text: text)
            guard let normal = try? Self.normalised(text, version: version), normal == wanted else { continue }
            return MatchedQuery(configured: configured, definingQuery: definingQuery, entitySet: normal.set)
        }
        return nil
    }

    static func definingQuery(
        _ configured: OfflineApplicationConfiguration.DefiningQuery, text: String
    ) -> OfflineDefiningQuery {
        OfflineDefiningQuery(
            name: configured.name, query: text, retrievesStreams: configured.retrievesStreams,
            deltaTracking: configured.deltaTracking)
    }

    /// A read's entity set and options in one spelling: parsed and rendered again, options sorted.
    struct NormalisedRead: Equatable {
        var set: String
        var options: [String]
    }

    static func normalised(_ text: String, version: ODataVersion) throws -> NormalisedRead {
        let (set, query) = try OfflineDefiningQuery(name: "", query: text).parsed(version: version)
        return NormalisedRead(
            set: set, options: try query.options(for: version).map { "\($0.name)=\($0.value)" }.sorted())
    }

    /// Reads `id` from the back-end when its last refresh is older than the query's `refresh_interval`. Concurrent
    /// readers of one query share one back-end read; a refresh finished within the interval is not repeated.
    func refreshIfDue(
        _ id: OfflineQueryID, _ matched: MatchedQuery, backend: OfflineBackend, endpoint: OfflineEndpoint
    ) async throws {
        let interval = Double(matched.configured.refreshInterval.components.seconds)
        let now = clock()
        if let state = try await store.offlineState(id), now.timeIntervalSince(state.refreshedAt) < interval {
            return
        }
        let key = id
        let store = store
        let refresher = OfflineRefresher(store: store)
        let definingQuery = matched.definingQuery
        let lifetime = Double(matched.configured.deltaTokenLifetime.components.seconds)
        let logger = logger
        let (task, owner) = endpoint.refreshes.withLock { tasks -> (Task<Void, any Error>, Bool) in
            if let running = tasks[key] { return (running, false) }
            let task = Task {
                let report = try await refresher.refresh(
                    id, definingQuery: definingQuery, service: backend.service, at: now)
                _ = try await store.forgetRemovals(id, before: now.addingTimeInterval(-lifetime))
                logger.debug(
                    "offline refresh",
                    metadata: [
                        "query": "\(id)", "version": "\(report.refresh.state.version)",
                        "added": "\(report.refresh.added)", "changed": "\(report.refresh.changed)",
                        "removed": "\(report.refresh.removed)", "backendDelta": "\(report.usedBackendDelta)",
                    ])
            }
            tasks[key] = task
            return (task, true)
        }
        defer {
            if owner { _ = endpoint.refreshes.withLock { $0.removeValue(forKey: key) } }
        }
        try await task.value
    }

    /// `Prefer: odata.maxpagesize=N`.
    static func preferredPageSize(_ headers: HTTPClient.Headers) -> Int? {
        for value in headers.values(for: "Prefer") {
            for part in value.split(separator: ",") {
                let pair = part.split(separator: "=", maxSplits: 1)
                if pair.count == 2, pair[0].trimmingCharacters(in: .whitespaces).lowercased() == "odata.maxpagesize" {
                    return Int(pair[1].trimmingCharacters(in: .whitespaces))
                }
            }
        }
        return nil
    }
}

/// A read's query text split into the options that say *what* is read and the middle tier's own paging and delta
/// tokens.
struct OfflineReadOptions: Sendable {
    /// The options as received, without the middle tier's tokens (links are made from them).
    var kept: [Substring] = []
    /// The options that say what is read (without `sap-client`, `$format` and paging).
    var matchingQuery: String = ""
    /// `$deltatoken=S.{version}`.
    var deltaToken: Int64?
    /// `$skiptoken=s.{version}.{key}`: the next page of a full read.
    var snapshot: (version: Int64, key: String)?
    /// `$skiptoken=c.{continuation}`: the next page of a delta.
    var continuation: String?

    init(query: String) {
        var matching: [Substring] = []
        for option in query.split(separator: "&") where !option.isEmpty {
            let pair = option.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let name = (String(pair[0]).removingPercentEncoding ?? String(pair[0])).lowercased()
            let value = pair.count > 1 ? (String(pair[1]).removingPercentEncoding ?? String(pair[1])) : ""
            if name == "$deltatoken", value.hasPrefix("S."), let version = Int64(value.dropFirst(2)) {
                deltaToken = version
                continue
            }
            if name == "$skiptoken", let token = Self.skipToken(value) {
                switch token {
                case .snapshot(let version, let key): snapshot = (version, key)
                case .continuation(let text): continuation = text
                }
                continue
            }
            kept.append(option)
            if ["sap-client", "$format", "sap-language", "$inlinecount", "$count"].contains(name) { continue }
            matching.append(option)
        }
        matchingQuery = matching.joined(separator: "&")
    }

    enum SkipToken {
        case snapshot(Int64, String)
        case continuation(String)
    }

    static func skipToken(_ value: String) -> SkipToken? {
        if value.hasPrefix("s.") {
            let parts = value.dropFirst(2).split(separator: ".", maxSplits: 1)
            guard parts.count == 2, let version = Int64(parts[0]), let key = decode(parts[1]) else { return nil }
            return .snapshot(version, key)
        }
        if value.hasPrefix("c."), let text = decode(value.dropFirst(2)) { return .continuation(text) }
        return nil
    }

    static func deltaToken(_ version: Int64) -> String { "S.\(version)" }
    static func snapshotToken(version: Int64, key: String) -> String { "s.\(version).\(encode(key))" }
    static func continuationToken(_ text: String) -> String { "c." + encode(text) }

    /// Tokens hold keys in base64url: safe in a query without percent-encoding.
    static func encode(_ text: String) -> String { ODataBinary.encodeURL(Data(text.utf8)) }

    static func decode(_ text: Substring) -> String? {
        ODataBinary.decode(String(text)).flatMap { String(data: $0, encoding: .utf8) }
    }

    /// The link to this read with `option` added.
    func link(_ request: OfflineTierRequest, adding option: String) -> String {
        request.root + request.path + "?" + (kept.map(String.init) + [option]).joined(separator: "&")
    }
}
