import ArgumentParser
import Foundation
import SatchelServer

/// `satchel serve hash-password NAME`: reads a password from standard input and prints a users-file entry.
struct ServeHashPasswordCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "hash-password",
        abstract: "Read a password from standard input and print a users-file entry (PBKDF2-SHA256).",
        discussion: """
            Example: printf '%s' "$PASSWORD" | satchel serve hash-password alice
            Put the printed object into the "users" array of the users file.
            """)

    @Argument(help: "The user name.")
    var name = "user"

    @Flag(
        help:
            "Mark the user an administrator: cmis:all in the shared repository, the only one who may change its root's ACL."
    )
    var admin = false

    @Option(help: "PBKDF2 rounds.")
    var rounds = PasswordHash.defaultRounds

    func validate() throws {
        guard UsersFile.isValidUserName(name) else {
            throw ValidationError("the user name may have letters, digits and . _ - @ (up to 64 characters)")
        }
        guard rounds >= 1_000 && rounds <= 10_000_000 else { throw ValidationError("--rounds must be 1000…10000000") }
    }

    func run() async throws {
        guard let password = Terminal.readLine(), !password.isEmpty else {
            Terminal.writeError("satchel serve hash-password: no password on standard input\n")
            throw ExitCode(SatchelExitCode.usage.rawValue)
        }
        let hash = try PasswordHash.make(password: password, rounds: rounds)
        print(UsersFile.entryJSON(name: name, hash: hash, isAdministrator: admin))
    }
}
