import ArgumentParser

struct CMISCommand: NotYetAvailableCommand {
    static let configuration = CommandConfiguration(
        commandName: "cmis",
        abstract: "Browse and manage documents in a CMIS repository.",
        discussion: """
            Lists, reads, creates, updates and deletes folders and documents over the CMIS Browser or AtomPub \
            binding, including SAP Mobile Documents (finding the MyDocuments repository, sending its XSRF \
            token), with upload and download progress.

            Not part of this build yet: running it exits with code 9.
            """
    )
    static let missing = "the CMIS client"

    @Argument(parsing: .allUnrecognized, help: .hidden)
    var arguments: [String] = []
}
