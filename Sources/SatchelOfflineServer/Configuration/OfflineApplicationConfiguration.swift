public import Foundation
public import SatchelOffline
import SatchelRepository

/// One application of the offline middle tier, read from SAP's application configuration file (`.ini`):
/// `[endpoint]` sections, each followed by the sections of its defining queries (`[defining_query]` or the older
/// `[defining_request]`). See docs/offline-server.md.
///
/// ```ini
/// [endpoint]
/// name = products
/// backend_url = https://gw.example.com/sap/opu/odata/IWBEP/GWSAMPLE_BASIC
/// service_user = satchel-shared
/// service_password_env = SATCHEL_SHARED_PASSWORD
/// prepopulate_offline_db = SHARED-ONLY
///
/// [defining_query]
/// name = products
/// query = /ProductSet
/// is_shared_data = Y
/// refresh_interval = 15
/// ```
///
/// A malformed file is refused with its line (`OfflineConfigurationError`); a key the middle tier does not
/// implement is kept in ``warnings`` with its line, for the server to say at start.
public struct OfflineApplicationConfiguration: Sendable {
    /// An OData service the middle tier stands in front of.
    public struct Endpoint: Sendable {
        /// The endpoint's name: its path under `/offline/`.
        public var name: String
        /// The back-end service's root.
        public var backendURL: URL
        /// SAP Gateway's client (`sap-client`), sent with every back-end request.
        public var sapClient: String?
        /// Whether changes to the back-end need SAP Gateway's CSRF token handshake.
        public var csrf: Bool
        /// The account that reads shared data; per-user data is read with each user's own credentials.
        public var serviceAccount: ServiceAccount?
        /// What a store built for a first open holds.
        public var prepopulate: Prepopulation
        /// How long a prebuilt store's shared data is used before it is built again.
        public var prepopulateInterval: Duration
        /// Secondary indexes of the stores built: entity type → property paths.
        public var indexes: [String: [String]]
        /// How many times one uploaded request is sent to the back-end before it goes to the client's ErrorArchive.
        public var maxDeltaResends: Int
        /// How long the upload ledger keeps a request it applied (so a late retry is still recognised).
        public var localChangeExpiry: Duration
        /// Whether a client may drop defining queries the file defines.
        public var allowDefiningQueryRemoval: Bool
        /// Whether text comparisons in the stores built are case-sensitive.
        public var caseSensitive: Bool
        /// Whether `Edm.DateTimeOffset` values are sent to clients in UTC.
        public var dateTimeOffsetInUTC: Bool
        /// Whether uploads carry repeatability headers to the back-end.
        public var checkRepeatableRequests: Bool
        /// The endpoint's defining queries, in file order.
        public var definingQueries: [DefiningQuery]
        /// The line of the `[endpoint]` section.
        public var line: Int
    }

    /// A defining query of an endpoint.
    public struct DefiningQuery: Sendable, Equatable {
        /// The query's name (`name`), unique within its endpoint.
        public var name: String
        /// The OData read (`/ProductSet?$filter=…`); nil when the clients give it (a query that is not shared).
        public var query: String?
        /// Read once per ``refreshInterval`` with the service account and served to every user.
        public var isShared: Bool
        /// How long rows read from the back-end are served before the back-end is read again.
        public var refreshInterval: Duration
        /// Whose deltas: the back-end's (`auto`, when it has them), the middle tier's (`always`), or none.
        public var deltaTracking: OfflineDeltaTracking
        /// How long a delta token stays usable (removed rows are remembered this long).
        public var deltaTokenLifetime: Duration
        /// Whether media streams are part of the query's data.
        public var retrievesStreams: Bool
        /// The line of the query's section in the file.
        public var line: Int
    }

    /// What a prebuilt store holds (`prepopulate_offline_db`).
    public enum Prepopulation: String, Sendable {
        /// Shared and the user's own data (`Y`).
        case all
        /// The schema only; the client downloads (`N`).
        case none
        /// Shared data only; the client downloads its own (`SHARED-ONLY`).
        case sharedOnly
    }

