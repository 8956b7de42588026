import Foundation
import Logging
import SatchelHTTP
import SatchelJSON
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelText
import Synchronization

/// Prebuilt stores (docs/offline-server.md, "Prebuilt stores"): `POST {root}$satchel.store` answers a whole store
/// built on the server by the client's own `OfflineStore` code, reading the middle tier in process. Shared data
/// comes from a template built ahead of time (per `prepopulate_offline_db_interval`), the user's own data is added
/// on request; the file is sealed under a one-time transfer key sent with the answer, which the client replaces
/// with its own key.
extension OfflineTier {
    /// The root the links of a template are made under, replaced by each client's root in its copy.
    static func templateRoot(_ endpoint: String) -> String { "http://template.satchel.invalid/offline/\(endpoint)/" }

    func prebuiltStore(
        _ request: OfflineTierRequest, endpoint: OfflineEndpoint, version: ODataVersion
    ) async throws -> OfflineTierResponse {
        let name = endpoint.configuration.name
        guard request.method == "POST" else {
            throw OfflineTierFailure(
                405, code: "satchel.methodNotAllowed", "\(OfflineStore.prebuiltResource) answers POST only")
        }
        // Over HTTPS, or from a server on loopback that no proxy stands in front of (a proxy on plain HTTP would
        // carry the key over the network).
        guard request.isSecure || (limits.allowsPlainTransfer && !request.viaProxy) else {
            throw OfflineTierFailure(
                403, code: "satchel.transferNeedsTLS",
                "a prebuilt store travels with its key: ask for it over HTTPS (or from a server listening on loopback"
                    + " only)")
        }
        let service = try inProcessService(
            name, root: request.root, user: request.user, password: request.password)
        let asked = try Self.askedQueries(request.body)
        let configured = endpoint.configuration.definingQueries
        // The queries the store holds: those the client names (all the file's when it names none) that the file
        // defines with a query text, or whose text the client gives. The client downloads the others itself.
        var selected: [OfflineDefiningQuery] = []
        var shared: Set<String> = []
        // The client's spelling of a query, kept where it reads what the file's text reads (else the client's open
        // finds its own text differs and downloads that query itself).
        var clientQueries: [OfflineDefiningQuery] = []
        for query in configured {
            let client = asked.first { $0.name == query.name }
            if !asked.isEmpty && client == nil { continue }
            let clientText = client.flatMap { $0.query.isEmpty ? nil : $0.query }
            guard let text = query.query ?? clientText else { continue }
            selected.append(Self.definingQuery(query, text: text))
            if query.isShared { shared.insert(query.name) }
            if let client, let clientText,
                let theirs = try? Self.normalised(clientText, version: version),
                let ours = try? Self.normalised(text, version: version), theirs == ours
            {
                clientQueries.append(client)
            }
        }
        try await builds.begin(user: request.user, wait: limits.buildWait)
        defer { builds.end(user: request.user) }
        let path = try builds.newBuildPath()
        defer { builds.finishBuilding(path) }
        do {
            let built = try await build(
                path, for: request, through: service, endpoint: endpoint, selected: selected, shared: shared,
                clientQueries: clientQueries)
            let transfer = StoreKey.random()
            try await BlockingWork.shared.run { try StoreFile(path: path).changeKey(from: built, to: transfer) }
            let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int ?? 0
            guard size <= limits.maxStoreBytes else { throw Self.tooLarge(name, request.user, limits.maxStoreBytes) }
            var headers = HTTPClient.Headers()
            headers.add("Content-Type", OfflineStore.storeMediaType)
            headers.add("Cache-Control", "no-store")
            headers.add(OfflineStore.transferKeyHeader, transfer.withRawBytes { Data($0).base64EncodedString() } ?? "")
            logger.info(
                "offline store built",
                metadata: [
                    "endpoint": "\(name)", "user": "\(request.user)", "bytes": "\(size)",
                    "queries": "\(selected.map(\.name).joined(separator: ","))",
                ])
            return OfflineTierResponse(status: 200, headers: headers, file: URL(fileURLWithPath: path))
        } catch {
            OfflineBuilds.remove(path)
            throw error
        }
    }

    static func tooLarge(_ endpoint: String, _ user: String, _ limit: Int) -> OfflineTierFailure {
        OfflineTierFailure(
            413, code: "satchel.storeTooLarge",
            "the store of \(endpoint) for \(user) would be larger than the \(limit) bytes allowed: the client downloads"
                + " its data instead")
    }

