public import ArgumentParser
import Logging

/// Options every command takes: how much to log and whether to show progress.
struct GlobalOptions: ParsableArguments, Sendable {
    @Flag(
        name: .shortAndLong,
        help: "Log requests to standard error (-v debug, -vv trace with redacted headers); repeatable."
    )
    var verbose: Int

    @Option(help: ArgumentHelp("Log level, overriding -v.", valueName: "level"))
    var logLevel: Logger.Level?

    @Flag(name: .shortAndLong, help: "Show no progress.")
    var quiet = false

    /// The level in effect: warnings and errors only unless asked for more.
    var level: Logger.Level {
        logLevel ?? (verbose >= 2 ? .trace : verbose == 1 ? .debug : .warning)
    }

    /// Whether errors are printed with their full context.
    var isVerbose: Bool { level <= .debug }

    /// Sends every log line to standard error; SatchelHTTP redacts secrets before it logs.
    func bootstrapLogging() {
        let level = level
        LoggingSystem.bootstrap { label in
            var handler = StreamLogHandler.standardError(label: label)
            handler.logLevel = level
            return handler
        }
    }
}

extension Logger.Level: @retroactive ExpressibleByArgument {}
