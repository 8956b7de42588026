import Foundation
import SatchelCMIS
public import SatchelCMISCore
import SatchelHTTP
public import SatchelRepository
import Synchronization

/// The page size asked of the back-end when the caller gives none (the local engine's default).
private let defaultPage = 100

extension RemoteRepository {
    // MARK: Types

    /// The back-end's child types of `typeId` (its base types when nil). A nil `maxItems` asks the back-end for pages
    /// of 100. When the back-end gives no `numItems`, the total is `skipCount` plus the number of types returned.
    public func typeChildren(
        repositoryId: String, typeId: String?, includePropertyDefinitions: Bool, maxItems: Int?, skipCount: Int,
        caller: CallerContext
    ) async throws -> (types: [TypeDefinition], hasMoreItems: Bool, numItems: Int) {
        let list = try await call(caller, "get type children") { binding, backend in
            try await binding.typeChildren(
                repositoryId: backend, typeId: typeId, includePropertyDefinitions: includePropertyDefinitions,
                maxItems: maxItems ?? defaultPage, skipCount: skipCount)
        }
        let seen = skipCount.addingReportingOverflow(list.types.count)
        let total = list.numItems.map { Int(clamping: $0) } ?? (seen.overflow ? Int.max : seen.partialValue)
        return (list.types, list.hasMoreItems, total)
    }

    /// The back-end's descendant types of `typeId`, `depth` levels deep (all when nil).
    public func typeDescendants(
        repositoryId: String, typeId: String?, depth: Int?, includePropertyDefinitions: Bool, caller: CallerContext
    ) async throws -> [TypeTreeNode] {
        let containers = try await call(caller, "get type descendants") { binding, backend in
            try await binding.typeDescendants(
                repositoryId: backend, typeId: typeId, depth: depth,
                includePropertyDefinitions: includePropertyDefinitions)
        }
        func node(_ container: TypeDefinitionContainer) -> TypeTreeNode {
            TypeTreeNode(type: container.type, children: container.children.map(node))
        }
        return containers.map(node)
    }

    /// The back-end's definition of `typeId`.
    public func typeDefinition(
        repositoryId: String, typeId: String, caller: CallerContext
    ) async throws -> TypeDefinition {
        try await call(caller, "get type \(typeId)") { binding, backend in
            try await binding.typeDefinition(repositoryId: backend, typeId: typeId)
        }
    }

    /// Creates the type on the back-end; through a service account, this server's administrators alone.
    public func createType(
        repositoryId: String, type: TypeDefinition, caller: CallerContext
    ) async throws -> TypeDefinition {
        try await changingTypes(caller, "createType", "create type \(type.id)") { binding, backend in
            try await binding.createType(repositoryId: backend, type: type)
        }
    }

    /// Changes the type on the back-end; through a service account, this server's administrators alone.
    public func updateType(
        repositoryId: String, type: TypeDefinition, caller: CallerContext
    ) async throws -> TypeDefinition {
        try await changingTypes(caller, "updateType", "update type \(type.id)") { binding, backend in
            try await binding.updateType(repositoryId: backend, type: type)
        }
    }

    /// Deletes the type on the back-end; through a service account, this server's administrators alone.
    public func deleteType(repositoryId: String, typeId: String, caller: CallerContext) async throws {
        try await changingTypes(caller, "deleteType", "delete type \(typeId)") { binding, backend in
            try await binding.deleteType(repositoryId: backend, typeId: typeId)
        }
    }

    /// Runs a type change on the back-end, then drops every binding's cached types (each user's, the service
    /// account's, the provisioner's), so nobody reads the old definition. A type change reshapes the whole back-end
    /// repository: passed through, the back-end decides whether the user may; through a service account every user
    /// would act with the account's rights, so only this server's administrators may ask (`permissionDenied`, and
    /// nothing reaches the back-end).
    func changingTypes<T: Sendable>(
        _ caller: CallerContext, _ action: String, _ operation: String,
        _ body: (any CMISBinding, String) async throws -> T
    ) async throws -> T {
        if case .serviceAccount = mount.users, !caller.isAdministrator {
            throw CMISError(
                .permissionDenied,
                "\(action) on back-end \(mount.id) would act as its service account: only administrators of this "
                    + "server may change its types", status: 403)
        }
        defer { bindings.clearTypeCaches() }
        return try await call(caller, operation, body)
    }

    // MARK: Navigation

