import ArgumentParser

struct ServeCommand: NotYetAvailableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the CMIS repository server.",
        discussion: """
            Serves CMIS 1.1 over the AtomPub and Browser bindings, with a per-user MyDocuments repository and \
            XSRF tokens, users authenticated by the server, and storage in SQLite or PostgreSQL; later also an \
            offline OData sync endpoint.

            Not part of this build yet: running it exits with code 9.
            """
    )
    static let missing = "the CMIS repository server"

    @Argument(parsing: .allUnrecognized, help: .hidden)
    var arguments: [String] = []
}