    /// The account that reads shared data.
    public struct ServiceAccount: Sendable {
        /// The back-end user name (`service_user`).
        public var user: String
        /// The password, read from the variable `service_password_env` names or the owner-only file
        /// `service_password_file` names; never written in the configuration file.
        public var password: String
    }

    /// Where the file came from.
    public var file: String
    /// The file's endpoints, in file order; their names are unique.
    public var endpoints: [Endpoint]
    /// Keys found but not implemented, each with its line.
    public var warnings: [OfflineConfigurationWarning]

    /// The `[endpoint]` keys the middle tier reads (`OfflineIniDocument/MiddleTierKeys`).
    public static let knownEndpointKeys = OfflineIniDocument.MiddleTierKeys.endpoint
    /// The defining-query keys the middle tier reads.
    public static let knownQueryKeys = OfflineIniDocument.MiddleTierKeys.query
    /// SAP keys the middle tier does not implement, and why.
    static let unimplemented = OfflineIniDocument.MiddleTierKeys.sapOnly
    /// Keys the middle tier reads and checks but that change nothing yet, and why: each is reported at start with
    /// its line, so that no key is silently ignored.
    public static let readWithoutEffect: [String: String] = [
        "case_sensitive_offline_db": "stores compare text as SQLite does (case-sensitive, except tolower/toupper)",
        "allow_defining_query_removal": "clients' defining queries are not checked against the file yet",
        "json_datetimeoffset_in_utc": "values are passed on as the back-end writes them",
        "check_repeatable_requests": "requests with a Repeatability-Request-ID always go through the upload ledger",
    ]

    /// Reads and checks the file at `path`: it must not be writable by others (it says where credentials go);
    /// `environment` supplies `service_password_env` variables.
    public init(
        contentsOf path: String, environment: [String: String] = ProcessInfo.processInfo.environment
    ) throws(OfflineConfigurationError) {
        do {
            try PrivateFiles.checkNotWritableByOthers(URL(fileURLWithPath: path), role: "offline configuration")
        } catch {
            throw OfflineConfigurationError(file: path, line: nil, error.message)
        }
        try self.init(
            document: try OfflineIniDocument(contentsOf: path),
            folder: URL(fileURLWithPath: path).deletingLastPathComponent(), environment: environment)
    }

    /// Reads `text`; relative `service_password_file` paths are read from `folder`.
    public init(
        text: String, name: String, folder: URL, environment: [String: String] = [:]
    ) throws(OfflineConfigurationError) {
        try self.init(
            document: try OfflineIniDocument(text: text, name: name), folder: folder, environment: environment)
    }

    init(document: OfflineIniDocument, folder: URL, environment: [String: String]) throws(OfflineConfigurationError) {
        file = document.name
        var endpoints: [Endpoint] = []
        var warnings: [OfflineConfigurationWarning] = []
        var current: (section: OfflineIniDocument.Section, queries: [OfflineIniDocument.Section])?
        var groups: [(section: OfflineIniDocument.Section, queries: [OfflineIniDocument.Section])] = []
        for section in document.sections {
            switch section.name.lowercased() {
            case "endpoint":
                if let current { groups.append(current) }
                current = (section, [])
            case "defining_query", "defining_request":
                guard current != nil else {
                    throw OfflineConfigurationError(
                        file: file, line: section.line, "[\(section.name)] comes before any [endpoint]")
                }
                current!.queries.append(section)
            default:
                throw OfflineConfigurationError(
                    file: file, line: section.line,
                    "unknown section [\(section.name)]: [endpoint], [defining_query] or [defining_request]")
            }
        }
        if let current { groups.append(current) }
        guard !groups.isEmpty else { throw OfflineConfigurationError(file: file, line: nil, "no [endpoint] section") }
        var names: [String: Int] = [:]
        for group in groups {
            warnings += document.unknownKeys(
                in: group.section, known: Self.knownEndpointKeys, sapOnly: Self.unimplemented)
            warnings += group.section.entries.compactMap { entry in
                Self.readWithoutEffect[entry.key].map {
                    OfflineConfigurationWarning(
                        file: document.name, line: entry.line, "\(entry.key) is read but has no effect yet: \($0)")
                }
            }
            for query in group.queries {
                warnings += document.unknownKeys(in: query, known: Self.knownQueryKeys, sapOnly: Self.unimplemented)
            }
            let endpoint = try Self.endpoint(group.section, queries: group.queries, document, folder, environment)
            if let first = names[endpoint.name] {
                throw OfflineConfigurationError(
                    file: file, line: group.section.line,
                    "a second endpoint named \(endpoint.name) (the first: line \(first))")
            }
            names[endpoint.name] = group.section.line
            endpoints.append(endpoint)
        }
        self.endpoints = endpoints
        self.warnings = warnings
    }

