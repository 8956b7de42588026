import ArgumentParser
import SatchelHTTP

/// The `satchel` command: a thin shell over the Satchel libraries.
///
/// Every group lives in its own file; the groups that are not built yet are listed so the command tree is
/// stable, and they say so when run (exit code 9) instead of pretending to work.
@main
struct Satchel: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "satchel",
        abstract: "Enterprise content and data from the command line: HTTP, CMIS, OData, offline stores, Nuxeo.",
        discussion: """
            Options such as --verbose, --user or --timeout belong to the command that uses them: write them after \
            the subcommand (satchel http get -v URL). Passwords are never accepted as argument values: pipe them \
            with --password-stdin or put them in an environment variable (SATCHEL_PASSWORD by default).

            EXIT CODES
            \(SatchelExitCode.helpTable)
            """,
        version: SatchelVersion.current,
        subcommands: [
            HTTPCommand.self,
            ServeCommand.self,
            CMISCommand.self,
            NotesCommand.self,
            ODataCommand.self,
            OfflineCommand.self,
            NuxeoCommand.self,
            CacheCommand.self,
            StoreCommand.self,
        ]
    )

    /// Runs the command line, with usage errors exiting 2 (ArgumentParser's own default is 64, `EX_USAGE`).
    ///
    /// Commands report their own failures and throw `ExitCode`; only parsing and validation errors reach here.
    static func main() async {
        do {
            var command = try parseAsRoot()
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            guard exitCode(for: error) == .validationFailure else { exit(withError: error) }
            Terminal.writeError(fullMessage(for: error) + "\n")
            Terminal.exit(SatchelExitCode.usage)
        }
    }
}
