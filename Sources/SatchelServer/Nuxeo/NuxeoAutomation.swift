import Foundation
import Hummingbird
import SatchelCMISCore
import SatchelJSON
import SatchelRepository

/// Nuxeo Automation over the repository (docs/nuxeo.md): `GET automation` (the registry clients check parameters
/// against) and `POST automation/{operation}` with `{"params": …, "input": …, "context": …}` for the common document
/// operations.
extension NuxeoHandler {
    /// At most this many children in one Document.GetChildren answer.
    static let maximumChildren = 10_000

    /// The operations served, with their parameters (name, type, required).
    static let operations: [(id: String, params: [(String, String, Bool)], signature: [String])] = [
        ("Document.Fetch", [("value", "document", true)], ["void", "document"]),
        (
            "Document.Create",
            [("type", "string", true), ("name", "string", false), ("properties", "properties", false)],
            ["document", "document"]
        ),
        (
            "Document.Update", [("properties", "properties", true), ("changeToken", "string", false)],
            ["document", "document"]
        ),
        ("Document.Delete", [], ["document", "void"]),
        ("Document.GetChildren", [], ["document", "documents"]),
        ("Document.Move", [("target", "document", true), ("name", "string", false)], ["document", "document"]),
        ("Document.Copy", [("target", "document", true), ("name", "string", false)], ["document", "document"]),
        (
            "Repository.Query",
            [
                ("query", "string", true), ("pageSize", "integer", false),
                ("currentPageIndex", "integer", false), ("sortBy", "string", false), ("sortOrder", "string", false),
            ],
            ["void", "documents"]
        ),
        ("Blob.Get", [("xpath", "string", false)], ["document", "blob"]),
        (
            "Document.AddPermission",
            [
                ("permission", "string", true), ("username", "string", false), ("users", "stringlist", false),
                ("acl", "string", false), ("begin", "date", false), ("end", "date", false),
                ("blockInheritance", "boolean", false), ("notify", "boolean", false), ("comment", "string", false),
            ],
            ["document", "document"]
        ),
        ("FileManager.Import", [("overwite", "boolean", false), ("mimeType", "string", false)], ["blob", "document"]),
        ("Blob.AttachOnDocument", [("document", "document", true), ("save", "boolean", false)], ["blob", "blob"]),
        ("Document.Lock", [], ["document", "document"]),
        ("Document.Unlock", [], ["document", "document"]),
        ("Document.Trash", [], ["document", "document"]),
        ("Document.Untrash", [], ["document", "document"]),
        ("Document.CheckIn", [("version", "string", true), ("comment", "string", false)], ["document", "document"]),
        (
            "Document.RemovePermission",
            [("id", "string", false), ("user", "string", false), ("acl", "string", false)],
            ["document", "document"]
        ),
    ]

    /// The operations that only read (all a read-only token may run).
    static let readOperations: Set<String> = ["Document.Fetch", "Document.GetChildren", "Repository.Query", "Blob.Get"]

