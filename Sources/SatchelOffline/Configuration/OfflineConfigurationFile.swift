public import Foundation
import SatchelOData

/// A store's configuration in the `.ini` shape of SAP's offline application configuration: an `[endpoint]` section,
/// then one section per defining query.
///
/// ```ini
/// [endpoint]
/// url = https://gw.example.com/sap/opu/odata/IWBEP/GWSAMPLE_BASIC
/// sap_client = 100
/// store = gw.store          ; relative to the file's folder (default: <name>.store, or offline.store)
/// user = alice              ; password from SATCHEL_PASSWORD
/// csrf = yes                ; SAP Gateway's CSRF handshake before changes
/// timeout = 120             ; seconds a request to the service may be silent (default 60)
/// max_delta_resends = 5     ; resends of a request the service fails before it goes to the ErrorArchive
/// repeatable_requests = yes ; Repeatability-Request-ID on every request (default yes)
/// payload_format = atom     ; V2 entities as Atom XML, json, or auto (default: JSON asked for, Atom accepted)
/// middle_tier = yes         ; url is Satchel's middle tier (satchel serve --offline): the first open receives a
///                           ; store built there
/// indexed_type = GWSAMPLE_BASIC.Product: Category ASC, Price   ; one line per type
///
/// [products]
/// query = ProductSet?$filter=Category eq 'Notebooks'
/// streams = no
/// track_deltas = AUTO      ; AUTO, ALWAYS or NEVER
///
/// [defining_query]          ; SAP's own form: the name as a key
/// name = categories
/// query = CategorySet
/// ```
///
/// A malformed line or value is refused with its line (``OfflineConfigurationError``); a key `satchel offline`
/// does not use (a key of the middle tier's file, a misspelling) is kept in ``warnings`` with its line, for the
/// caller to show, never silently dropped.
public struct OfflineConfigurationFile: Sendable, Equatable {
    /// The service's root (`url`): an `http` or `https` address with a host.
    public var serviceURL: URL
    /// SAP Gateway's client number (`sap_client`); nil when the file gives none.
    public var sapClient: String?
    /// The store's file (`store`), absolute: a relative path is taken from the configuration file's folder; without
    /// `store`, `<name>.store` (the `[endpoint]`'s `name`), or `offline.store`.
    public var storePath: String
    /// The user to sign in as (`user`); nil when the file names none.
    public var user: String?
    /// Whether SAP Gateway's CSRF token handshake comes before changes (`csrf = yes`); false by default.
    public var csrf: Bool
    /// How long a request to the service may be silent (`timeout`, in seconds); nil when the file gives none.
    public var timeout: Duration?
    /// How many times a request the service fails is sent again before it goes to the ErrorArchive
    /// (`max_delta_resends`, 0 to 1000); nil when the file gives none.
    public var maximumResends: Int?
    /// Whether queued requests carry repeatability headers (`repeatable_requests`,
    /// ``OfflineStore/Configuration/repeatableRequests``); nil when the file does not say.
    public var repeatableRequests: Bool?
    /// The format of V2 entities (`payload_format`: `auto`, `json` or `atom`,
    /// `ODataService.Configuration.payloadFormat`); nil when the file does not say.
    public var payloadFormat: ODataPayloadFormat?
    /// Whether `url` is an endpoint of Satchel's offline middle tier (`middle_tier = yes`): the first open then
    /// receives a store built on the server (``OfflineStore/Configuration/usesMiddleTier``).
    public var usesMiddleTier: Bool
    /// The defining queries, one per section other than `[endpoint]`, in the file's order (at least one).
    public var definingQueries: [OfflineDefiningQuery]
    /// Secondary indexes from `indexed_type`: entity type → property paths.
    public var indexes: [String: [String]]
    /// Keys found but not used, each with its line.
    public var warnings: [OfflineConfigurationWarning]

    /// The keys of `[endpoint]` that `satchel offline` reads.
    public static let endpointKeys: Set<String> = [
        "url", "sap_client", "store", "user", "csrf", "indexed_type", "name", "middle_tier", "timeout",
        "max_delta_resends", "repeatable_requests", "payload_format",
    ]
    /// The keys of a defining query's section that `satchel offline` reads.
    public static let queryKeys: Set<String> = ["name", "query", "streams", "track_deltas"]
    /// Keys of SAP's application configuration that only a middle tier uses.
    static let middleTierKeys: [String: String] = Dictionary(
        uniqueKeysWithValues: OfflineIniDocument.MiddleTierKeys.all.subtracting(endpointKeys).subtracting(queryKeys)
            .map { ($0, "a key of the middle tier's configuration (satchel serve --offline), not of a client's") })

    /// Reads the file at `path`. Errors name the line.
    public init(contentsOf path: String) throws(OfflineConfigurationError) {
        try self.init(
            document: try OfflineIniDocument(contentsOf: path),
            folder: URL(fileURLWithPath: path).deletingLastPathComponent().path)
    }

