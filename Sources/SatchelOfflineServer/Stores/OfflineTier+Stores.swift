import Foundation
import Logging
import SatchelHTTP
import SatchelJSON
import SatchelOData
import SatchelOffline
import SatchelStore
import SatchelText

/// Prebuilt stores (docs/offline-server.md, "Prebuilt stores"): `POST {root}$satchel.store` answers a whole store
/// built on the server by the client's own `OfflineStore` code, reading the middle tier in process. Shared data
/// comes from a template built ahead of time (per `prepopulate_offline_db_interval`), the user's own data is added
/// on request; the file is sealed under a one-time transfer key sent with the answer, which the client replaces
/// with its own key.
extension OfflineTier {
    /// The root the links of a template are made under, replaced by each client's root in its copy.
    static func templateRoot(_ endpoint: String) -> String { "http://template.satchel.invalid/offline/\(endpoint)/" }

    func prebuiltStore(_ request: OfflineTierRequest, endpoint: OfflineEndpoint) async throws -> OfflineTierResponse {
        let name = endpoint.configuration.name
        guard request.method == "POST" else {
            throw OfflineTierFailure(
                405, code: "satchel.methodNotAllowed", "\(OfflineStore.prebuiltResource) answers POST only")
        }
        guard request.isSecure || limits.allowsPlainTransfer else {
            throw OfflineTierFailure(
                403, code: "satchel.transferNeedsTLS",
                "a prebuilt store travels with its key: ask for it over HTTPS (or from a server listening on loopback"
                    + " only)")
        }
        let asked = try Self.askedQueries(request.body)
        let configured = endpoint.configuration.definingQueries
        // The queries the store holds: those the client names (all the file's when it names none) that the file
        // defines with a query text, or whose text the client gives. The client downloads the others itself.
        var selected: [OfflineDefiningQuery] = []
        var shared: Set<String> = []
        for query in configured {
            let clientText = asked.first { $0.name == query.name }?.query
            if !asked.isEmpty && !asked.contains(where: { $0.name == query.name }) { continue }
            guard let text = query.query ?? clientText.flatMap({ $0.isEmpty ? nil : $0 }) else { continue }
            selected.append(Self.definingQuery(query, text: text))
            if query.isShared { shared.insert(query.name) }
        }
        let clientQueries = asked.filter { query in !query.query.isEmpty && selected.contains { $0.name == query.name }
        }
        try await builds.begin(user: request.user, wait: limits.buildWait)
        defer { builds.end(user: request.user) }
        let path = try builds.newBuildPath()
        do {
            var key = StoreKey.random()
            var linksRoot = request.root
            var templateQueries: [String] = []
            let prepopulation = endpoint.configuration.prepopulate
            if prepopulation != .none, !shared.isEmpty, let template = try await currentTemplate(endpoint) {
                try await BlockingWork.shared.run {
                    try FileManager.default.copyItem(atPath: template.path, toPath: path)
                }
                key = template.key
                linksRoot = template.root
                templateQueries = configured.filter { $0.isShared && $0.query != nil }.map(\.name)
            }
            let store = OfflineStore(
                configuration: .init(
                    service: inProcessService(name, root: request.root, user: request.user, password: request.password),
                    path: path, definingQueries: selected, key: key, indexes: endpoint.configuration.indexes))
            do {
                try await store.open(resuming: false)
                try await store.handOver(linksFrom: linksRoot, to: request.root, clientQueries: [])
                for query in templateQueries where !selected.contains(where: { $0.name == query }) {
                    try await store.removeDefiningQuery(named: query)
                }
                if prepopulation == .all { try await store.downloadIncomplete() }
                try await store.handOver(linksFrom: request.root, to: request.root, clientQueries: clientQueries)
                try await store.close()
            } catch {
                try? await store.close()
                throw error
            }
            let transfer = StoreKey.random()
            try await BlockingWork.shared.run { [key] in try StoreFile(path: path).changeKey(from: key, to: transfer) }
            let size = (try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? Int ?? 0
            guard size <= limits.maxStoreBytes else {
                throw OfflineTierFailure(
                    413, code: "satchel.storeTooLarge",
                    "the store of \(name) for \(request.user) would be \(size) bytes, more than the"
                        + " \(limits.maxStoreBytes) allowed: download it instead (open without the middle tier's store)"
                )
            }
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
            try? FileManager.default.removeItem(atPath: path)
            throw error
        }
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

    /// The endpoint's template of shared data: built now when there is none, else the current one (rebuilt in the
    /// background when older than `prepopulate_offline_db_interval`; a client that gets an older template receives
    /// what changed since with its first download). Nil when the endpoint has no shared query or no service account.
    func currentTemplate(_ endpoint: OfflineEndpoint) async throws -> OfflineBuilds.Template? {
        guard Self.buildsTemplate(endpoint.configuration) else { return nil }
        let name = endpoint.configuration.name
        if let template = builds.template(name) {
            let interval = Double(endpoint.configuration.prepopulateInterval.components.seconds)
            if clock().timeIntervalSince(template.builtAt) >= interval {
                Task { [self] in _ = try? await refreshTemplate(endpoint) }
            }
            return template
        }
        return try await refreshTemplate(endpoint)
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
                    service: inProcessService(name, root: root, user: account.user, password: nil), path: path,
                    definingQueries: queries, key: key, indexes: configuration.indexes))
            do {
                try await store.open()
                try await store.close()
            } catch {
                try? await store.close()
                try? FileManager.default.removeItem(atPath: path)
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
            do { try await Task.sleep(for: .seconds(30)) } catch { return }
        }
    }

    /// An OData service whose requests go to this middle tier in process, as `user`.
    func inProcessService(_ endpoint: String, root: String, user: String, password: String?) -> ODataService {
        var configuration = ODataService.Configuration(serviceURL: URL(string: root)!)
        configuration.http.retry = .never
        return ODataService(
            configuration: configuration,
            transport: OfflineTierTransport(tier: self, endpoint: endpoint, user: user, password: password, root: root))
    }
}
