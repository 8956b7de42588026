import ArgumentParser

struct NotesCommand: NotYetAvailableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notes",
        abstract: "The Notes sample: notes stored as files in a CMIS repository.",
        discussion: """
            Lists, creates, edits and deletes notes, stored as documents of type application/vnd.sap.note in the \
            user's MyDocuments repository.

            Not part of this build yet: running it exits with code 9.
            """
    )
    static let missing = "the Notes sample"

    @Argument(parsing: .allUnrecognized, help: .hidden)
    var arguments: [String] = []
}
