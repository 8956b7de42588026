import ArgumentParser

/// What every command does around its work: logging, Ctrl-C, and turning failures into exit codes.
enum CommandRunner {
    /// Runs `work`; a failure is printed as one line and ends the process with its exit code.
    static func run(_ global: GlobalOptions, _ work: @escaping @Sendable () async throws -> Void) async throws {
        global.bootstrapLogging()
        do {
            try await Interrupts.cancellingOnInterrupt(work)
        } catch let exit as ExitCode {
            throw exit  // already said
        } catch {
            let code = ErrorReport.report(error, verbose: global.isVerbose)
            throw ExitCode(code.rawValue)
        }
    }
}