    /// Reads a configuration from `text`: a relative `store` is taken from `folder`, and errors and warnings name the
    /// file `name`.
    public init(text: String, folder: String, name: String = "configuration") throws(OfflineConfigurationError) {
        try self.init(document: try OfflineIniDocument(text: text, name: name), folder: folder)
    }

    init(document: OfflineIniDocument, folder: String) throws(OfflineConfigurationError) {
        let name = document.name
        let endpoints = document.sections.filter { $0.name.lowercased() == "endpoint" }
        guard let endpoint = endpoints.first else {
            throw OfflineConfigurationError(file: name, line: nil, "no [endpoint] section")
        }
        guard endpoints.count == 1 else {
            throw OfflineConfigurationError(
                file: name, line: endpoints[1].line, "a client's file has one [endpoint]: one store, one service")
        }
        var warnings = document.unknownKeys(in: endpoint, known: Self.endpointKeys, sapOnly: Self.middleTierKeys)
        guard let urlEntry = endpoint.entry("url") else {
            throw OfflineConfigurationError(file: name, line: endpoint.line, "[endpoint] needs url = http(s)://…")
        }
        guard let url = URL(string: urlEntry.value), url.scheme == "http" || url.scheme == "https", url.host != nil
        else {
            throw OfflineConfigurationError(
                file: name, line: urlEntry.line, "url is an http(s):// address, not \(urlEntry.value)")
        }
        serviceURL = url
        sapClient = endpoint.value("sap_client")
        user = endpoint.value("user")
        csrf = try document.flag("csrf", in: endpoint) ?? false
        if let entry = endpoint.entry("timeout") {
            guard let seconds = Double(entry.value), seconds > 0, seconds <= 86_400 else {
                throw OfflineConfigurationError(
                    file: name, line: entry.line, "timeout is a number of seconds (up to 86400), not \(entry.value)")
            }
            timeout = .milliseconds(Int64((seconds * 1000).rounded()))
        } else {
            timeout = nil
        }
        maximumResends = try document.number("max_delta_resends", in: endpoint, range: 0...1000)
        repeatableRequests = try document.flag("repeatable_requests", in: endpoint)
        if let entry = endpoint.entry("payload_format") {
            switch entry.value.lowercased() {
            case "auto", "automatic": payloadFormat = .automatic
            case "json": payloadFormat = .json
            case "atom", "xml": payloadFormat = .atom
            default:
                throw OfflineConfigurationError(
                    file: name, line: entry.line, "payload_format is auto, json or atom, not \(entry.value)")
            }
        } else {
            payloadFormat = nil
        }
        usesMiddleTier = try document.flag("middle_tier", in: endpoint) ?? false
        let store = endpoint.value("store") ?? ((endpoint.value("name") ?? "offline") + ".store")
        storePath = store.hasPrefix("/") ? store : URL(fileURLWithPath: folder).appendingPathComponent(store).path
        indexes = try document.indexes(in: endpoint)

        var queries: [OfflineDefiningQuery] = []
        var seen: [String: Int] = [:]
        for section in document.sections where section.name.lowercased() != "endpoint" {
            warnings += document.unknownKeys(in: section, known: Self.queryKeys, sapOnly: Self.middleTierKeys)
            let query = try OfflineDefiningQuery(section: section, in: document)
            if let first = seen[query.name] {
                throw OfflineConfigurationError(
                    file: name, line: section.line,
                    "a second defining query named \(query.name) (the first: line \(first))")
            }
            seen[query.name] = section.line
            queries.append(query)
        }
        guard !queries.isEmpty else {
            throw OfflineConfigurationError(file: name, line: nil, "no defining query sections")
        }
        definingQueries = queries
        self.warnings = warnings
    }
}

extension OfflineDefiningQuery {
    /// The defining query of a section: SAP's `[defining_query]` (or the older `[defining_request]`) with a
    /// `name` key, or a section named for the query.
    init(section: OfflineIniDocument.Section, in document: OfflineIniDocument) throws(OfflineConfigurationError) {
        let file = document.name
        let generic = ["defining_query", "defining_request"].contains(section.name.lowercased())
        let name: String
        if generic {
            guard let given = section.value("name"), !given.isEmpty else {
                throw OfflineConfigurationError(file: file, line: section.line, "[\(section.name)] needs name = …")
            }
            name = given
        } else {
            name = section.value("name") ?? section.name
        }
        guard let query = section.value("query"), !query.isEmpty else {
            throw OfflineConfigurationError(file: file, line: section.line, "[\(section.name)] needs query = …")
        }
        let streams = try document.flag("streams", in: section) ?? false
        let deltaTracking = try document.deltaTracking(in: section)
        self.init(name: name, query: query, retrievesStreams: streams, deltaTracking: deltaTracking)
    }
}
