import Foundation
import SatchelNuxeo

enum SatchelNuxeoExamples {
    /// GettingStarted.md: a session.
    static func session(serverURL: URL, user: String, password: String) async throws -> NuxeoSession {
        let session = NuxeoSession(
            configuration: .init(
                serverURL: serverURL, repository: "default", auth: [BasicAuth(user: user, password: password)]))
        let me = try await session.login()  // me.username, me.groups
        _ = me
        return session
    }

    /// GettingStarted.md: a document by path, and a folder's children.
    static func browse(session: NuxeoSession) async throws -> [String] {
        let workspaces = try await session.document(path: "/default-domain/workspaces")
        var lines = ["\(workspaces.title ?? "") \(workspaces.uid) \(workspaces.type)"]
        for try await child in session.children(ofPath: "/default-domain/workspaces") {
            let kind = child.facets.contains("Folderish") ? "folder" : "document"
            lines.append("\(kind) \(child.title ?? child.uid) \(child.blob?.length ?? 0)")
        }
        return lines
    }

    /// GettingStarted.md: an NXQL query.
    static func query(session: NuxeoSession) async throws -> [NuxeoDocument] {
        let nxql = """
            SELECT * FROM Document WHERE ecm:path STARTSWITH '/default-domain/workspaces'
            AND ecm:isTrashed = 0 AND ecm:isVersion = 0 ORDER BY dc:modified DESC
            """
        var recent: [NuxeoDocument] = []
        for try await document in session.query(nxql, pageSize: 100) {
            recent.append(document)
            if recent.count == 20 { break }  // stops fetching pages
        }
        for try await page in session.queryPages(nxql, pageSize: 100) {
            _ = (page.entries.count, page.totalSize ?? -1)  // the total when the server counts it
            break
        }
        return recent
    }

    /// GettingStarted.md: create a document, upload a blob and attach it.
    static func create(session: NuxeoSession, pdfFile: URL, destination: URL) async throws -> NuxeoDocument {
        let folder = try await session.create(
            in: "/default-domain/workspaces", type: "Folder", name: "reports",
            properties: ["dc:title": .string("Reports")])
        let document = try await session.create(
            in: folder.path ?? "/default-domain/workspaces/reports", type: "File", name: "q3.pdf",
            properties: ["dc:title": .string("Q3 report")])
        let upload = try await session.upload(file: pdfFile, mimeType: "application/pdf", chunkSize: 1 << 20)
        let attached = try await session.attach(upload, to: document.uid)
        try await session.downloadBlob(id: attached.uid, to: destination)
        return attached
    }

    /// GettingStarted.md: an Automation call.
    static func automation(session: NuxeoSession, documentID: String) async throws -> String? {
        let answer = try await session.execute(
            "Document.Update", input: documentID, params: ["properties": ["dc:description": "Reviewed"]])
        guard case .document(let document)? = answer else { return nil }
        return document[string: "dc:description"]
    }

    /// GettingStarted.md: handle errors.
    static func errors(session: NuxeoSession) async throws -> String {
        do {
            let document = try await session.document(path: "/default-domain/workspaces/missing")
            return document.uid
        } catch let error as NuxeoError where error.status == 404 {
            return "no such document"
        } catch let error as NuxeoError where error.code == .transport {
            return "cannot reach the server: \(error.message)"
        }
    }
}
