import Foundation
public import SatchelCMISCore
public import SatchelHTTP

extension CMISSession {
    /// An object by id. Without a context, reads with the default one and uses the object cache.
    ///
    /// ```swift
    /// let document = try await session.object(id: "42")
    /// let fresh = try await session.object(id: "42", useCache: false)
    /// ```
    public func object(
        id: String, context: OperationContext? = nil, useCache: Bool = true
    ) async throws
        -> CMISObject
    {
        if context == nil, useCache, let cached = cache.object(id: id) { return cached }
        let object = try await binding.object(
            repositoryId: repositoryId, id: id, context: context ?? parameters.operationContext)
        if context == nil { cache.store(object, path: object.path) }
        return object
    }

    /// Several objects by id, in the order of `ids`, with up to `maxConcurrentRequests` requests under way at
    /// once (CMIS has no call that reads many objects by id). Cached objects cost no request. The first
    /// failure (an id that does not exist, say) cancels the rest and is thrown.
    ///
    /// ```swift
    /// let documents = try await session.objects(ids: selectedIds)
    /// for document in documents { print(document.name ?? "", document.contentStreamLength ?? 0) }
    /// ```
    public func objects(
        ids: [String], context: OperationContext? = nil, useCache: Bool = true, maxConcurrentRequests: Int = 8
    ) async throws -> [CMISObject] {
        let width = Swift.max(1, maxConcurrentRequests)
        var results = [CMISObject?](repeating: nil, count: ids.count)
        try await withThrowingTaskGroup(of: (Int, CMISObject).self) { group in
            var next = 0
            func startOne() {
                let index = next
                let id = ids[index]
                next += 1
                group.addTask { (index, try await self.object(id: id, context: context, useCache: useCache)) }
            }
            while next < ids.count && next < width { startOne() }
            while let (index, object) = try await group.next() {
                results[index] = object
                if next < ids.count { startOne() }
            }
        }
        return results.compactMap { $0 }
    }

    /// An object by path (`/Reports/q3.pdf`). Without a context, a recent path lookup is answered from the cache.
    public func object(
        at path: String, context: OperationContext? = nil, useCache: Bool = true
    ) async throws
        -> CMISObject
    {
        let path = Self.normalize(path)
        if context == nil, useCache, let id = cache.objectId(path: path), let cached = cache.object(id: id) {
            return cached
        }
        let object = try await binding.object(
            repositoryId: repositoryId, path: path, context: context ?? parameters.operationContext)
        if context == nil { cache.store(object, path: path) }
        return object
    }

    /// The root folder.
    public func rootFolder(context: OperationContext? = nil) async throws -> CMISObject {
        try await object(id: repositoryInfo.rootFolderId, context: context)
    }

    /// Creates a folder named `name` in `parentId`.
    public func createFolder(
        named name: String, in parentId: String, typeId: String = "cmis:folder", properties: [CMISProperty] = []
    ) async throws -> CMISObject {
        try await binding.createFolder(
            repositoryId: repositoryId, parentId: parentId,
            properties: Self.creationProperties(name: name, typeId: typeId, extra: properties))
    }

    /// Creates a document named `name` in `parentId`, with optional content; file content streams from disk,
    /// and `progress` reports the upload.
    ///
    /// ```swift
    /// let doc = try await session.createDocument(
    ///     named: "talk.mp4", in: folderId, content: .file(videoURL, mimeType: "video/mp4")) { print($0) }
    /// ```
    public func createDocument(
        named name: String, in parentId: String, content: ContentSource? = nil, typeId: String = "cmis:document",
        properties: [CMISProperty] = [], progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> CMISObject {
        try await binding.createDocument(
            repositoryId: repositoryId, parentId: parentId,
            properties: Self.creationProperties(name: name, typeId: typeId, extra: properties), content: content,
            progress: progress)
    }

    /// Sets properties of an object; with `changeToken`, only if it has not changed since.
    public func updateProperties(
        of objectId: String, _ properties: [CMISProperty], changeToken: String? = nil
    ) async throws -> CMISObject {
        cache.remove(id: objectId, allPaths: true)
        return try await binding.updateProperties(
            repositoryId: repositoryId, objectId: objectId, properties: Properties(properties),
            changeToken: changeToken)
    }

    /// Renames an object (sets `cmis:name`).
    public func rename(_ objectId: String, to name: String) async throws -> CMISObject {
        try await updateProperties(
            of: objectId, [CMISProperty(id: "cmis:name", type: .string, values: [.string(name)])])
    }

    /// Deletes an object: a document (all its versions unless `allVersions` is false) or an empty folder.
    public func delete(_ objectId: String, allVersions: Bool = true) async throws {
        cache.remove(id: objectId, allPaths: true)
        try await binding.deleteObject(repositoryId: repositoryId, objectId: objectId, allVersions: allVersions)
    }

    static func creationProperties(name: String, typeId: String, extra: [CMISProperty]) -> Properties {
        var properties = Properties([
            CMISProperty(id: "cmis:name", type: .string, values: [.string(name)]),
            CMISProperty(id: "cmis:objectTypeId", type: .id, values: [.id(typeId)]),
        ])
        for property in extra { properties[property.id] = property }
        return properties
    }

    /// `/a/b`: one leading slash, no trailing or doubled slashes.
    static func normalize(_ path: String) -> String {
        "/" + path.split(separator: "/").joined(separator: "/")
    }
}
