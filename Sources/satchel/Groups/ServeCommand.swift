import ArgumentParser
import Foundation
import Logging
import SatchelServer

/// `satchel serve`: the CMIS repository server.
struct ServeCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "serve",
        abstract: "Run the CMIS repository server.",
        discussion: """
            Serves CMIS 1.1 over the Browser binding (and AtomPub when it is part of the build) at /mcm/b/json \
            (SAP Mobile Documents) and /cmis/browser (plain CMIS), with a MyDocuments repository per user beside \
            the shared one, XSRF tokens, and HTTP Basic or form-login authentication. Ctrl-C (or SIGTERM) stops \
            it after the requests in flight.

            Without --users, users come from <data>/users.json; when that file does not exist a user named demo \
            is created with a random password, which is printed once and stored (hashed) in that file. Add users \
            with `satchel serve hash-password NAME`, which reads a password from standard input and prints a \
            users-file entry.
            """,
        subcommands: [ServeRunCommand.self, ServeHashPasswordCommand.self, ServeOfflineStatusCommand.self],
        defaultSubcommand: ServeRunCommand.self
    )
}
