import ArgumentParser

/// `satchel notes`: the seed's Notes app — notes are documents in the user's MyDocuments folder.
struct NotesCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "notes",
        abstract: "The Notes sample: notes stored as files in a CMIS repository.",
        discussion: """
            A note is a document of MIME type application/vnd.sap.note in the user's MyDocuments folder (the \
            repository's myDocuments extension, as SAP Mobile Documents announces it); its name is the note's \
            name. Without a MyDocuments folder the repository's root folder is used, with a note on standard \
            error. The MyDocuments repository is preferred and its XSRF token is sent back whether or not \
            --mobile-documents is given (that option also completes a bare server URL with mcm/b/json).

            edit replaces a note's content in place (one setContentStream guarded by the note's change token, so a \
            note someone changed meanwhile gives updateConflict instead of losing their text); the note keeps its \
            id. Every command works over the Browser binding (the default) or AtomPub (--binding atom).
            """,
        subcommands: [
            NotesListCommand.self,
            NotesShowCommand.self,
            NotesCreateCommand.self,
            NotesEditCommand.self,
            NotesRenameCommand.self,
            NotesDeleteCommand.self,
        ]
    )
}