    private static func endpoint(
        _ section: OfflineIniDocument.Section, queries: [OfflineIniDocument.Section], _ document: OfflineIniDocument,
        _ folder: URL, _ environment: [String: String]
    ) throws(OfflineConfigurationError) -> Endpoint {
        let file = document.name
        func failure(_ key: String, _ message: String) -> OfflineConfigurationError {
            OfflineConfigurationError(file: file, line: section.entry(key)?.line ?? section.line, message)
        }
        guard let name = section.value("name"), !name.isEmpty else {
            throw failure("name", "[endpoint] needs name = …")
        }
        guard name.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber || "-_.".contains($0)) }), name != ".",
            name != ".."
        else {
            throw failure("name", "an endpoint's name is letters, digits, '-', '_' and '.' (it is a URL path): \(name)")
        }
        guard let backend = section.value("backend_url") else {
            throw failure("backend_url", "[endpoint] \(name) needs backend_url = http(s)://…")
        }
        guard let url = URL(string: backend), url.scheme == "http" || url.scheme == "https", url.host != nil else {
            throw failure("backend_url", "backend_url is an http(s):// address, not \(backend)")
        }
        guard url.user == nil, url.password == nil else {
            throw failure("backend_url", "backend_url holds credentials: use service_user and service_password_env")
        }
        let prepopulate: Prepopulation
        switch section.value("prepopulate_offline_db")?.uppercased() ?? "Y" {
        case "Y", "YES": prepopulate = .all
        case "N", "NO": prepopulate = .none
        case "SHARED-ONLY": prepopulate = .sharedOnly
        case let other:
            throw failure("prepopulate_offline_db", "prepopulate_offline_db is Y, N or SHARED-ONLY, not \(other)")
        }
        let account = try serviceAccount(section, document, folder, environment)
        let minute = Duration.seconds(60)
        var definingQueries: [DefiningQuery] = []
        var queryNames: [String: Int] = [:]
        for querySection in queries {
            let query = try definingQuery(querySection, document)
            if query.isShared && account == nil {
                throw OfflineConfigurationError(
                    file: file, line: querySection.entry("is_shared_data")?.line ?? querySection.line,
                    "\(query.name) is shared data, read with the service account: [endpoint] \(name) needs service_user"
                )
            }
            if let first = queryNames[query.name] {
                throw OfflineConfigurationError(
                    file: file, line: querySection.line,
                    "a second defining query named \(query.name) (the first: line \(first))")
            }
            queryNames[query.name] = querySection.line
            definingQueries.append(query)
        }
        return Endpoint(
            name: name, backendURL: url, sapClient: section.value("sap_client"),
            csrf: try document.flag("csrf", in: section) ?? false, serviceAccount: account, prepopulate: prepopulate,
            prepopulateInterval: minute
                * (try document.number("prepopulate_offline_db_interval", in: section, range: 1...525_600) ?? 1440),
            indexes: try document.indexes(in: section),
            maxDeltaResends: try document.number("max_delta_resends", in: section, range: 0...1000) ?? 5,
            localChangeExpiry: minute * 60
                * (try document.number("local_change_expiry", in: section, range: 1...87_600) ?? 168),
            allowDefiningQueryRemoval: try document.flag("allow_defining_query_removal", in: section) ?? true,
            caseSensitive: try document.flag("case_sensitive_offline_db", in: section) ?? true,
            dateTimeOffsetInUTC: try document.flag("json_datetimeoffset_in_utc", in: section) ?? false,
            checkRepeatableRequests: try document.flag("check_repeatable_requests", in: section) ?? true,
            definingQueries: definingQueries, line: section.line)
    }

    private static func definingQuery(
        _ section: OfflineIniDocument.Section, _ document: OfflineIniDocument
    ) throws(OfflineConfigurationError) -> DefiningQuery {
        let file = document.name
        guard let name = section.value("name"), !name.isEmpty else {
            throw OfflineConfigurationError(file: file, line: section.line, "[\(section.name)] needs name = …")
        }
        let isShared = try document.flag("is_shared_data", in: section) ?? false
        let query = section.value("query").flatMap { $0.isEmpty ? nil : $0 }
        if isShared && query == nil {
            throw OfflineConfigurationError(
                file: file, line: section.line,
                "\(name) is shared data, which the middle tier reads alone: it needs query = …")
        }
        if let query, query.contains("://") {
            throw OfflineConfigurationError(
                file: file, line: section.entry("query")?.line ?? section.line,
                "query is relative to the endpoint's back-end (/EntitySet?…), not \(query)")
        }
        let tracking = try document.deltaTracking(in: section)
        let minute = Duration.seconds(60)
        // Shared data is read at most hourly unless the file says otherwise; a user's own at every download.
        let refresh = try document.number("refresh_interval", in: section, range: 0...525_600) ?? (isShared ? 60 : 0)
        let lifetime = try document.number("delta_token_lifetime", in: section, range: 1...3650) ?? 30
        return DefiningQuery(
            name: name, query: query, isShared: isShared, refreshInterval: minute * refresh, deltaTracking: tracking,
            deltaTokenLifetime: minute * 60 * 24 * lifetime,
            retrievesStreams: try document.flag("streams", in: section) ?? false, line: section.line)
    }

    /// `service_user` with `service_password_env` or `service_password_file` (owner-only); a password written in the
    /// file is refused.
    private static func serviceAccount(
        _ section: OfflineIniDocument.Section, _ document: OfflineIniDocument, _ folder: URL,
        _ environment: [String: String]
    ) throws(OfflineConfigurationError) -> ServiceAccount? {
        let file = document.name
        if let entry = section.entries.first(where: { $0.key == "service_password" || $0.key == "password" }) {
            throw OfflineConfigurationError(
                file: file, line: entry.line,
                "a password may not be written in the file: use service_password_env or service_password_file")
        }
        let env = section.entry("service_password_env")
        let path = section.entry("service_password_file")
        guard let user = section.entry("service_user") else {
            if let stray = env ?? path {
                throw OfflineConfigurationError(file: file, line: stray.line, "\(stray.key) without service_user")
            }
            return nil
        }
        switch (env, path) {
        case (let env?, nil):
            guard let password = environment[env.value], !password.isEmpty else {
                throw OfflineConfigurationError(
                    file: file, line: env.line,
                    "the environment variable \(env.value) (the service password) is not set")
            }
            return ServiceAccount(user: user.value, password: password)
        case (nil, let path?):
            let url =
                path.value.hasPrefix("/") ? URL(fileURLWithPath: path.value) : folder.appendingPathComponent(path.value)
            do {
                return ServiceAccount(user: user.value, password: try PrivateFiles.readSecret(url, role: "password"))
            } catch {
                throw OfflineConfigurationError(file: file, line: path.line, error.message)
            }
        case (_?, _?):
            throw OfflineConfigurationError(
                file: file, line: user.line, "service_password_env or service_password_file, not both")
        case (nil, nil):
            throw OfflineConfigurationError(
                file: file, line: user.line, "service_user needs service_password_env or service_password_file")
        }
    }
}