    /// Builds the store at `path` (from the endpoint's template when it has one) and returns the key it is sealed
    /// under. A download that passes ``OfflineTierLimits/maxStoreBytes`` is stopped (413).
    private func build(
        _ path: String, for request: OfflineTierRequest, through service: ODataService, endpoint: OfflineEndpoint,
        selected: [OfflineDefiningQuery],
        shared: Set<String>, clientQueries: [OfflineDefiningQuery]
    ) async throws -> StoreKey {
        let name = endpoint.configuration.name
        var key = StoreKey.random()
        var linksRoot = request.root
        var templateQueries: [String] = []
        let prepopulation = endpoint.configuration.prepopulate
        if prepopulation != .none, !shared.isEmpty, let template = await usableTemplate(endpoint) {
            do {
                try await BlockingWork.shared.run {
                    try FileManager.default.copyItem(atPath: template.path, toPath: path)
                }
                key = template.key
                linksRoot = template.root
                templateQueries = endpoint.configuration.definingQueries.filter { $0.isShared && $0.query != nil }
                    .map(\.name)
            } catch {
                // Its file is gone: the next request builds another; this one reads the shared data itself.
                logger.warning(
                    "offline template unusable", metadata: ["endpoint": "\(name)", "error": "\(error)"])
                builds.dropTemplate(name, path: template.path)
                OfflineBuilds.remove(path)
            }
        }
        let store = OfflineStore(
            configuration: .init(
                service: service,
                path: path, definingQueries: selected, key: key, indexes: endpoint.configuration.indexes))
        let limit = limits.maxStoreBytes
        let exceeded = Mutex(false)
        let progress = store.progress()
        let watcher = Task {
            for await step in progress {
                if case .bytes(let received, _) = step, received > limit {
                    exceeded.withLock { $0 = true }
                    store.cancel()
                    return
                }
            }
        }
        defer { watcher.cancel() }
        do {
            try await store.open(resuming: false)
            for query in templateQueries where !selected.contains(where: { $0.name == query }) {
                try await store.removeDefiningQuery(named: query)
            }
            // Without a template, the shared data is read here too (SHARED-ONLY: only the shared data).
            if prepopulation == .all || (prepopulation == .sharedOnly && templateQueries.isEmpty) {
                try await store.download(
                    onlyIncomplete: true, names: prepopulation == .all ? nil : shared.subtracting(templateQueries))
            }
            // The template's links under the client's root, the client's spelling of its queries.
            try await store.handOver(linksFrom: linksRoot, to: request.root, clientQueries: clientQueries)
            try await store.close()
        } catch {
            try? await store.close()
            if exceeded.withLock({ $0 }) { throw Self.tooLarge(name, request.user, limit) }
            throw error
        }
        return key
    }

    /// The defining queries a `$satchel.store` request names, as the client spells them:
    /// `{"definingQueries": [{"name": …, "query": …, "track": …}]}` (a query without text has an empty one); an empty
    /// body names none (the store then holds every defining query of the file).
    static func askedQueries(_ body: Data) throws -> [OfflineDefiningQuery] {
        guard !body.isEmpty else { return [] }
        let refusal = { (detail: String) in
            OfflineTierFailure(
                400, code: "satchel.invalidStoreRequest",
                "a \(OfflineStore.prebuiltResource) request is {\"definingQueries\": [{\"name\": …, \"query\": …}]}: "
                    + detail)
        }
        let value: JSONValue
        do { value = try JSONValue(parsing: body) } catch { throw refusal("\(error)") }
        guard case .object(let object) = value else { throw refusal("the body is not a JSON object") }
        guard let list = object["definingQueries"] else { return [] }
        guard case .array(let items) = list else { throw refusal("definingQueries is not an array") }
        return try items.enumerated().map { index, item in
            guard case .object(let query) = item, case .string(let name)? = query["name"] else {
                throw refusal("definingQueries[\(index)] has no name")
            }
            var text = ""
            if case .string(let given)? = query["query"] { text = given }
            var tracking = OfflineDeltaTracking.auto
            if case .string(let given)? = query["track"] {
                guard let known = OfflineDeltaTracking(rawValue: given) else {
                    throw refusal("definingQueries[\(index)] has track \(given), not auto, always or never")
                }
                tracking = known
            }
            var streams = false
            if case .bool(let given)? = query["streams"] { streams = given }
            return OfflineDefiningQuery(name: name, query: text, retrievesStreams: streams, deltaTracking: tracking)
        }
    }

