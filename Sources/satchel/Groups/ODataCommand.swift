import ArgumentParser

struct ODataCommand: NotYetAvailableCommand {
    static let configuration = CommandConfiguration(
        commandName: "odata",
        abstract: "Query OData V2 and V4 services and generate Swift proxies.",
        discussion: """
            Reads $metadata, queries entity sets with filters, paging and delta, sends $batch requests through \
            the SAP Gateway CSRF handshake, and generates typed Swift proxy classes from a service's metadata.

            Not part of this build yet: running it exits with code 9.
            """
    )
    static let missing = "the OData client"

    @Argument(parsing: .allUnrecognized, help: .hidden)
    var arguments: [String] = []
}
