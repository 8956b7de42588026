import ArgumentParser

struct OfflineCommand: NotYetAvailableCommand {
    static let configuration = CommandConfiguration(
        commandName: "offline",
        abstract: "Work with offline OData stores.",
        discussion: """
            Opens an encrypted offline store built from defining queries (with the initial download), uploads \
            pending local changes, downloads changes from the server and reports progress.

            Not part of this build yet: running it exits with code 9.
            """
    )
    static let missing = "the offline OData store"

    @Argument(parsing: .allUnrecognized, help: .hidden)
    var arguments: [String] = []
}