    /// The endpoint's template of shared data: the current one, else one built now. Nil when the endpoint builds none
    /// (no shared query or no service account) or the build failed (logged; the request then reads the shared data
    /// itself). A template older than `prepopulate_offline_db_interval` is served as it is: its delta links bring
    /// what changed since with the client's first download, and ``maintainTemplates()`` builds the next.
    func usableTemplate(_ endpoint: OfflineEndpoint) async -> OfflineBuilds.Template? {
        guard Self.buildsTemplate(endpoint.configuration) else { return nil }
        if let template = builds.template(endpoint.configuration.name) { return template }
        return try? await refreshTemplate(endpoint)
    }

    static func buildsTemplate(_ endpoint: OfflineApplicationConfiguration.Endpoint) -> Bool {
        endpoint.prepopulate != .none && endpoint.serviceAccount != nil
            && endpoint.definingQueries.contains { $0.isShared && $0.query != nil }
    }

    /// Builds the endpoint's template again (one build at a time per endpoint) and makes it current.
    @discardableResult
    func refreshTemplate(_ endpoint: OfflineEndpoint) async throws -> OfflineBuilds.Template {
        let configuration = endpoint.configuration
        let name = configuration.name
        return try await builds.rebuildTemplate(name) { [self] in
            guard let account = configuration.serviceAccount else {
                throw OfflineTierFailure(500, code: "satchel.noServiceAccount", "\(name) has no service account")
            }
            let root = Self.templateRoot(name)
            let path = try builds.newTemplatePath(endpoint: name)
            let key = StoreKey.random()
            let started = clock()
            let queries = configuration.definingQueries.compactMap { query in
                query.isShared ? query.query.map { Self.definingQuery(query, text: $0) } : nil
            }
            let store = OfflineStore(
                configuration: .init(
                    service: try inProcessService(name, root: root, user: account.user, password: nil), path: path,
                    definingQueries: queries, key: key, indexes: configuration.indexes))
            do {
                try await store.open()
                try await store.close()
            } catch {
                try? await store.close()
                OfflineBuilds.remove(path)
                logger.warning(
                    "offline template not built", metadata: ["endpoint": "\(name)", "error": "\(error)"])
                throw error
            }
            logger.info(
                "offline template built",
                metadata: [
                    "endpoint": "\(name)",
                    "bytes": "\((try? FileManager.default.attributesOfItem(atPath: path))?[.size] ?? 0)",
                ])
            return OfflineBuilds.Template(path: path, key: key, builtAt: started, root: root)
        }
    }

    /// Keeps every endpoint's template of shared data current: built at once, then again each
    /// `prepopulate_offline_db_interval`, until the task is cancelled. A build that fails is logged and tried again
    /// at the next turn; the server runs this beside its listener. Returns only when cancelled.
    public func maintainTemplates() async {
        let endpoints = endpointNames.compactMap { self.endpoints[$0] }.filter {
            Self.buildsTemplate($0.configuration)
        }
        while !Task.isCancelled {
            for endpoint in endpoints {
                let interval = Double(endpoint.configuration.prepopulateInterval.components.seconds)
                if let template = builds.template(endpoint.configuration.name),
                    clock().timeIntervalSince(template.builtAt) < interval
                {
                    continue
                }
                _ = try? await refreshTemplate(endpoint)
            }
            builds.sweepAbandonedAnswers()
            do { try await Task.sleep(for: .seconds(30)) } catch { return }
        }
    }

    /// An OData service whose requests go to this middle tier in process, as `user`.
    func inProcessService(_ endpoint: String, root: String, user: String, password: String?) throws -> ODataService {
        guard let url = URL(string: root) else {
            throw OfflineTierFailure(400, code: "satchel.invalidHost", "no URL can be made of \(root)")
        }
        var configuration = ODataService.Configuration(serviceURL: url)
        configuration.http.retry = .never
        return ODataService(
            configuration: configuration,
            transport: OfflineTierTransport(tier: self, endpoint: endpoint, user: user, password: password, root: root))
    }
}