    func automation(
        _ segments: [String], request: Request, context: ServerRequestContext, repository: String,
        caller: CallerContext
    ) async throws -> Response {
        if segments.isEmpty, request.method == .get { return Self.json(Self.registry()) }
        guard request.method == .post, segments.count == 1 else {
            throw CMISError(.notSupported, "automation/\(segments.joined(separator: "/")) is not served here")
        }
        let operation = segments[0]
        guard let declared = Self.operations.first(where: { $0.id == operation }) else {
            throw CMISError(.notSupported, "the operation \(operation) is not served here")
        }
        if context.accessToken?.permission == .read, !Self.readOperations.contains(operation) {
            throw CMISError(.permissionDenied, "the token is read-only: \(operation) changes documents")
        }
        // multipart/related only: a form another site posts (multipart/form-data) is no Automation call.
        if let type = request.headers[.contentType], type.lowercased().hasPrefix("multipart/related") {
            return try await automationWithBlob(
                operation, contentType: type, request: request, repository: repository, caller: caller)
        }
        let call = try await body(request)
        let params = call["params"]?.objectValue ?? JSONObject()
        for (name, _, required) in declared.params where required && params[name] == nil {
            throw CMISError(.invalidArgument, "\(operation) needs the parameter \(name)")
        }
        let reference = call["input"]?.stringValue
        // `docs:a,b`: a document operation run on each, answering the documents (or nothing, when void).
        if let reference, reference.hasPrefix("docs:"), declared.signature.first == "document" {
            let references = reference.dropFirst(5).split(separator: ",").map {
                $0.trimmingCharacters(in: .whitespaces)
            }
            guard references.count <= Self.maximumInputs else {
                throw CMISError(.invalidArgument, "\(operation) takes at most \(Self.maximumInputs) documents at once")
            }
            // Each document once, and every one resolved before any is changed.
            var seen: Set<String> = []
            var objects: [CMISObject] = []
            for reference in references where !reference.isEmpty {
                let object = try await resolve(reference, repository: repository, caller: caller)
                if seen.insert(object.id ?? reference).inserted { objects.append(object) }
            }
            var entries: [JSONValue] = []
            for object in objects {
                guard
                    case .document(let result) = try await step(
                        operation, on: object, params: params, request: request, context: context,
                        repository: repository, caller: caller)
                else { continue }
                entries.append(try await render(result, repository: repository, caller: caller))
            }
            if entries.isEmpty { return Response(status: .noContent) }
            return Self.json(
                Self.page(entries, index: 0, size: entries.count, more: false, total: Int64(entries.count)))
        }
        var object: CMISObject?
        if let reference, declared.signature.first == "document" {
            object = try await resolve(reference, repository: repository, caller: caller)
        } else if declared.signature.first == "document" {
            throw CMISError(.invalidArgument, "\(operation) needs a document as input")
        }
        switch try await step(
            operation, on: object, params: params, request: request, context: context, repository: repository,
            caller: caller)
        {
        case .document(let result): return Self.json(try await render(result, repository: repository, caller: caller))
        case .none: return Response(status: .noContent)
        case .response(let response): return response
        }
    }

    /// At most this many documents in one `docs:` input.
    static let maximumInputs = 1000

    /// What one run of an operation answers.
    enum StepResult {
        case document(CMISObject)
        case none
        case response(Response)
    }

