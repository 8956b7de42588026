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

            edit replaces a note's content in three steps, since the session has no content-update operation \
            yet: the new text is stored as a new note under a temporary name, the old note is deleted, and the \
            new one is renamed. A failure before the delete leaves the old note as it was; a failure after it \
            names the temporary note that holds the text.
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
