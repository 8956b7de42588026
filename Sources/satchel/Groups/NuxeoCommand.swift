import ArgumentParser

struct NuxeoCommand: NotYetAvailableCommand {
    static let configuration = CommandConfiguration(
        commandName: "nuxeo",
        abstract: "Talk to a Nuxeo server.",
        discussion: """
            Fetches documents by path or id with schemas and enrichers, runs Automation operations, and \
            downloads blobs through the shared blob cache.

            Not part of this build yet: running it exits with code 9.
            """
    )
    static let missing = "the Nuxeo client"

    @Argument(parsing: .allUnrecognized, help: .hidden)
    var arguments: [String] = []
}
