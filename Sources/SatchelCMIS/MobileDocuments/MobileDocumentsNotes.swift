public import Foundation
public import SatchelCMISCore

/// The SAP Mobile Documents Notes app's notes, for an app to show and edit: documents of the note MIME type
/// (`MobileDocuments.noteMimeType`) in the user's MyDocuments folder. `satchel notes` is built on it.
///
/// ```swift
/// let session = try await CMISSession.connect(SessionParameters(
///     url: MobileDocuments.endpoint(for: server, binding: .browser), preferMyDocuments: true,
///     auth: [BasicAuth(user: "alice", password: password)], tokenHeader: "X-CSRF-Token"))
/// let notes = MobileDocumentsNotes(session: session)
/// let note = try await notes.create(named: "Shopping", text: Data("milk".utf8))
/// _ = try await notes.update(note, text: Data("milk, eggs".utf8))   // refused if someone changed it meanwhile
/// ```
public struct MobileDocumentsNotes: Sendable {
    /// The session the notes are read and written with.
    public let session: CMISSession
    /// The folder the notes are in.
    public let folderId: String
    /// Whether that is the MyDocuments folder; false when the repository has none and its root folder is used.
    public let isMyDocuments: Bool

    /// The notes in `folderId`, by default the MyDocuments folder, or the root folder of a repository without one.
    public init(session: CMISSession, folderId: String? = nil) {
        self.session = session
        let myDocuments = session.myDocumentsFolderId
        self.folderId = folderId ?? myDocuments ?? session.repositoryInfo.rootFolderId
        isMyDocuments = self.folderId == myDocuments
    }

    /// Every note in the folder (other documents and folders are left out), read page by page.
    public func notes() async throws -> [CMISObject] {
        var notes: [CMISObject] = []
        for try await child in session.children(of: folderId)
        where child.object.baseType == .document && child.object.contentStreamMimeType == MobileDocuments.noteMimeType {
            notes.append(child.object)
        }
        return notes
    }

    /// The note called `name`, or nil.
    public func note(named name: String) async throws -> CMISObject? {
        try await notes().first { $0.name == name }
    }

    /// A note's text.
    public func text(of note: CMISObject) async throws -> Data {
        try await session.content(of: try Self.id(of: note))
    }

    /// A new note.
    public func create(named name: String, text: Data) async throws -> CMISObject {
        try await session.createDocument(
            named: name, in: folderId, content: .data(text, filename: name, mimeType: MobileDocuments.noteMimeType))
    }

    /// Replaces a note's text in one change, guarded by the change token it was read with: a note changed
    /// meanwhile gives `updateConflict` instead of losing the other change. The note keeps its id.
    public func update(_ note: CMISObject, text: Data) async throws -> CMISObject {
        try await session.setContent(
            of: try Self.id(of: note),
            to: .data(text, filename: note.name ?? "note", mimeType: MobileDocuments.noteMimeType),
            changeToken: note.changeToken)
    }

    /// Renames a note (its `cmis:name`); returns it as changed.
    public func rename(_ note: CMISObject, to name: String) async throws -> CMISObject {
        try await session.rename(try Self.id(of: note), to: name)
    }

    /// Deletes a note, with all its versions.
    public func delete(_ note: CMISObject) async throws {
        try await session.delete(try Self.id(of: note))
    }

    static func id(of note: CMISObject) throws(CMISError) -> String {
        guard let id = note.id else { throw CMISError(.invalidResponse, "the note came back without an id") }
        return id
    }
}