    /// A page of the back-end folder's children. A nil `maxItems` asks the back-end for pages of 100.
    public func children(
        repositoryId: String, folderId: String, context: OperationContext, maxItems: Int?, skipCount: Int,
        caller: CallerContext
    ) async throws -> ObjectInFolderList {
        try await call(caller, "get children") { binding, backend in
            try await binding.children(
                repositoryId: backend, folderId: folderId, context: context, maxItems: maxItems ?? defaultPage,
                skipCount: skipCount)
        }
    }

    /// The back-end's folder tree (`foldersOnly`) or descendants of `folderId`, `depth` levels deep (all when nil).
    public func descendants(
        repositoryId: String, folderId: String, depth: Int?, foldersOnly: Bool, context: OperationContext,
        caller: CallerContext
    ) async throws -> [ContainerNode] {
        try await call(caller, foldersOnly ? "get folder tree" : "get descendants") { binding, backend in
            try await binding.descendants(
                repositoryId: backend, folderId: folderId, depth: depth, foldersOnly: foldersOnly, context: context)
        }
    }

    /// The back-end object's parent folders.
    public func objectParents(
        repositoryId: String, objectId: String, context: OperationContext, caller: CallerContext
    ) async throws -> [ObjectParent] {
        try await call(caller, "get parents") { binding, backend in
            try await binding.parents(repositoryId: backend, objectId: objectId, context: context)
        }
    }

