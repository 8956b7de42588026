import ArgumentParser

/// `satchel odata`: OData V2/V4 tools (one file per concern in `Sources/satchel/OData/`).
struct ODataCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "odata",
        abstract: "Query OData V2 and V4 services and generate Swift proxies.",
        discussion: """
            query, get, count: read a live service (V2 or V4), entities as JSON lines.
            create, update, delete: change it (--json as the service's JSON for its version).
            call: a function import, function or action, with --param Name=literal.
            generate: typed Swift proxies from a service's $metadata (a file or a URL).
            """,
        subcommands: [
            ODataQueryCommand.self, ODataGetCommand.self, ODataCountCommand.self, ODataCreateCommand.self,
            ODataUpdateCommand.self, ODataDeleteCommand.self, ODataCallCommand.self, ODataGenerateCommand.self,
        ]
    )
}
