import Foundation
import SatchelCMIS

enum SatchelCMISExamples {
    /// GettingStarted.md: connect over the Browser binding.
    static func connect(serviceURL: URL, user: String, password: String) async throws -> CMISSession {
        var parameters = SessionParameters(url: serviceURL)
        parameters.auth = [BasicAuth(user: user, password: password)]
        let session = try await CMISSession.connect(parameters)
        let root = try await session.rootFolder()
        _ = (session.repositoryInfo.name, root.name)
        return session
    }

    /// GettingStarted.md: connect over AtomPub, choosing the repository.
    static func connectAtomPub(serviceURL: URL, user: String, password: String) async throws -> CMISSession {
        var parameters = SessionParameters(
            binding: .atomPub, url: serviceURL, auth: [BasicAuth(user: user, password: password)])
        let repositories = try await CMISSession.repositories(parameters)
        parameters.repositoryId = repositories.first?.id
        return try await CMISSession.connect(parameters)
    }

    /// GettingStarted.md: list a folder's children.
    static func listChildren(session: CMISSession, folderId: String) async throws -> [String] {
        var lines: [String] = []
        for try await child in session.children(of: folderId) {
            let object = child.object
            let kind = object.baseType == .folder ? "folder" : "document"
            lines.append("\(kind) \(object.name ?? "") \(object.contentStreamLength ?? 0)")
        }
        let first = try await session.childrenPage(of: folderId, maxItems: 20)
        lines.append("\(first.objects.count) of \(first.numItems ?? -1), more: \(first.hasMoreItems)")
        return lines
    }

    /// GettingStarted.md: create a folder and documents.
    static func create(session: CMISSession, pdfFile: URL) async throws -> CMISObject? {
        let folder = try await session.createFolder(named: "Reports", in: session.repositoryInfo.rootFolderId)
        guard let folderId = folder.id else { return nil }
        let note = try await session.createDocument(
            named: "summary.txt", in: folderId,
            content: .data(Data("Q3 went well.".utf8), filename: "summary.txt", mimeType: "text/plain"))
        let report = try await session.createDocument(
            named: "q3.pdf", in: folderId, content: .file(pdfFile, mimeType: "application/pdf"))
        _ = note
        return report
    }

    /// GettingStarted.md: query with a QueryStatement.
    static func query(session: CMISSession, folderId: String) async throws -> [String] {
        var statement = QueryStatement(
            "SELECT cmis:objectId, cmis:name FROM cmis:document WHERE IN_FOLDER(?) AND cmis:name LIKE ?")
        statement.set(1, id: folderId)
        statement.set(2, like: "q3", wildcardSuffix: true)  // cmis:name LIKE 'q3%'
        var names: [String] = []
        for try await document in try session.queryResults(statement) {
            names.append(document.properties["cmis:name"]?.stringValue ?? "")
        }
        let page = try await session.query(statement, maxItems: 10)  // one page: page.hasMoreItems
        _ = page
        return names
    }

    /// GettingStarted.md: download content.
    static func download(session: CMISSession, documentId: String, destination: URL) async throws -> Data {
        let text = try await session.content(of: documentId)
        let head = try await session.content(of: documentId, range: .bytes(0...1023))
        try await session.downloadContent(of: documentId, to: destination) { progress in
            _ = (progress.bytesDone, progress.totalBytes)
        }
        _ = head
        return text
    }

    /// GettingStarted.md: handle errors.
    static func errors(session: CMISSession) async throws -> String {
        do {
            let report = try await session.object(at: "/Reports/q3.pdf")
            return report.name ?? ""
        } catch let error as CMISError where error.code == .objectNotFound {
            return "no such document"
        } catch let error as CMISError where error.code == .unauthorized || error.code == .connection {
            return "cannot reach the repository: \(error.message)"
        }
    }

    /// GettingStarted.md: SAP Mobile Documents notes.
    static func notes(server: URL, user: String, password: String) async throws -> [CMISObject] {
        let session = try await CMISSession.connect(
            SessionParameters(
                url: MobileDocuments.endpoint(for: server, binding: .browser), preferMyDocuments: true,
                auth: [BasicAuth(user: user, password: password)], tokenHeader: "X-CSRF-Token"))
        let notes = MobileDocumentsNotes(session: session)
        let note = try await notes.create(named: "Shopping", text: Data("milk".utf8))
        let changed = try await notes.update(note, text: Data("milk, eggs".utf8))  // updateConflict if changed
        let text = try await notes.text(of: changed)
        _ = text
        return try await notes.notes()
    }
}
