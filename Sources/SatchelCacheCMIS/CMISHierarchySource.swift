public import Foundation
public import SatchelCMIS
public import SatchelCache
import SatchelCMISCore

/// A hierarchy from a CMIS repository: the folder at `rootPath` and its tree, folder by folder, each folder's
/// children page by page. Documents filed in several folders appear under each.
///
/// ```swift
/// let source = CMISHierarchySource(session: session, rootPath: "/Sales")
/// try await cache.load("sales", from: source)
/// ```
public struct CMISHierarchySource: HierarchySource {
    /// The session the tree is read with.
    public let session: CMISSession
    /// The path of the root folder in the repository (`/Sales`).
    public let rootPath: String
    /// Children asked for per request (`maxItems`); at least 1.
    public let pageSize: Int
    /// Folders listed at once.
    public let concurrentFolders: Int

    /// A source for the folder at `rootPath`; `pageSize` (500 by default) and `concurrentFolders` (4) are raised to 1
    /// when lower.
    public init(session: CMISSession, rootPath: String, pageSize: Int = 500, concurrentFolders: Int = 4) {
        self.session = session
        self.rootPath = rootPath
        self.pageSize = max(1, pageSize)
        self.concurrentFolders = max(1, concurrentFolders)
    }

    /// `cmis <repository id> <root path>`.
    public var description: String { "cmis \(session.repositoryId) \(rootPath)" }

    static let properties = [
        "cmis:objectId", "cmis:name", "cmis:baseTypeId", "cmis:objectTypeId", "cmis:lastModificationDate",
        "cmis:changeToken", "cmis:contentStreamLength", "cmis:contentStreamMimeType", "cmis:contentStreamFileName",
        "cmis:path",
    ]

    /// The root folder first (it must be a folder, or the stream ends with `CacheError.Code.invalidSource`), then
    /// each folder's children page by page, breadth first, `concurrentFolders` folders at a time. Only folders and
    /// documents become nodes; a child whose name is empty or contains `/` is left out. Only the properties a node
    /// needs are asked for, and the root is read past the session's object cache.
    public func nodes() -> AsyncThrowingStream<[HierarchyNode], any Error> {
        let context = OperationContext(filter: Self.properties, maxItemsPerPage: pageSize)
        return .producing { [self] continuation in
            let root = try await session.object(at: rootPath, context: context, useCache: false)
            guard let id = root.id, root.baseType == .folder else {
                throw CacheError(.invalidSource, "\(rootPath) is not a folder")
            }
            let rootNode = HierarchyNode(
                id: id, parentID: nil, path: rootPath, name: root.name ?? rootPath, title: root.name,
                type: root.objectTypeId ?? "cmis:folder", isFolder: true, lastModified: root.lastModificationDate,
                changeToken: root.changeToken)
            continuation.yield([rootNode])
            // Breadth first, a few folders at once; each folder's pages are yielded as they come.
            var pending = [rootNode]
            while !pending.isEmpty {
                let batch = Array(pending.prefix(concurrentFolders))
                pending.removeFirst(batch.count)
                try await withThrowingTaskGroup(of: [HierarchyNode].self) { group in
                    for folder in batch {
                        group.addTask {
                            var found: [HierarchyNode] = []
                            for try await page in session.children(of: folder.id, context: context).pages {
                                let nodes = page.objects.compactMap { node($0, in: folder) }
                                continuation.yield(nodes)
                                found += nodes.filter(\.isFolder)
                            }
                            return found
                        }
                    }
                    for try await folders in group { pending += folders }
                }
                try Task.checkCancellation()
            }
        }
    }

    /// Downloads the document's content stream into `file`.
    public func download(_ node: HierarchyNode, to file: URL) async throws {
        try await session.downloadContent(of: node.id, to: file)
    }

    /// A child as a node (folders and documents; other kinds are not in a tree). Content is keyed by this
    /// repository, the object id and its change token (a new version is a new key).
    func node(_ child: ObjectInFolder, in folder: HierarchyNode) -> HierarchyNode? {
        let object = child.object
        guard let id = object.id, let baseType = object.baseType, baseType == .folder || baseType == .document
        else { return nil }
        let name = child.pathSegment ?? object.name ?? id
        guard !name.isEmpty, !name.contains("/") else { return nil }
        let path = (folder.path == "/" ? "" : folder.path) + "/" + name
        var content: HierarchyNode.Content?
        if baseType == .document, let length = object.contentStreamLength {
            // Without anything that changes with the content, a key of this load only: fetched again after a reload.
            let version =
                object.changeToken ?? object.lastModificationDate.map { "\($0.timeIntervalSince1970)" }
                ?? "load-\(UUID().uuidString)"
            let repository = "\(session.parameters.url.absoluteString)#\(session.repositoryId)"
            content = HierarchyNode.Content(
                key: "cmis:\(repository)#\(id)@\(version)", fileName: object.contentStreamFileName,
                mimeType: object.contentStreamMimeType, length: length)
        }
        return HierarchyNode(
            id: id, parentID: folder.id, path: path, name: name, title: object.name,
            type: object.objectTypeId ?? baseType.rawValue, isFolder: baseType == .folder,
            lastModified: object.lastModificationDate, changeToken: object.changeToken, content: content)
    }
}
