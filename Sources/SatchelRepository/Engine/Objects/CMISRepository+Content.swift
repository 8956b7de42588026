import Foundation
import Logging
public import SatchelCMISCore

extension CMISRepository {
    /// A document whose content the caller may change.
    func contentTarget(
        _ scope: Scope, _ objectId: String, changeToken: String?
    ) async throws
        -> (StoredObject, TypeDefinition)
    {
        let object = try await load(scope, objectId)
        guard object.baseTypeId == .document, let type = types.type(object.typeId) else {
            throw CMISError(
                .constraint, "'\(object.name)' is a \(object.baseTypeId.rawValue); only documents have content.")
        }
        try await require(.write, scope, on: object, to: "change the content of")
        try checkMutable(object)
        try checkChangeToken(changeToken, object)
        guard type.contentStreamAllowed != .notAllowed else {
            throw CMISError(.streamNotSupported, "Documents of type '\(type.id)' cannot have content.")
        }
        return (object, type)
    }

    /// A folder target needs `cmis:write` and a `name` not yet taken in it (compared in normalization form C); a
    /// document target needs `cmis:write` and must not be an old version; any other object is `constraint`.
    public func checkContentUpload(
        repositoryId: String, targetId: String, name: String?, caller: CallerContext
    ) async throws {
        let scope = try await scope(repositoryId, caller)
        let target = try await load(scope, targetId)
        switch target.baseTypeId {
        case .folder:
            try await require(.write, scope, on: target, to: "add objects to")
            if let name,
                try await store.child(repositoryId: scope.id, folderId: target.id, name: Self.normalizedName(name))
                    != nil
            {
                throw CMISError(.nameConstraintViolation, "The folder already holds an object named '\(name)'.")
            }
        case .document:
            try await require(.write, scope, on: target, to: "change the content of")
            try checkMutable(target)
        default:
            throw CMISError(
                .constraint, "'\(target.name)' is a \(target.baseTypeId.rawValue); only documents have content.")
        }
    }

    /// The blob's file, with the content's hash as its entity tag; the file name falls back to the object's name. Needs
    /// `cmis:read`. A `streamId` other than nil or empty is `invalidArgument` (the engine makes no renditions); a
    /// document without content is `constraint`, a blob missing from the blob store `storage`.
    public func contentStream(
        repositoryId: String, objectId: String, streamId: String?, caller: CallerContext
    ) async throws -> ContentOutput {
        let scope = try await scope(repositoryId, caller)
        let object = try await load(scope, objectId)
        try await require(.read, scope, on: object, to: "read")
        if let streamId, !streamId.isEmpty {
            throw CMISError(.invalidArgument, "This repository has no renditions: there is no stream '\(streamId)'.")
        }
        guard let content = object.content else {
            throw CMISError(.constraint, "'\(object.name)' (\(object.id)) has no content stream.")
        }
        // The caller learns what failed; the reason (which names the blob store's hosts) goes to the log.
        let name = "'\(object.name)' (\(object.id))"
        let failed = { @Sendable (error: BlobStoreError) -> CMISError in
            BlobStore.logger.error("cannot read the content of \(object.id): \(error)")
            return CMISError(
                .storage,
                error.isMissing
                    ? "The content of \(name) is missing from the blob store."
                    : "The content of \(name) cannot be read from the blob store now.")
        }
        let output: ContentOutput
        do {
            output = try await blobs.content(
                BlobReference(hash: content.hash, length: content.length), mimeType: content.mimeType,
                fileName: content.fileName ?? object.name)
        } catch {
            throw failed(error)
        }
        guard case .stream(let streamer) = output.body else { return output }
        // A back-end other than the local disk says whether the blob is there when the stream is opened.
        var reported = output
        reported.body = .stream(
            ContentStreamer { range in
                do {
                    return try await streamer.open(range)
                } catch let error as BlobStoreError {
                    throw failed(error)
                }
            })
        return reported
    }

    /// Needs `cmis:write` on a document that is its series' latest version or its working copy (`versioning` for an old
    /// version). The content is the blob its lease keeps in the blob store; a type that allows no
    /// content is `streamNotSupported`.
    public func setContentStream(
        repositoryId: String, objectId: String, overwrite: Bool, changeToken: String?, content: ContentInput,
        caller: CallerContext
    ) async throws -> CMISObject {
        let scope = try await scope(repositoryId, caller)
        let (object, type) = try await contentTarget(scope, objectId, changeToken: changeToken)
        if object.content != nil && !overwrite {
            throw CMISError(
                .contentAlreadyExists, "'\(object.name)' already has content; set overwrite to replace it.")
        }
        var changed = object
        changed.content = try storedContent(content, for: type)
        return try await update(scope, from: object, to: touched(changed, scope, now: configuration.clock()))
    }

    /// Appends in the blob store (`BlobStore.append(_:to:)`), keeping the existing media type and file name;
    /// `isLastChunk` changes nothing here. Checked as `setContentStream` is; a failed append is `storage`.
    public func appendContentStream(
        repositoryId: String, objectId: String, isLastChunk: Bool, changeToken: String?, content: ContentInput,
        caller: CallerContext
    ) async throws -> CMISObject {
        let scope = try await scope(repositoryId, caller)
        let (object, type) = try await contentTarget(scope, objectId, changeToken: changeToken)
        let chunk = try storedContent(content, for: type)
        var changed = object
        var combined: BlobLease?
        defer { combined?.end() }
        if let existing = object.content {
            do {
                combined = try await blobs.append(
                    BlobReference(hash: chunk.hash, length: chunk.length),
                    to: BlobReference(hash: existing.hash, length: existing.length))
            } catch {
                BlobStore.logger.error("cannot append to the content of \(object.id): \(error)")
                throw CMISError(.storage, "The content of '\(object.name)' could not be appended to now.")
            }
            changed.content = StoredContent(
                hash: combined?.hash ?? chunk.hash, length: combined?.length ?? chunk.length,
                mimeType: existing.mimeType, fileName: existing.fileName ?? chunk.fileName)
        } else {
            changed.content = chunk
        }
        return try await update(scope, from: object, to: touched(changed, scope, now: configuration.clock()))
    }

    /// A document without content is returned unchanged; a type that requires content is `constraint`. Checked as
    /// `setContentStream` is.
    public func deleteContentStream(
        repositoryId: String, objectId: String, changeToken: String?, caller: CallerContext
    ) async throws -> CMISObject {
        let scope = try await scope(repositoryId, caller)
        let (object, type) = try await contentTarget(scope, objectId, changeToken: changeToken)
        guard type.contentStreamAllowed != .required else {
            throw CMISError(.constraint, "Documents of type '\(type.id)' must keep their content.")
        }
        guard object.content != nil else { return try await render(scope, object, OperationContext(), filter: .all) }
        var changed = object
        changed.content = nil
        return try await update(scope, from: object, to: touched(changed, scope, now: configuration.clock()))
    }

    /// Always empty: the engine makes no renditions. Needs `cmis:read`.
    public func renditions(
        repositoryId: String, objectId: String, filter: String?, caller: CallerContext
    ) async throws -> [Rendition] {
        let scope = try await scope(repositoryId, caller)
        let object = try await load(scope, objectId)
        try await require(.read, scope, on: object, to: "read")
        return []
    }
}
