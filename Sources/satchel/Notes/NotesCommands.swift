import ArgumentParser
import Foundation
import SatchelCMIS
import SatchelCMISCore

extension MobileDocumentsNotes {
    /// The notes of the session's MyDocuments folder, or of its root folder (saying so on standard error).
    static func open(_ session: CMISSession) -> MobileDocumentsNotes {
        let notes = MobileDocumentsNotes(session: session)
        if !notes.isMyDocuments {
            Terminal.writeError(
                "satchel: note: repository \(session.repositoryId) has no MyDocuments folder; using its root folder\n")
        }
        return notes
    }

    /// The note called `name`, or exit code 5.
    func existing(named name: String) async throws -> CMISObject {
        guard let note = try await note(named: name) else {
            throw CLIError(.notFound, "no note named \"\(name)\"")
        }
        return note
    }
}

/// The options of every `satchel notes` command.
struct NotesOptions: ParsableArguments, Sendable {
    @OptionGroup var cmis: CMISOptions
    @OptionGroup var connection: ConnectionOptions
    @OptionGroup var global: GlobalOptions

    func withStore(_ work: @escaping @Sendable (MobileDocumentsNotes) async throws -> Void) async throws {
        let runner = CMISConnection(
            connection: connection, cmis: cmis, global: global, mobileDocumentsDefaults: true)
        try await runner.withSession { session in try await work(MobileDocumentsNotes.open(session)) }
    }
}

/// Where a note's new text comes from: `--text` or `--file` (standard input is up to the command).
struct NoteTextOptions: ParsableArguments, Sendable {
    @Option(help: ArgumentHelp("The note's text.", valueName: "text"))
    var text: String?

    @Option(help: ArgumentHelp("Read the note's text from this file.", valueName: "file"))
    var file: String?

    func validate() throws {
        if text != nil, file != nil { throw ValidationError("give --text or --file, not both") }
    }

    /// The text from `--text` or `--file`, or nil when neither was given.
    func given() throws -> Data? {
        if let text { return Data(text.utf8) }
        if let file {
            let url = try CMISOutput.readableFile(file)
            do { return try Data(contentsOf: url) } catch { throw CLIError(.localFile, "cannot read \(file)") }
        }
        return nil
    }
}

struct NotesListCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "list", abstract: "List the notes: size, modified, name.")

    @OptionGroup var options: NotesOptions

    func run() async throws {
        try await options.withStore { store in
            for note in try await store.notes() {
                try CMISOutput.line(
                    [
                        CMISOutput.pad(note.contentStreamLength.map(String.init) ?? "-", 10, right: true),
                        CMISOutput.date(note.lastModificationDate), note.name ?? "",
                    ].joined(separator: "  "))
            }
        }
    }
}

struct NotesShowCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "show", abstract: "Print a note's text.")

    @Argument(help: ArgumentHelp("The note's name.", valueName: "name"))
    var name: String

    @OptionGroup var options: NotesOptions

    func run() async throws {
        let name = name
        try await options.withStore { store in
            try Terminal.writeOutput(try await store.text(of: try await store.existing(named: name)))
        }
    }
}

struct NotesCreateCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "create", abstract: "Create a note from --text, --file or standard input.")

    @Argument(help: ArgumentHelp("The note's name.", valueName: "name"))
    var name: String

    @OptionGroup var text: NoteTextOptions
    @OptionGroup var options: NotesOptions

    func run() async throws {
        let (name, text) = (name, text)
        try await options.withStore { store in
            let content = try text.given() ?? FileHandle.standardInput.readDataToEndOfFile()
            _ = try await store.create(named: name, text: content)
        }
    }
}

struct NotesEditCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "edit",
        abstract: "Replace a note's text from --text, --file or $EDITOR (--editor).",
        discussion: """
            Replaces the note's content in one setContentStream, guarded by its change token (a note changed \
            meanwhile gives updateConflict); the note keeps its id. --editor opens the current text in $VISUAL or $EDITOR (default vi) \
            and saves what the editor leaves; an unchanged text is not saved.
            """
    )

    @Argument(help: ArgumentHelp("The note's name.", valueName: "name"))
    var name: String

    @OptionGroup var text: NoteTextOptions

    @Flag(help: "Edit the current text in $VISUAL or $EDITOR.")
    var editor = false

    @OptionGroup var options: NotesOptions

    func validate() throws {
        if editor, text.text != nil || text.file != nil {
            throw ValidationError("give --text, --file or --editor, only one")
        }
        if !editor, text.text == nil, text.file == nil {
            throw ValidationError("edit needs --text, --file or --editor")
        }
    }

    func run() async throws {
        let (name, text, editor) = (name, text, editor)
        try await options.withStore { store in
            let note = try await store.existing(named: name)
            let content: Data
            if editor {
                let current = try await store.text(of: note)
                content = try NoteEditor.edit(current, name: name)
                if content == current {
                    Terminal.writeError("satchel: note: \"\(name)\" is unchanged\n")
                    return
                }
            } else {
                content = try text.given() ?? Data()
            }
            // Guarded by the change token read with the note: a note changed meanwhile by someone else gives
            // updateConflict instead of losing their text.
            _ = try await store.update(note, text: content)
        }
    }
}

struct NotesRenameCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "rename", abstract: "Rename a note.")

    @Argument(help: ArgumentHelp("The note's name.", valueName: "old"))
    var old: String

    @Argument(help: ArgumentHelp("The new name.", valueName: "new"))
    var new: String

    @OptionGroup var options: NotesOptions

    func run() async throws {
        let (old, new) = (old, new)
        try await options.withStore { store in
            _ = try await store.rename(try await store.existing(named: old), to: new)
        }
    }
}

struct NotesDeleteCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "delete", abstract: "Delete a note.")

    @Argument(help: ArgumentHelp("The note's name.", valueName: "name"))
    var name: String

    @OptionGroup var options: NotesOptions

    func run() async throws {
        let name = name
        try await options.withStore { store in
            try await store.delete(try await store.existing(named: name))
        }
    }
}

/// Opens a note's text in the user's editor.
enum NoteEditor {
    static func edit(_ text: Data, name: String) throws -> Data {
        let directory = try ResponseOutput.temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let safeName = name.replacingOccurrences(of: "/", with: "_")
        let file = directory.appendingPathComponent(safeName.isEmpty ? "note.txt" : safeName)
        do { try text.write(to: file) } catch { throw CLIError(.localFile, "cannot write \(file.path)") }
        let editor = Terminal.environment("VISUAL") ?? Terminal.environment("EDITOR") ?? "vi"
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        // The editor setting may carry arguments (`code --wait`), as in git.
        process.arguments = ["-c", editor + " \"$1\"", "sh", file.path]
        do { try process.run() } catch { throw CLIError(.failure, "cannot start the editor \(editor)") }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw CLIError(.failure, "the editor \(editor) exited with status \(process.terminationStatus)")
        }
        do { return try Data(contentsOf: file) } catch { throw CLIError(.localFile, "cannot read \(file.path)") }
    }
}