    /// Runs an operation on one input document (nil for operations without one).
    private func step(
        _ operation: String, on input: CMISObject?, params: JSONObject, request: Request,
        context: ServerRequestContext, repository: String, caller: CallerContext
    ) async throws -> StepResult {
        func object() throws(CMISError) -> CMISObject {
            guard let input else { throw CMISError(.invalidArgument, "\(operation) needs a document as input") }
            return input
        }
        switch operation {
        case "Document.Fetch":
            return .document(
                try await resolve(params["value"]?.stringValue ?? "", repository: repository, caller: caller))
        case "Document.Create":
            let properties = Self.properties(params["properties"])
            let name = params["name"]?.stringValue ?? properties["dc:title"] ?? ""
            return .document(
                try await createChild(
                    in: try object(), type: params["type"]?.stringValue ?? "File", name: name,
                    title: properties["dc:title"], description: properties["dc:description"], repository: repository,
                    caller: caller))
        case "Document.Update":
            let properties = Self.properties(params["properties"])
            return .document(
                try await updateDocument(
                    try object(), title: properties["dc:title"],
                    description: properties["dc:description"].map { .string($0) },
                    changeToken: params["changeToken"]?.stringValue, repository: repository, caller: caller))
        case "Document.Delete":
            try await deleteDocument(try object(), repository: repository, caller: caller)
            return .none
        case "Document.GetChildren":
            return .response(try await allChildren(of: try object(), repository: repository, caller: caller))
        case "Document.Move", "Document.Copy":
            return .document(
                try await moveOrCopy(operation, try object(), params: params, repository: repository, caller: caller))
        case "Repository.Query":
            var query: [String: String] = [:]
            for (name, value) in params {
                query[name] = value.stringValue ?? value.int64Value.map(String.init)
            }
            return .response(try await search(repository: repository, query: query, caller: caller))
        case "Document.AddPermission":
            try await checkUnlocked(try object(), repository: repository, caller: caller)
            try await addPermission(try object(), params: params, repository: repository, caller: caller)
            return .document(try object())
        case "Document.RemovePermission":
            try await checkUnlocked(try object(), repository: repository, caller: caller)
            try await removePermission(try object(), params: params, repository: repository, caller: caller)
            return .document(try object())
        case "Document.Lock": try await lockDocument(try object(), repository: repository, caller: caller)
        case "Document.Unlock": try await unlockDocument(try object(), repository: repository, caller: caller)
        case "Document.Trash": try await trashDocument(try object(), repository: repository, caller: caller)
        case "Document.Untrash": try await untrashDocument(try object(), repository: repository, caller: caller)
        case "Document.CheckIn":
            // `version`: major or minor (Nuxeo's values; MAJOR/MINOR as the header takes them too).
            let kind = params["version"]?.stringValue ?? ""
            guard ["major", "minor"].contains(kind.lowercased()) else {
                throw CMISError(.invalidArgument, "Document.CheckIn takes version major or minor, not \(kind)")
            }
            return .document(
                try await version(
                    try object(), option: kind, comment: params["comment"]?.stringValue, repository: repository,
                    caller: caller))
        case "Blob.Get":
            guard let id = try object().id else { throw CMISError(.objectNotFound, "no such document") }
            let content = try await service(repository).contentStream(
                repositoryId: repository, objectId: id, streamId: nil, caller: caller)
            return .response(try await ContentResponse(content: content).response(to: request, context: context))
        case "FileManager.Import", "Blob.AttachOnDocument":
            throw CMISError(
                .invalidArgument,
                "\(operation) takes a blob: upload it in a batch and run it there (upload/{batch}/{file}/execute/\(operation)), or send it as multipart/related"
            )
        default:
            throw CMISError(.notSupported, "the operation \(operation) is not served here")
        }
        // Lock, Unlock, Trash, Untrash: the document as it is now.
        return .document(try object())
    }

    /// `Document.GetChildren`: all the folder's live children, as Nuxeo answers, up to a bound (a page says whether
    /// more follow).
    private func allChildren(of folder: CMISObject, repository: String, caller: CallerContext) async throws -> Response
    {
        guard let id = folder.id, folder.baseType == .folder else {
            throw CMISError(.invalidArgument, "Document.GetChildren needs a folder as input")
        }
        let base = try await path(of: folder, repository: repository, caller: caller)
        var entries: [JSONValue] = []
        var skip = 0
        var more = false
        while entries.count < Self.maximumChildren {
            let list = try await service(repository).children(
                repositoryId: repository, folderId: id, context: OperationContext(includePathSegment: true),
                maxItems: min(1000, Self.maximumChildren - entries.count), skipCount: skip, caller: caller)
            let trashed = try await marks.trashMarks(
                of: list.objects.map { Self.markKey(of: $0.object) }, in: repository)
            let live = list.objects.filter { trashed[Self.markKey(of: $0.object)] == nil }
            entries += try await render(
                live.map(\.object),
                placedAt: live.map { child -> (path: String, parentID: String?)? in
                    ((base == "/" ? "" : base) + "/" + (child.pathSegment ?? child.object.name ?? ""), id)
                },
                repository: repository, caller: caller)
            skip += list.objects.count
            more = list.hasMoreItems
            guard list.hasMoreItems, !list.objects.isEmpty else { break }
        }
        return Self.json(
            Self.page(
                entries, index: 0, size: max(entries.count, 1), more: more, total: more ? nil : Int64(entries.count)))
    }

