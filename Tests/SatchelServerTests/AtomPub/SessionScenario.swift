import Foundation
import SatchelCMIS
import SatchelCMISCore
import SatchelHTTP

/// One CMIS session scenario — repository info, create, list with paging, get by path, update, content range,
/// query, delete — and what it observed, in values that do not depend on the binding (no ids, no URLs).
struct SessionScenario {
    struct Observed: Equatable, CustomStringConvertible {
        var repositoryId = ""
        var repositoryName = ""
        var hasMyDocuments = false
        var hasToken = false
        var folderName = ""
        var folderPath: String?
        var documentNames: [String] = []
        var documentLengths: [Int64?] = []
        var documentMimeTypes: [String?] = []
        var pages: [[String]] = []
        var pageHasMore: [Bool] = []
        var numItems: [Int64?] = []
        var byPathName: String?
        var byPathIsSameObject = false
        var renamedName: String?
        var renamedByPath: String?
        var range: String = ""
        var fileUploadLength: Int64?
        var fileContent = ""
        var queryNames: [String] = []
        var deletedIsGone = false
        var childrenAfterDelete: [String] = []

        var description: String {
            Mirror(reflecting: self).children.map { "\($0.label ?? "?")=\($0.value)" }.joined(separator: "\n")
        }
    }

    /// Runs the scenario in a new folder named `folderName` under `parentId` (the root folder by default).
    static func run(_ session: CMISSession, folderName: String, parentId: String? = nil) async throws -> Observed {
        var observed = Observed()
        let info = session.repositoryInfo
        observed.repositoryId = info.id
        observed.repositoryName = info.name
        observed.hasMyDocuments = info.extensionValue(named: MobileDocuments.myDocumentsExtension) != nil
        observed.hasToken = info.extensionValue(named: MobileDocuments.tokenExtension) != nil

        let parent = parentId ?? info.rootFolderId
        let folder = try await session.createFolder(named: folderName, in: parent)
        let folderId = try requireValue(folder.id)
        observed.folderName = folder.name ?? ""
        observed.folderPath = try await session.object(id: folderId, useCache: false).path.map {
            String($0.split(separator: "/").last ?? "")
        }

        var ids: [String] = []
        for index in 0..<5 {
            let document = try await session.createDocument(
                named: "doc-\(index).txt", in: folderId,
                content: .data(
                    Data("content number \(index)".utf8), filename: "doc-\(index).txt", mimeType: "text/plain"))
            ids.append(try requireValue(document.id))
            observed.documentNames.append(document.name ?? "")
            observed.documentLengths.append(document.contentStreamLength)
            observed.documentMimeTypes.append(document.contentStreamMimeType)
        }

        let file = FileManager.default.temporaryDirectory.appendingPathComponent("satchel-scenario-\(UUID()).bin")
        try Data(repeating: 0x61, count: 70_000).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let uploaded = try await session.createDocument(
            named: "large.bin", in: folderId, content: .file(file, mimeType: "application/octet-stream"))
        observed.fileUploadLength = uploaded.contentStreamLength
        let fileId = try requireValue(uploaded.id)
        let downloaded = try await session.content(of: fileId)
        observed.fileContent = "\(downloaded.count) bytes, all a: \(downloaded.allSatisfy { $0 == 0x61 })"

        var context = OperationContext()
        context.orderBy = "cmis:name ASC"
        for skip in stride(from: 0, to: 6, by: 2) {
            let page = try await session.childrenPage(of: folderId, skipCount: skip, maxItems: 2, context: context)
            observed.pages.append(page.objects.map { $0.object.name ?? "" })
            observed.pageHasMore.append(page.hasMoreItems)
            observed.numItems.append(page.numItems)
        }

        let byPath = try await session.object(at: "\(folder.path ?? "/\(folderName)")/doc-1.txt", useCache: false)
        observed.byPathName = byPath.name
        observed.byPathIsSameObject = byPath.id == ids[1]

        let renamed = try await session.rename(ids[0], to: "renamed.txt")
        observed.renamedName = renamed.name
        observed.renamedByPath = try await session.object(
            at: "\(folder.path ?? "/\(folderName)")/renamed.txt", useCache: false
        ).name

        let part = try await session.content(of: ids[2], range: .bytes(2...9))
        observed.range = String(decoding: part, as: UTF8.self)

        let results = try await session.query(
            "SELECT * FROM cmis:document WHERE cmis:name = 'doc-3.txt' AND IN_FOLDER('\(folderId)')")
        observed.queryNames = results.objects.compactMap(\.name)

        try await session.delete(ids[4])
        do {
            _ = try await session.object(id: ids[4], useCache: false)
        } catch let error as CMISError where error.code == .objectNotFound {
            observed.deletedIsGone = true
        }
        let after = try await session.childrenPage(of: folderId, maxItems: 20, context: context)
        observed.childrenAfterDelete = after.objects.map { $0.object.name ?? "" }
        return observed
    }
}

/// `#require` for scenario code that is not itself a test.
func requireValue<T>(_ value: T?, _ what: String = "value") throws -> T {
    guard let value else { throw CMISError(.invalidResponse, "missing \(what)") }
    return value
}
