import Foundation
import SatchelCMISCore
import SatchelRepository

/// The Swift blocks of `Sources/SatchelRepository/SatchelRepository.docc`, compiled (never run: they need a folder
/// to write to, and some a database file).
enum RepositoryExamples {
    /// GettingStarted.md: an engine over a metadata store in memory and a blob store in a folder.
    static func openInMemory(blobFolder: URL) async throws -> (CMISRepository, BlobStore) {
        let store = MemoryMetadataStore()
        let blobs = try BlobStore(directory: blobFolder)
        let repository = CMISRepository(
            store: store, blobs: blobs, configuration: RepositoryConfiguration(isSoleWriter: true))
        try await repository.bootstrap()
        return (repository, blobs)
    }

    /// GettingStarted.md: the same engine over a SQLite file.
    static func openSQLite(databasePath: String, blobFolder: URL) async throws -> (CMISRepository, BlobStore) {
        let store = try SQLiteMetadataStore(path: databasePath)
        let blobs = try BlobStore(directory: blobFolder)
        let repository = CMISRepository(
            store: store, blobs: blobs, configuration: RepositoryConfiguration(isSoleWriter: true))
        try await repository.bootstrap()
        return (repository, blobs)
    }

    /// GettingStarted.md: a folder and a document, created and read back through `CMISService`.
    static func createAndReadBack(service: any CMISService, blobs: BlobStore) async throws -> String {
        let caller = CallerContext(user: "alice")
        let shared = try await service.repositoryInfo(repositoryId: "shared", caller: caller)

        let folder = try await service.createFolder(
            repositoryId: shared.id, parentId: shared.rootFolderId,
            properties: Properties([
                CMISProperty(id: "cmis:objectTypeId", type: .id, values: [.id("cmis:folder")]),
                CMISProperty(id: "cmis:name", type: .string, values: [.string("Reports")]),
            ]),
            policies: [], addACEs: [], removeACEs: [], caller: caller)
        guard let folderId = folder.id else { throw CMISError(.runtime, "the new folder has no id") }

        let upload = try await blobs.put(Data("Quarterly figures".utf8))
        defer { upload.end() }
        let content = try ContentInput(blob: upload, mimeType: "text/plain", fileName: "q3.txt")
        let document = try await service.createDocument(
            repositoryId: shared.id, parentId: folderId,
            properties: Properties([
                CMISProperty(id: "cmis:objectTypeId", type: .id, values: [.id("cmis:document")]),
                CMISProperty(id: "cmis:name", type: .string, values: [.string("q3.txt")]),
            ]),
            content: content, versioningState: nil, policies: [], addACEs: [], removeACEs: [], caller: caller)
        guard let documentId = document.id else { throw CMISError(.runtime, "the new document has no id") }

        let found = try await service.object(
            repositoryId: shared.id, path: "/Reports/q3.txt", context: OperationContext(), caller: caller)
        let children = try await service.children(
            repositoryId: shared.id, folderId: folderId, context: OperationContext(), maxItems: nil, skipCount: 0,
            caller: caller)
        let names = children.objects.compactMap { $0.object.name }

        let output = try await service.contentStream(
            repositoryId: shared.id, objectId: documentId, streamId: nil, caller: caller)
        guard let file = output.file else { return "" }
        let bytes = try Data(contentsOf: file).prefix(Int(output.length))
        return "\(found.name ?? "") in \(names): \(String(decoding: bytes, as: UTF8.self))"
    }

    /// GettingStarted.md: a refusal is a `CMISError` with the CMIS exception code.
    static func createTwice(service: any CMISService, parentId: String) async throws -> Bool {
        let caller = CallerContext(user: "alice")
        let properties = Properties([
            CMISProperty(id: "cmis:objectTypeId", type: .id, values: [.id("cmis:folder")]),
            CMISProperty(id: "cmis:name", type: .string, values: [.string("Reports")]),
        ])
        do {
            _ = try await service.createFolder(
                repositoryId: "shared", parentId: parentId, properties: properties, policies: [], addACEs: [],
                removeACEs: [], caller: caller)
            return true
        } catch let error as CMISError where error.code == .nameConstraintViolation {
            return false  // the folder already holds an object named "Reports"
        }
    }

    /// GettingStarted.md: large content goes to the blob store piece by piece, never whole in memory.
    static func upload(
        file: URL, to folderId: String, service: any CMISService, blobs: BlobStore
    ) async throws
        -> CMISObject
    {
        let caller = CallerContext(user: "alice")
        let writer = try blobs.makeWriter(maxBytes: 1 << 30)
        try writer.write(contentsOf: file)
        let upload = try await writer.finish()
        defer { upload.end() }
        return try await service.createDocument(
            repositoryId: "shared", parentId: folderId,
            properties: Properties([
                CMISProperty(id: "cmis:objectTypeId", type: .id, values: [.id("cmis:document")])
            ]),
            content: try ContentInput(blob: upload, mimeType: "application/pdf", fileName: file.lastPathComponent),
            versioningState: nil, policies: [], addACEs: [], removeACEs: [], caller: caller)
    }

    /// GettingStarted.md: the caller's own MyDocuments repository, created on first use.
    static func myDocuments(service: any CMISService) async throws -> [String] {
        let caller = CallerContext(user: "alice")
        let infos = try await service.repositoryInfos(caller: caller)
        let personal = RepositoryConfiguration.myDocumentsRepositoryId(user: caller.user)
        let root = try await service.object(
            repositoryId: personal, path: "/", context: OperationContext(), caller: caller)
        return infos.map(\.id) + [root.id ?? ""]
    }

    /// GettingStarted.md: a CMIS QL query.
    static func search(service: any CMISService, folderId: String) async throws -> [String] {
        let caller = CallerContext(user: "alice")
        let results = try await service.query(
            repositoryId: "shared", statement: "SELECT cmis:name FROM cmis:document WHERE IN_FOLDER('\(folderId)')",
            searchAllVersions: false, includeAllowableActions: false, includeRelationships: .none,
            renditionFilter: nil, maxItems: 50, skipCount: 0, caller: caller)
        return results.objects.compactMap { $0.properties["cmis:name"]?.stringValue }
    }
}