    /// `Document.Move` / `Document.Copy` into `params.target`, renamed to `params.name` when given: all of it or
    /// nothing. A copy is made under its new name in one change; a move renames first (a name the repository refuses
    /// stops it there, before anything moved) and, should the move then fail, takes the old name back.
    private func moveOrCopy(
        _ operation: String, _ object: CMISObject, params: JSONObject, repository: String, caller: CallerContext
    ) async throws -> CMISObject {
        let target = try await resolve(params["target"]?.stringValue ?? "", repository: repository, caller: caller)
        guard let id = object.id, let targetID = target.id, target.baseType == .folder else {
            throw CMISError(.invalidArgument, "\(operation) needs a folder as target")
        }
        let name = params["name"]?.stringValue
        func named(_ name: String) -> Properties {
            Properties([CMISProperty(id: "cmis:name", type: .string, values: [.string(name)])])
        }
        guard operation == "Document.Move" else {
            guard object.baseType == .document else {
                throw CMISError(.notSupported, "Document.Copy copies documents here, not folders")
            }
            return try await service(repository).createDocumentFromSource(
                repositoryId: repository, sourceId: id, parentId: targetID,
                properties: name.map(named) ?? Properties(), versioningState: nil, caller: caller)
        }
        try await checkUnlocked(object, repository: repository, caller: caller)
        let parents = try await service(repository).objectParents(
            repositoryId: repository, objectId: id, context: OperationContext(), caller: caller)
        let oldName = object.name
        if let name, name != oldName {
            _ = try await service(repository).updateProperties(
                repositoryId: repository, objectId: id, changeToken: nil, properties: named(name), caller: caller)
        }
        let result: CMISObject
        do {
            result = try await service(repository).moveObject(
                repositoryId: repository, objectId: id, targetFolderId: targetID,
                sourceFolderId: object.parentId ?? parents.first?.object.id, caller: caller)
        } catch {
            if let name, name != oldName, let oldName {
                _ = try? await service(repository).updateProperties(
                    repositoryId: repository, objectId: id, changeToken: nil, properties: named(oldName),
                    caller: caller)
            }
            throw error
        }
        // A trashed document is kept under the folder it is in now: a read, and a write only for a trashed one.
        let key = Self.markKey(of: object)
        if try await marks.isTrashed(key, in: repository) {
            try await marks.moved(key, to: targetID, in: repository)
        }
        return result
    }

    /// A document reference as Automation takes it: `doc:/path`, `/path`, a uid, or `doc:uid`.
    func resolve(_ reference: String, repository: String, caller: CallerContext) async throws -> CMISObject {
        var text = reference
        if text.hasPrefix("doc:") { text.removeFirst(4) }
        guard !text.isEmpty else { throw CMISError(.invalidArgument, "a document reference is empty") }
        if text.hasPrefix("/") {
            return try await service(repository).object(
                repositoryId: repository, path: text, context: OperationContext(), caller: caller)
        }
        return try await object(uid: text, repository: repository, caller: caller)
    }

    /// Automation's `properties`: an object, or `key=value` lines.
    static func properties(_ value: JSONValue?) -> [String: String] {
        var result: [String: String] = [:]
        if let object = value?.objectValue {
            for (key, member) in object { result[key] = member.stringValue }
        } else if let text = value?.stringValue {
            for line in text.split(separator: "\n") {
                let pair = line.split(separator: "=", maxSplits: 1).map(String.init)
                if pair.count == 2 { result[pair[0].trimmingCharacters(in: .whitespaces)] = pair[1] }
            }
        }
        return result
    }

    /// `GET automation`: the operations and their parameters.
    static func registry() -> JSONValue {
        let operations: [JSONValue] = operations.map { operation in
            [
                "id": .string(operation.id), "label": .string(operation.id), "category": "Document",
                "requires": .null, "description": .string(operation.id), "url": .string(operation.id),
                "signature": .array(operation.signature.map { .string($0) }),
                "params": .array(
                    operation.params.map { name, type, required in
                        [
                            "name": .string(name), "description": "", "type": .string(type),
                            "required": .bool(required), "widget": .null, "order": 0, "values": [],
                        ]
                    }),
            ]
        }
        return ["operations": .array(operations), "chains": [], "paths": [:], "codec": []]
    }
}
