public import Foundation
import SatchelOData

/// A store's configuration in the `.ini` shape of SAP's offline application configuration: an `[endpoint]` section,
/// then one section per defining query.
///
/// ```ini
/// [endpoint]
/// url = https://gw.example.com/sap/opu/odata/IWBEP/GWSAMPLE_BASIC
/// sap_client = 100
/// store = gw.store          ; relative to the file's folder (default: <section file name>.store)
/// user = alice              ; password from SATCHEL_PASSWORD
/// csrf = yes                ; SAP Gateway's CSRF handshake before changes
/// indexed_type = GWSAMPLE_BASIC.Product: Category ASC, Price   ; one line per type
///
/// [products]
/// query = ProductSet?$filter=Category eq 'Notebooks'
/// streams = no
/// track_deltas = AUTO      ; AUTO, ALWAYS or NEVER
/// ```
public struct OfflineConfigurationFile: Sendable, Equatable {
    public var serviceURL: URL
    public var sapClient: String?
    public var storePath: String
    public var user: String?
    public var csrf: Bool
    public var definingQueries: [OfflineDefiningQuery]
    /// Secondary indexes from `indexed_type`: entity type → property paths.
    public var indexes: [String: [String]]

    /// Reads the file at `path`. Errors name the line.
    public init(contentsOf path: String) throws {
        let text: String
        do { text = try String(contentsOfFile: path, encoding: .utf8) } catch {
            throw ODataError(.invalidArgument, "cannot read the configuration \(path): \(error.localizedDescription)")
        }
        try self.init(text: text, folder: URL(fileURLWithPath: path).deletingLastPathComponent().path, name: path)
    }

    public init(text: String, folder: String, name: String = "configuration") throws {
        var sections: [(name: String, values: [String: String])] = []
        var indexes: [String: [String]] = [:]
        for (number, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            var line = rawLine.trimmingCharacters(in: .whitespaces)
            if let comment = line.firstIndex(where: { $0 == ";" || $0 == "#" }), !line.hasPrefix("query") {
                line = String(line[..<comment]).trimmingCharacters(in: .whitespaces)
            }
            if line.isEmpty { continue }
            if line.hasPrefix("[") {
                guard line.hasSuffix("]"), line.count > 2 else {
                    throw ODataError(.invalidArgument, "\(name) line \(number + 1): a section is [name]")
                }
                sections.append((String(line.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces), [:]))
                continue
            }
            guard let equals = line.firstIndex(of: "="), !sections.isEmpty else {
                throw ODataError(.invalidArgument, "\(name) line \(number + 1): expected key = value inside a section")
            }
            let key = line[..<equals].trimmingCharacters(in: .whitespaces).lowercased()
            let value = line[line.index(after: equals)...].trimmingCharacters(in: .whitespaces)
            if key == "indexed_type" {
                // `Ns.Type: Prop [ASC|DESC], …` (an SQLite index serves either order).
                guard let colon = value.firstIndex(of: ":") else {
                    throw ODataError(
                        .invalidArgument, "\(name) line \(number + 1): indexed_type = Namespace.Type: Property, …")
                }
                let type = value[..<colon].trimmingCharacters(in: .whitespaces)
                let properties = value[value.index(after: colon)...].split(separator: ",").compactMap {
                    $0.split(separator: " ").first.map(String.init)
                }
                guard !type.isEmpty, !properties.isEmpty else {
                    throw ODataError(
                        .invalidArgument, "\(name) line \(number + 1): indexed_type = Namespace.Type: Property, …")
                }
                indexes[type, default: []] += properties
                continue
            }
            sections[sections.count - 1].values[key] = value
        }
        guard let endpoint = sections.first(where: { $0.name.lowercased() == "endpoint" })?.values else {
            throw ODataError(.invalidArgument, "\(name): no [endpoint] section")
        }
        guard let url = endpoint["url"].flatMap(URL.init(string:)), url.scheme == "http" || url.scheme == "https" else {
            throw ODataError(.invalidArgument, "\(name): [endpoint] needs url = http(s)://…")
        }
        serviceURL = url
        sapClient = endpoint["sap_client"]
        user = endpoint["user"]
        csrf = ["yes", "true", "y", "1"].contains(endpoint["csrf"]?.lowercased() ?? "no")
        let store = endpoint["store"] ?? ((endpoint["name"] ?? "offline") + ".store")
        storePath = store.hasPrefix("/") ? store : URL(fileURLWithPath: folder).appendingPathComponent(store).path
        definingQueries = try sections.filter { $0.name.lowercased() != "endpoint" }.map { section in
            guard let query = section.values["query"], !query.isEmpty else {
                throw ODataError(.invalidArgument, "\(name): [\(section.name)] needs query = …")
            }
            let streams = ["yes", "true", "y", "1"].contains(section.values["streams"]?.lowercased() ?? "no")
            let tracking = section.values["track_deltas"] ?? "auto"
            guard let deltaTracking = OfflineDeltaTracking(rawValue: tracking.lowercased()) else {
                throw ODataError(
                    .invalidArgument,
                    "\(name): [\(section.name)] track_deltas is AUTO, ALWAYS or NEVER, not \(tracking)")
            }
            return OfflineDefiningQuery(
                name: section.name, query: query, retrievesStreams: streams, deltaTracking: deltaTracking)
        }
        self.indexes = indexes
        guard !definingQueries.isEmpty else {
            throw ODataError(.invalidArgument, "\(name): no defining query sections")
        }
    }
}
