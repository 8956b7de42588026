import ArgumentParser

/// `satchel cmis`: a CMIS client over the Browser binding (one file per concern in `Sources/satchel/CMIS/`).
struct CMISCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cmis",
        abstract: "Browse and manage documents in a CMIS repository.",
        discussion: """
            Lists, reads, creates, moves, renames and deletes folders and documents, shows trees, checks documents out and in, lists versions and reads or changes ACLs over the CMIS Browser binding \
            or AtomPub (--binding atom; --url is the binding's service URL), including SAP Mobile Documents (--mobile-documents: completes \
            the URL, prefers the MyDocuments repository, sends its XSRF token), with upload and download progress. \
            Paths are folder paths from the repository's root (/Reports/q3.pdf).

            CMIS errors exit 5 (objectNotFound), 4 (permissionDenied, unauthorized), 3 (connection) or 6 (any \
            other CMIS exception). 
            """,
        subcommands: [
            CMISReposCommand.self,
            CMISInfoCommand.self,
            CMISListCommand.self,
            CMISGetCommand.self,
            CMISPutCommand.self,
            CMISMkdirCommand.self,
            CMISRemoveCommand.self,
            CMISMoveCommand.self,
            CMISQueryCommand.self,
            CMISTreeCommand.self,
            CMISCheckOutCommand.self,
            CMISCheckInCommand.self,
            CMISCancelCheckOutCommand.self,
            CMISVersionsCommand.self,
            CMISACLCommand.self,
            CMISSyncCommand.self,
        ]
    )
}
