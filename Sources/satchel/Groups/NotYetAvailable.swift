import ArgumentParser

/// What a command group that is not built yet does when run: say so, and exit 9.
///
/// Every argument is accepted, so `satchel cmis ls /` gets this message rather than a usage error.
protocol NotYetAvailableCommand: AsyncParsableCommand {
    /// What the message calls the missing piece ("the CMIS repository server").
    static var missing: String { get }
    var arguments: [String] { get }
}

extension NotYetAvailableCommand {
    func run() async throws {
        let name = Self.configuration.commandName ?? "command"
        Terminal.writeError("satchel \(name): \(Self.missing) is not part of this build yet\n")
        throw ExitCode(SatchelExitCode.notAvailable.rawValue)
    }
}
