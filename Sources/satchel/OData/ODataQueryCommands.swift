import ArgumentParser
import Foundation
import SatchelHTTP
import SatchelOData

/// The service every `satchel odata` command names, and the connection options.
struct ODataServiceOptions: ParsableArguments {
    @Argument(help: ArgumentHelp("The service root URL.", valueName: "service-url")) var service: String
    @Option(
        name: .customLong("payload-format"),
        help: ArgumentHelp(
            "OData V2 entities as json, atom (Atom XML) or auto (JSON asked for, Atom accepted).", valueName: "format"))
    var payloadFormat: PayloadFormatOption = .auto
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var global: GlobalOptions

    func makeService() throws -> ODataService {
        let url = try ConnectionOptions.url(service, option: "service-url")
        var configuration = ODataService.Configuration(serviceURL: url)
        configuration.payloadFormat = payloadFormat.format
        return ODataService(configuration: configuration, client: try connection.makeClient())
    }
}

/// The service and entity set every `satchel odata` read and write names.
struct ODataTarget: ParsableArguments {
    @OptionGroup var endpoint: ODataServiceOptions
    @Argument(help: "The entity set.") var entitySet: String

    var global: GlobalOptions { endpoint.global }
    func makeService() throws -> ODataService { try endpoint.makeService() }
}

/// `$select`, `$expand`, `$orderby`, `$top` and `$skip` from the command line (reads online and offline).
struct QueryShapeOptions: ParsableArguments {
    @Option(help: "Properties to keep, comma separated.") var select: String?
    @Option(help: "Navigation properties to expand, comma separated.") var expand: String?
    @Option(help: "Order, comma separated (Name desc, ID).") var orderby: String?
    @Option(help: "At most this many.") var top: Int?
    @Option(help: "Skip this many.") var skip: Int?

    func apply(to query: ODataQuery) -> ODataQuery {
        var query = query
        if let select { query = query.select(Self.list(select)) }
        for path in Self.list(expand ?? "") { query = query.expand(path) }
        query = query.orderBy(list: orderby ?? "")
        if let top { query = query.top(top) }
        if let skip { query = query.skip(skip) }
        return query
    }

    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}

/// A target and the `$filter` the collection reads share.
struct ODataReadOptions: ParsableArguments {
    @OptionGroup var target: ODataTarget

    @Option(help: "A $filter expression (in the service's OData version).")
    var filter: String?

    var global: GlobalOptions { target.global }
    var entitySet: String { target.entitySet }
    func makeService() throws -> ODataService { try target.makeService() }

    func query(_ service: ODataService) async throws -> ODataQuery {
        guard let filter else { return ODataQuery() }
        return ODataQuery().filter(try ODataExpression.parse(filter, version: try await service.version()))
    }
}

/// `satchel odata query SERVICE SET`: entities as JSON lines, following next links.
struct ODataQueryCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "query", abstract: "Read entities of a set as JSON lines (next links followed).",
        discussion: """
            Example: satchel odata query https://host/odata Products --filter "Price gt 10" --orderby "Price desc" \
            --top 5 --select ID,Name
            """)

    @OptionGroup var read: ODataReadOptions
    @OptionGroup var shape: QueryShapeOptions

    func run() async throws {
        let command = self
        try await CommandRunner.run(read.global) {
            let service = try command.read.makeService()
            let query = command.shape.apply(to: try await command.read.query(service))
            for try await entity in service.entities(ODataPath(command.read.entitySet), query: query) {
                print(try jsonLine(entity, serviceURL: service.configuration.serviceURL))
            }
        }
    }
}

/// `satchel odata get SERVICE SET KEY`: one entity as JSON.
struct ODataGetCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "get", abstract: "Read one entity by key as JSON (keys: 3, 'HT-1000', A=1,B=2).")

    @OptionGroup var target: ODataTarget
    @Argument(help: "The key.") var key: String
    @Option(help: "Properties to keep, comma separated.") var select: String?

    func run() async throws {
        let command = self
        try await CommandRunner.run(target.global) {
            let service = try command.target.makeService()
            var query = ODataQuery()
            if let select = command.select { query = query.select(QueryShapeOptions.list(select)) }
            let entity = try await service.entity(
                command.target.entitySet, key: try odataKey(command.key), query: query)
            print(try jsonLine(entity, serviceURL: service.configuration.serviceURL))
        }
    }
}

/// `satchel odata count SERVICE SET`: how many entities a filter selects.
struct ODataCountCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "count", abstract: "Count the entities of a set ($count), with an optional $filter.")

    @OptionGroup var read: ODataReadOptions

    func run() async throws {
        let command = self
        try await CommandRunner.run(read.global) {
            let service = try command.read.makeService()
            print(
                try await service.count(ODataPath(command.read.entitySet), query: try await command.read.query(service))
            )
        }
    }
}

/// A key given on the command line: `3`, `'HT-1000'`, or `OrderID=1,LineNumber=2` (V4 literals).
func odataKey(_ text: String) throws -> ODataKey {
    do {
        return try ODataKey(parsing: text, version: .v4)
    } catch {
        throw CLIError(.usage, "a key is a literal: 3, 'HT-1000', or Name=value,Name=value (\(error.message))")
    }
}

/// `--payload-format`: how OData V2 entities travel (``ODataPayloadFormat``).
enum PayloadFormatOption: String, ExpressibleByArgument, CaseIterable, Sendable {
    case auto, json, atom

    var format: ODataPayloadFormat {
        switch self {
        case .auto: .automatic
        case .json: .json
        case .atom: .atom
        }
    }
}