    /// The back-end folder's parent.
    public func folderParent(
        repositoryId: String, folderId: String, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject {
        try await call(caller, "get folder parent") { binding, backend in
            try await binding.folderParent(repositoryId: backend, folderId: folderId, context: context)
        }
    }

    /// A page of the back-end's checked-out documents, in `folderId` or anywhere when nil. A nil `maxItems` asks the
    /// back-end for pages of 100.
    public func checkedOutDocuments(
        repositoryId: String, folderId: String?, context: OperationContext, maxItems: Int?, skipCount: Int,
        caller: CallerContext
    ) async throws -> ObjectList {
        try await call(caller, "get checked-out documents") { binding, backend in
            try await binding.checkedOutDocuments(
                repositoryId: backend, folderId: folderId, context: context, maxItems: maxItems ?? defaultPage,
                skipCount: skipCount)
        }
    }

    // MARK: Objects

    /// The back-end object with id `id`.
    public func object(
        repositoryId: String, id: String, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject {
        try await call(caller, "get object") { binding, backend in
            try await binding.object(repositoryId: backend, id: id, context: context)
        }
    }

    /// The back-end object at `path` (a path in the back-end repository).
    public func object(
        repositoryId: String, path: String, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject {
        try await call(caller, "get object by path") { binding, backend in
            try await binding.object(repositoryId: backend, path: path, context: context)
        }
    }

    /// The object's allowable actions, read with the object. Throws `invalidResponse` when the back-end gives none.
    public func allowableActions(
        repositoryId: String, objectId: String, caller: CallerContext
    ) async throws -> AllowableActions {
        let object = try await self.object(
            repositoryId: repositoryId, id: objectId,
            context: OperationContext(filter: ["cmis:objectId"], includeAllowableActions: true), caller: caller)
        guard let actions = object.allowableActions else {
            throw CMISError(.invalidResponse, "back-end \(mount.id) gave no allowable actions for \(objectId)")
        }
        return actions
    }

    /// Creates the folder on the back-end; `policies`, `addACEs` and `removeACEs` are then applied as separate calls,
    /// and the folder is read again when there were any.
    public func createFolder(
        repositoryId: String, parentId: String, properties: Properties, policies: [String], addACEs: [ACE],
        removeACEs: [ACE], caller: CallerContext
    ) async throws -> CMISObject {
        let folder = try await call(caller, "create folder") { binding, backend in
            try await binding.createFolder(repositoryId: backend, parentId: parentId, properties: properties)
        }
        return try await applyExtras(folder, policies: policies, add: addACEs, remove: removeACEs, caller: caller)
    }

    /// Creates the document on the back-end, its content streamed from the blob the binding wrote. A document without a
    /// parent is created unfiled, and only without content (`notSupported` otherwise). Policies and ACEs are applied
    /// after, as separate calls. `versioningState` `.checkedout` checks the new document out; any other leaves the
    /// back-end's default.
    public func createDocument(
        repositoryId: String, parentId: String?, properties: Properties, content: ContentInput?,
        versioningState: VersioningState?, policies: [String], addACEs: [ACE], removeACEs: [ACE],
        caller: CallerContext
    ) async throws -> CMISObject {
        var document = try await upload(content, properties: properties) { source in
            try await call(caller, "create document") { binding, backend in
                guard let parentId else {
                    guard source == nil else {
                        throw CMISError(
                            .notSupported, "an unfiled document with content cannot be created through a gateway")
                    }
                    return try await binding.createObject(
                        repositoryId: backend, parentId: nil, baseType: .document, properties: properties)
                }
                return try await binding.createDocument(
                    repositoryId: backend, parentId: parentId, properties: properties, content: source, progress: nil)
            }
        }
        document = try await applyExtras(document, policies: policies, add: addACEs, remove: removeACEs, caller: caller)
        guard versioningState == .checkedout, let id = document.id else { return document }
        return try await checkOut(repositoryId: repositoryId, objectId: id, caller: caller)
    }

    /// Copies the document here: the source's settable properties (`cmis:name`, `cmis:objectTypeId`,
    /// `cmis:description`, `cmis:secondaryObjectTypeIds` and those outside `cmis:`) under `properties`, and its content
    /// through a temporary blob, never in memory. A back-end that sends more or fewer bytes than the source announces
    /// fails the copy.
    public func createDocumentFromSource(
        repositoryId: String, sourceId: String, parentId: String?, properties: Properties,
        versioningState: VersioningState?, caller: CallerContext
    ) async throws -> CMISObject {
        // A copy made here: the source's own properties (those a client may set) under the new ones, and its content
        // through a temporary file, never in memory.
        let original = try await object(
            repositoryId: repositoryId, id: sourceId, context: OperationContext(), caller: caller)
        var merged = original.properties.all.filter { property in
            !property.id.hasPrefix("cmis:")
                || ["cmis:name", "cmis:objectTypeId", "cmis:description", "cmis:secondaryObjectTypeIds"].contains(
                    property.id)
        }
        merged.append(contentsOf: properties.all)
        let copyProperties = Properties(merged)
        guard original.contentStreamLength != nil else {
            return try await createDocument(
                repositoryId: repositoryId, parentId: parentId, properties: copyProperties, content: nil,
                versioningState: versioningState, policies: [], addACEs: [], removeACEs: [], caller: caller)
        }
        // No more than the source says it holds: a back-end that sends more (or never stops) cannot fill the disk.
        let expected = original.contentStreamLength ?? 0
        let writer = try blobs.makeWriter(maxBytes: expected)
        defer { writer.cancel() }
        let response = try await call(caller, "read the source's content") { binding, backend in
            try await binding.streamContentStream(repositoryId: backend, objectId: sourceId, range: nil)
        }
        do {
            for try await chunk in response.body {
                try writer.write(chunk)
            }
        } catch let error as HTTPTransferError {
            throw translate(CMISError.transport(error), operation: "read the source's content", caller: caller)
        }
        let lease = try await writer.finish()
        guard lease.reference.length == expected else {
            lease.end()
            throw CMISError(
                .invalidResponse,
                "back-end \(mount.id) sent \(lease.reference.length) bytes of \(sourceId)'s content, announced \(expected)"
            )
        }
        let input = try ContentInput(
            blob: lease, mimeType: original.contentStreamMimeType ?? "application/octet-stream",
            fileName: original.contentStreamFileName)
        return try await createDocument(
            repositoryId: repositoryId, parentId: parentId, properties: copyProperties, content: input,
            versioningState: versioningState, policies: [], addACEs: [], removeACEs: [], caller: caller)
    }

    /// Creates an item, policy or relationship on the back-end, of the base type of `cmis:objectTypeId` (read from the
    /// back-end). Throws `invalidArgument` without `cmis:objectTypeId`. Policies and ACEs are applied after, as
    /// separate calls.
    public func createObject(
        repositoryId: String, parentId: String?, properties: Properties, policies: [String], addACEs: [ACE],
        removeACEs: [ACE], caller: CallerContext
    ) async throws -> CMISObject {
        guard let typeId = properties["cmis:objectTypeId"]?.values.first?.stringValue else {
            throw CMISError(.invalidArgument, "cmis:objectTypeId is required")
        }
        let type = try await typeDefinition(repositoryId: repositoryId, typeId: typeId, caller: caller)
        let created = try await call(caller, "create object") { binding, backend in
            try await binding.createObject(
                repositoryId: backend, parentId: parentId, baseType: type.baseTypeId, properties: properties)
        }
        return try await applyExtras(created, policies: policies, add: addACEs, remove: removeACEs, caller: caller)
    }

    /// Policies and ACEs a create call carried, applied to what it created.
    func applyExtras(
        _ object: CMISObject, policies: [String], add: [ACE], remove: [ACE], caller: CallerContext
    ) async throws -> CMISObject {
        guard let id = object.id, !(policies.isEmpty && add.isEmpty && remove.isEmpty) else { return object }
        for policy in policies {
            try await applyPolicy(repositoryId: mount.id, policyId: policy, objectId: id, caller: caller)
        }
        if !add.isEmpty || !remove.isEmpty {
            _ = try await applyACL(
                repositoryId: mount.id, objectId: id, addACEs: add, removeACEs: remove, propagation: nil, caller: caller
            )
        }
        return try await self.object(repositoryId: mount.id, id: id, context: OperationContext(), caller: caller)
    }

    /// Changes the back-end object's properties, passing `changeToken` on.
    public func updateProperties(
        repositoryId: String, objectId: String, changeToken: String?, properties: Properties, caller: CallerContext
    ) async throws -> CMISObject {
        try await call(caller, "update properties") { binding, backend in
            try await binding.updateProperties(
                repositoryId: backend, objectId: objectId, properties: properties, changeToken: changeToken)
        }
    }

    /// The back-end's bulk update: the ids it updated, with new ids and change tokens.
    public func bulkUpdateProperties(
        repositoryId: String, objects: [(id: String, changeToken: String?)], properties: Properties,
        addSecondaryTypeIds: [String], removeSecondaryTypeIds: [String], caller: CallerContext
    ) async throws -> [(id: String, newId: String?, changeToken: String?)] {
        let results = try await call(caller, "bulk update") { binding, backend in
            try await binding.bulkUpdate(
                repositoryId: backend, objects: objects, properties: properties,
                addSecondaryTypeIds: addSecondaryTypeIds, removeSecondaryTypeIds: removeSecondaryTypeIds)
        }
        return results.map { ($0.id, $0.newId, $0.changeToken) }
    }

    /// Moves the back-end object from `sourceFolderId` to `targetFolderId`.
    public func moveObject(
        repositoryId: String, objectId: String, targetFolderId: String, sourceFolderId: String?,
        caller: CallerContext
    ) async throws -> CMISObject {
        try await call(caller, "move object") { binding, backend in
            try await binding.moveObject(
                repositoryId: backend, objectId: objectId, targetFolderId: targetFolderId,
                sourceFolderId: sourceFolderId)
        }
    }

    /// Deletes the back-end object (every version when `allVersions`).
    public func deleteObject(
        repositoryId: String, objectId: String, allVersions: Bool, caller: CallerContext
    ) async throws {
        try await call(caller, "delete object") { binding, backend in
            try await binding.deleteObject(repositoryId: backend, objectId: objectId, allVersions: allVersions)
        }
    }

    /// Deletes the back-end folder's tree; returns the ids the back-end could not delete.
    public func deleteTree(
        repositoryId: String, folderId: String, allVersions: Bool, unfileObjects: UnfileObjects,
        continueOnFailure: Bool, caller: CallerContext
    ) async throws -> [String] {
        try await call(caller, "delete tree") { binding, backend in
            try await binding.deleteTree(
                repositoryId: backend, folderId: folderId, allVersions: allVersions, unfileObjects: unfileObjects,
                continueOnFailure: continueOnFailure)
        }
    }

    /// The target must exist and be the caller's to reach before a byte is stored here; the rest (rights, names)
    /// the back-end checks when the content is sent.
    public func checkContentUpload(
        repositoryId: String, targetId: String, name: String?, caller: CallerContext
    ) async throws {
        _ = try await object(
            repositoryId: repositoryId, id: targetId, context: OperationContext(filter: ["cmis:objectId"]),
            caller: caller)
    }

    // MARK: Content

    /// The back-end document's content, or the rendition stream `streamId` names, streamed as it is sent. Reads the
    /// object's content properties first: throws `constraint` when it has no content. A range asked of the gateway
    /// is asked of the back-end, and cut here when the back-end sends more. The entity tag is made of the object's
    /// id and change token (or modification date); nil when the back-end gives neither.
    public func contentStream(
        repositoryId: String, objectId: String, streamId: String?, caller: CallerContext
    ) async throws -> ContentOutput {
        if let streamId, !streamId.isEmpty {
            return try await renditionStream(objectId: objectId, streamId: streamId, caller: caller)
        }
        let object = try await self.object(
            repositoryId: repositoryId, id: objectId,
            context: OperationContext(filter: [
                "cmis:objectId", "cmis:name", "cmis:changeToken", "cmis:lastModificationDate",
                "cmis:contentStreamLength", "cmis:contentStreamMimeType", "cmis:contentStreamFileName",
            ]), caller: caller)
        guard let length = object.contentStreamLength else {
            throw CMISError(.constraint, "'\(object.name ?? objectId)' (\(objectId)) has no content stream.")
        }
        // The object's change token (or modification date) tells one version of the content from the next;
        // without either, no entity tag.
        let version = object.changeToken ?? object.lastModificationDate.map { String($0.timeIntervalSince1970) }
        let tag = version.map { version in
            "gw-"
                + String(
                    (objectId + "-" + version).unicodeScalars
                        .filter { $0.isASCII && $0 != "\"" && $0.value > 0x20 && $0.value < 0x7F }
                        .map(Character.init))
        }
        let streamer = ContentStreamer { [self] range in
            let response = try await call(caller, "read content") { binding, backend in
                try await binding.streamContentStream(
                    repositoryId: backend, objectId: objectId, range: range.map { .bytes($0) })
            }
            let skip = try Self.bytesToSkip(
                asked: range, status: response.status, contentRange: response.headers["Content-Range"],
                mount: mount.id)
            return Self.chunks(response.body, skipping: skip, mount: mount.id)
        }
        return ContentOutput(
            stream: streamer, length: length,
            mimeType: object.contentStreamMimeType ?? "application/octet-stream",
            fileName: object.contentStreamFileName ?? object.name, entityTag: tag)
    }

    /// The most of a rendition stream of unknown length that is read into memory to learn its length.
    static let unknownLengthRenditionLimit = 16 * 1024 * 1024

    /// A rendition's stream. Its length is known only from the back-end's answer (renditions often list none, or
    /// -1), so the stream is asked for now: with a `Content-Length`, its body is passed on as it arrives (a range
    /// is taken by skipping forward, since renditions are small); without one, up to 16 MiB is read into memory
    /// and anything longer is refused with a clear error, never cut short.
    func renditionStream(objectId: String, streamId: String, caller: CallerContext) async throws -> ContentOutput {
        let operation = "read rendition \(streamId)"
        let response = try await call(caller, operation) { binding, backend in
            try await binding.streamContentStream(
                repositoryId: backend, objectId: objectId, streamId: streamId, range: nil)
        }
        guard response.status == 200 else {
            response.cancel()
            throw CMISError(
                .invalidResponse, "back-end \(mount.id) answered \(operation) with status \(response.status)")
        }
        let mimeType = response.headers["Content-Type"] ?? "application/octet-stream"
        let mount = mount.id
        if let header = response.headers["Content-Length"], let length = Int64(header), length >= 0 {
            let first = Mutex<HTTPStreamingResponse?>(response)
            let streamer = ContentStreamer { [self] range in
                if let opened = first.withLock({ value -> HTTPStreamingResponse? in
                    defer { value = nil }
                    return value
                }) {
                    return Self.chunks(opened.body, skipping: range?.lowerBound ?? 0, mount: mount)
                }
                let again = try await call(caller, operation) { binding, backend in
                    try await binding.streamContentStream(
                        repositoryId: backend, objectId: objectId, streamId: streamId, range: range.map { .bytes($0) })
                }
                let skip = try Self.bytesToSkip(
                    asked: range, status: again.status, contentRange: again.headers["Content-Range"], mount: mount)
                return Self.chunks(again.body, skipping: skip, mount: mount)
            }
            return ContentOutput(stream: streamer, length: length, mimeType: mimeType, fileName: nil, entityTag: nil)
        }
        let admitted = bufferedRenditions.withLock { running in
            guard running < Self.maximumBufferedRenditions else { return false }
            running += 1
            return true
        }
        guard admitted else {
            response.cancel()
            throw CMISError(
                .runtime,
                "back-end \(mount) sends renditions without a length, and \(Self.maximumBufferedRenditions) are being "
                    + "read already: try again in a moment", status: 503)
        }
        defer { bufferedRenditions.withLock { $0 -= 1 } }
        var bytes: [UInt8] = []
        do {
            for try await chunk in response.body {
                guard bytes.count + chunk.count <= Self.unknownLengthRenditionLimit else {
                    response.cancel()
                    throw CMISError(
                        .invalidResponse,
                        "back-end \(mount) sent rendition \(streamId) of \(objectId) without a length, and it is "
                            + "longer than the \(Self.unknownLengthRenditionLimit / 1024 / 1024) MiB a gateway reads "
                            + "to learn one")
                }
                bytes += chunk
            }
        } catch let error as HTTPTransferError {
            throw CMISError(.connection, "back-end \(mount) stopped sending rendition \(streamId): \(error.message)")
        }
        let whole = bytes
        let streamer = ContentStreamer { range in
            let part = range.map { Array(whole[Int($0.lowerBound)...Int($0.upperBound)]) } ?? whole
            return AsyncThrowingStream { continuation in
                continuation.yield(part)
                continuation.finish()
            }
        }
        return ContentOutput(
            stream: streamer, length: Int64(whole.count), mimeType: mimeType, fileName: nil, entityTag: nil)
    }

    /// How many bytes of the back-end's answer come before the range asked: all of the start when it answered the
    /// whole content (200), the difference when its `206` starts earlier. A `206` that starts later, or that says
    /// nothing of where it starts, cannot give the range: 502.
    static func bytesToSkip(
        asked range: ClosedRange<Int64>?, status: Int, contentRange: String?, mount: String
    ) throws -> Int64 {
        guard let range else { return 0 }
        if status == 200 { return range.lowerBound }
        // "bytes 100-199/1000"
        guard let header = contentRange?.trimmingCharacters(in: .whitespaces), header.lowercased().hasPrefix("bytes "),
            let dash = header.firstIndex(of: "-"),
            let start = Int64(header[header.index(header.startIndex, offsetBy: 6)..<dash]),
            start <= range.lowerBound
        else {
            throw CMISError(
                .invalidResponse,
                "back-end \(mount) answered a range request for bytes \(range.lowerBound)-\(range.upperBound) with "
                    + "Content-Range \(contentRange ?? "(none)")")
        }
        return range.lowerBound - start
    }

    /// The body's chunks as bytes, `skip` bytes dropped from the front, read one at a time as the consumer asks
    /// (the transport's backpressure holds: nothing is read ahead of the reader).
    static func chunks(
        _ body: HTTPResponseBody, skipping skip: Int64, mount: String
    ) -> AsyncThrowingStream<[UInt8], any Error> {
        let reader = ChunkReader(iterator: body.makeAsyncIterator(), skip: skip)
        return AsyncThrowingStream {
            do {
                return try await reader.next()
            } catch let error as HTTPTransferError {
                throw CMISError(.connection, "back-end \(mount) stopped sending content: \(error.message)")
            }
        }
    }

    /// Sets the back-end document's content, streamed from the blob the binding wrote.
    public func setContentStream(
        repositoryId: String, objectId: String, overwrite: Bool, changeToken: String?, content: ContentInput,
        caller: CallerContext
    ) async throws -> CMISObject {
        try await upload(content, properties: Properties()) { source in
            try await call(caller, "set content") { binding, backend in
                try await binding.setContentStream(
                    repositoryId: backend, objectId: objectId, content: source!, overwrite: overwrite,
                    changeToken: changeToken, progress: nil)
            }
        }
    }

    /// Appends to the back-end document's content, streamed from the blob the binding wrote, passing `changeToken`
    /// on.
    public func appendContentStream(
        repositoryId: String, objectId: String, isLastChunk: Bool, changeToken: String?, content: ContentInput,
        caller: CallerContext
    ) async throws -> CMISObject {
        try await upload(content, properties: Properties()) { source in
            try await call(caller, "append content") { binding, backend in
                try await binding.appendContentStream(
                    repositoryId: backend, objectId: objectId, content: source!, isLastChunk: isLastChunk,
                    changeToken: changeToken, progress: nil)
            }
        }
    }

    /// Removes the back-end document's content, passing `changeToken` on.
    public func deleteContentStream(
        repositoryId: String, objectId: String, changeToken: String?, caller: CallerContext
    ) async throws -> CMISObject {
        try await call(caller, "delete content") { binding, backend in
            try await binding.deleteContentStream(repositoryId: backend, objectId: objectId, changeToken: changeToken)
        }
    }

    /// The renditions the back-end lists with the object, for `filter` (`*` when nil).
    public func renditions(
        repositoryId: String, objectId: String, filter: String?, caller: CallerContext
    ) async throws -> [Rendition] {
        try await object(
            repositoryId: repositoryId, id: objectId,
            context: OperationContext(filter: ["cmis:objectId"], renditionFilter: filter ?? "*"), caller: caller
        ).renditions
    }

    /// Runs `body` with uploaded content as the client sends it (nil when there is none): a file of exactly the
    /// blob's bytes, streamed from disk (``BlobStore/withFile(_:_:)``).
    func upload<T>(
        _ content: ContentInput?, properties: Properties, _ body: (ContentSource?) async throws -> T
    ) async throws -> T {
        guard let content else { return try await body(nil) }
        return try await blobs.withFile(content.blob) { file in
            try await body(
                .file(
                    file, filename: content.fileName ?? properties["cmis:name"]?.values.first?.stringValue ?? "content",
                    mimeType: content.mimeType))
        }
    }

    // MARK: Multi-filing

    /// Files the back-end object in one more folder.
    public func addObjectToFolder(
        repositoryId: String, objectId: String, folderId: String, allVersions: Bool, caller: CallerContext
    ) async throws -> CMISObject {
        try await call(caller, "add to folder") { binding, backend in
            try await binding.addObjectToFolder(
                repositoryId: backend, objectId: objectId, folderId: folderId, allVersions: allVersions)
        }
    }

    /// Unfiles the back-end object from `folderId` (from every folder when nil).
    public func removeObjectFromFolder(
        repositoryId: String, objectId: String, folderId: String?, caller: CallerContext
    ) async throws -> CMISObject {
        try await call(caller, "remove from folder") { binding, backend in
            try await binding.removeObjectFromFolder(repositoryId: backend, objectId: objectId, folderId: folderId)
        }
    }

    // MARK: Discovery

    /// Runs the query on the back-end, with its allowable actions, relationships and rendition filter. A nil
    /// `maxItems` asks the back-end for pages of 100.
    public func query(
        repositoryId: String, statement: String, searchAllVersions: Bool, includeAllowableActions: Bool,
        includeRelationships: OperationContext.IncludeRelationships, renditionFilter: String?, maxItems: Int?,
        skipCount: Int, caller: CallerContext
    ) async throws -> ObjectList {
        try await call(caller, "query") { binding, backend in
            try await binding.query(
                repositoryId: backend, statement: statement, searchAllVersions: searchAllVersions,
                includeAllowableActions: includeAllowableActions, includeRelationships: includeRelationships,
                renditionFilter: renditionFilter, maxItems: maxItems ?? defaultPage, skipCount: skipCount)
        }
    }

    /// A page of the back-end's change log from `changeLogToken`, with policy ids and ACLs when asked. A nil
    /// `maxItems` asks the back-end for pages of 100.
    public func contentChanges(
        repositoryId: String, changeLogToken: String?, includeProperties: Bool, includePolicyIds: Bool,
        includeACL: Bool, maxItems: Int?, caller: CallerContext
    ) async throws -> ContentChanges {
        try await call(caller, "get content changes") { binding, backend in
            try await binding.contentChanges(
                repositoryId: backend, changeLogToken: changeLogToken, includeProperties: includeProperties,
                includePolicyIds: includePolicyIds, includeACL: includeACL, maxItems: maxItems ?? defaultPage)
        }
    }

    // MARK: Versioning

    /// Checks the back-end document out; returns the private working copy.
    public func checkOut(repositoryId: String, objectId: String, caller: CallerContext) async throws -> CMISObject {
        try await call(caller, "check out") { binding, backend in
            try await binding.checkOut(repositoryId: backend, objectId: objectId)
        }
    }

    /// Cancels the back-end check-out.
    public func cancelCheckOut(repositoryId: String, objectId: String, caller: CallerContext) async throws {
        try await call(caller, "cancel check-out") { binding, backend in
            try await binding.cancelCheckOut(repositoryId: backend, objectId: objectId)
        }
    }

    /// Checks the private working copy in on the back-end, new content streamed from the blob the binding wrote.
    /// Policies and ACEs are applied to the new version after, as separate calls.
    public func checkIn(
        repositoryId: String, objectId: String, major: Bool, properties: Properties, content: ContentInput?,
        comment: String?, policies: [String], addACEs: [ACE], removeACEs: [ACE], caller: CallerContext
    ) async throws -> CMISObject {
        let version = try await upload(content, properties: properties) { source in
            try await call(caller, "check in") { binding, backend in
                try await binding.checkIn(
                    repositoryId: backend, objectId: objectId, major: major, properties: properties, content: source,
                    comment: comment, progress: nil)
            }
        }
        return try await applyExtras(version, policies: policies, add: addACEs, remove: removeACEs, caller: caller)
    }

    /// The back-end's latest version (or latest major version) of the document.
    public func objectOfLatestVersion(
        repositoryId: String, objectId: String, major: Bool, context: OperationContext, caller: CallerContext
    ) async throws -> CMISObject {
        try await call(caller, "get latest version") { binding, backend in
            try await binding.objectOfLatestVersion(
                repositoryId: backend, objectId: objectId, major: major, context: context)
        }
    }

    /// Every version of the back-end document.
    public func allVersions(
        repositoryId: String, objectId: String, context: OperationContext, caller: CallerContext
    ) async throws -> [CMISObject] {
        try await call(caller, "get all versions") { binding, backend in
            try await binding.allVersions(repositoryId: backend, objectId: objectId, context: context)
        }
    }

    // MARK: Relationships, policies, ACLs

    /// A page of the back-end object's relationships. A nil `maxItems` asks the back-end for pages of 100.
    public func objectRelationships(
        repositoryId: String, objectId: String, includeSubRelationshipTypes: Bool,
        direction: RelationshipDirection, typeId: String?, context: OperationContext, maxItems: Int?,
        skipCount: Int, caller: CallerContext
    ) async throws -> ObjectList {
        try await call(caller, "get relationships") { binding, backend in
            try await binding.relationships(
                repositoryId: backend, objectId: objectId, direction: direction, typeId: typeId,
                includeSubRelationshipTypes: includeSubRelationshipTypes, context: context,
                maxItems: maxItems ?? defaultPage, skipCount: skipCount)
        }
    }

    /// Applies the policy to the back-end object.
    public func applyPolicy(
        repositoryId: String, policyId: String, objectId: String, caller: CallerContext
    ) async throws {
        try await call(caller, "apply policy") { binding, backend in
            try await binding.applyPolicy(repositoryId: backend, policyId: policyId, objectId: objectId)
        }
    }

    /// Removes the policy from the back-end object.
    public func removePolicy(
        repositoryId: String, policyId: String, objectId: String, caller: CallerContext
    ) async throws {
        try await call(caller, "remove policy") { binding, backend in
            try await binding.removePolicy(repositoryId: backend, policyId: policyId, objectId: objectId)
        }
    }

    /// The policies applied to the back-end object.
    public func appliedPolicies(
        repositoryId: String, objectId: String, context: OperationContext, caller: CallerContext
    ) async throws -> [CMISObject] {
        try await call(caller, "get applied policies") { binding, backend in
            try await binding.appliedPolicies(repositoryId: backend, objectId: objectId, context: context)
        }
    }

    /// The back-end object's ACL.
    public func acl(
        repositoryId: String, objectId: String, onlyBasicPermissions: Bool, caller: CallerContext
    ) async throws -> ACL {
        try await call(caller, "get ACL") { binding, backend in
            try await binding.acl(repositoryId: backend, objectId: objectId, onlyBasicPermissions: onlyBasicPermissions)
        }
    }

    /// Changes the back-end object's ACL; a nil `propagation` asks for `repositorydetermined`.
    public func applyACL(
        repositoryId: String, objectId: String, addACEs: [ACE], removeACEs: [ACE], propagation: String?,
        caller: CallerContext
    ) async throws -> ACL {
        try await call(caller, "apply ACL") { binding, backend in
            try await binding.applyACL(
                repositoryId: backend, objectId: objectId, add: addACEs, remove: removeACEs,
                propagation: ACLPropagation(rawValue: propagation ?? ACLPropagation.repositoryDetermined.rawValue))
        }
    }
}

/// Reads a response body for ``RemoteRepository/chunks(_:skipping:mount:)``: one chunk per call, dropping the
/// first `skip` bytes.
private final class ChunkReader: @unchecked Sendable {
    // Only ever used by the one task that reads the stream, one call at a time.
    private var iterator: HTTPResponseBody.AsyncIterator
    private var skip: Int64

    init(iterator: HTTPResponseBody.AsyncIterator, skip: Int64) {
        self.iterator = iterator
        self.skip = skip
    }

    func next() async throws -> [UInt8]? {
        while let chunk = try await iterator.next() {
            if skip >= Int64(chunk.count) {
                skip -= Int64(chunk.count)
                continue
            }
            let bytes = [UInt8](chunk.dropFirst(Int(skip)))
            skip = 0
            return bytes
        }
        return nil
    }
}
