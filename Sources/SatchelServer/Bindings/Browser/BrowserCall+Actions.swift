import Foundation
import HTTPTypes
import Hummingbird
import SatchelCMISCore
import SatchelRepository
import SatchelJSON

extension BrowserCall {
    /// A POST: the `cmisaction` form field picks the action from ``actions``. Every action but a query needs the
    /// XSRF token where the policy asks for it; an action on an object finds its object (by id or path) first.
    func performAction() async throws -> Response {
        let repositoryId = try repositoryId()
        guard let name = parameters.string("cmisaction") else {
            throw CMISError(.invalidArgument, "a Browser binding POST needs the cmisaction form field")
        }
        guard let action = Self.actions[name.lowercased()] else {
            throw CMISError(.invalidArgument, "unknown cmisaction \"\(name.prefix(60))\"")
        }
        if action.changes {
            let presented =
                HTTPField.Name(environment.xsrfHeader).flatMap { request.headers[$0] } ?? parameters["token"]
            try environment.checkXSRF(context: context, repositoryId: repository, presented: presented)
        }
        var objectId = ""
        if action.onObject {
            guard objectPath != nil || parameters.string("objectId") != nil else {
                throw CMISError(
                    .invalidArgument, "cmisaction \(name.prefix(60)) needs an object URL (…/root?objectId=…)")
            }
            objectId = try await targetObjectId(repositoryId: repositoryId)
        }
        return try await action.perform(self, repositoryId, objectId)
    }

    /// The Browser binding's actions by lower-cased `cmisaction`: one line per CMIS operation.
    static let actions: [String: BrowserAction] = [
        "query": BrowserAction(onObject: false, changes: false) { call, repositoryId, _ in
            try await call.query(repositoryId: repositoryId)
        },
        // Addressed to the repository, or to the folder they create in (which they find themselves).
        "createdocument": .repository { try await $0.createDocument(repositoryId: $1) },
        "createdocumentfromsource": .repository { try await $0.createDocumentFromSource(repositoryId: $1) },
        "createfolder": .repository { try await $0.createFolder(repositoryId: $1) },
        "createitem": .repository {
            try await $0.createObject(repositoryId: $1, defaultType: "cmis:item", filed: true)
        },
        "createpolicy": .repository {
            try await $0.createObject(repositoryId: $1, defaultType: "cmis:policy", filed: true)
        },
        "createrelationship": .repository {
            try await $0.createObject(repositoryId: $1, defaultType: "cmis:relationship", filed: false)
        },
        "bulkupdate": .repository { try await $0.bulkUpdate(repositoryId: $1) },
        "createtype": .repository { try await $0.createType(repositoryId: $1) },
        "updatetype": .repository { try await $0.updateType(repositoryId: $1) },
        "deletetype": .repository { try await $0.deleteType(repositoryId: $1) },
        // Addressed to an object.
        "update": .object { try await $0.update(repositoryId: $1, objectId: $2) },
        "setcontent": .object { try await $0.setContent(repositoryId: $1, objectId: $2) },
        "appendcontent": .object { try await $0.appendContent(repositoryId: $1, objectId: $2) },
        "deletecontent": .object { try await $0.deleteContent(repositoryId: $1, objectId: $2) },
        "delete": .object { try await $0.delete(repositoryId: $1, objectId: $2) },
        "deletetree": .object { try await $0.deleteTree(repositoryId: $1, folderId: $2) },
        "move": .object { try await $0.move(repositoryId: $1, objectId: $2) },
        "addobjecttofolder": .object { try await $0.addObjectToFolder(repositoryId: $1, objectId: $2) },
        "removeobjectfromfolder": .object { try await $0.removeObjectFromFolder(repositoryId: $1, objectId: $2) },
        "checkout": .object { try await $0.checkOut(repositoryId: $1, objectId: $2) },
        "cancelcheckout": .object { try await $0.cancelCheckOut(repositoryId: $1, objectId: $2) },
        "checkin": .object { try await $0.checkIn(repositoryId: $1, objectId: $2) },
        "applypolicy": .object { try await $0.policy(apply: true, repositoryId: $1, objectId: $2) },
        "removepolicy": .object { try await $0.policy(apply: false, repositoryId: $1, objectId: $2) },
        "applyacl": .object { try await $0.applyACL(repositoryId: $1, objectId: $2) },
    ]

    // MARK: Actions on an object

    func update(repositoryId: String, objectId: String) async throws -> Response {
        let properties = try await propertiesForUpdate(objectId: objectId)
        let object = try await service.updateProperties(
            repositoryId: repositoryId, objectId: objectId, changeToken: parameters.string("changeToken"),
            properties: properties, caller: caller)
        return json { $0.object(object) }
    }

    func setContent(repositoryId: String, objectId: String) async throws -> Response {
        let object = try await service.setContentStream(
            repositoryId: repositoryId, objectId: objectId,
            overwrite: try parameters.bool("overwriteFlag", default: true),
            changeToken: parameters.string("changeToken"), content: try requiredContent(), caller: caller)
        return json(status: .created) { $0.object(object) }
    }

    func appendContent(repositoryId: String, objectId: String) async throws -> Response {
        let object = try await service.appendContentStream(
            repositoryId: repositoryId, objectId: objectId,
            isLastChunk: try parameters.bool("isLastChunk", default: false),
            changeToken: parameters.string("changeToken"), content: try requiredContent(), caller: caller)
        return json { $0.object(object) }
    }

    func deleteContent(repositoryId: String, objectId: String) async throws -> Response {
        let object = try await service.deleteContentStream(
            repositoryId: repositoryId, objectId: objectId, changeToken: parameters.string("changeToken"),
            caller: caller)
        return json { $0.object(object) }
    }

    func delete(repositoryId: String, objectId: String) async throws -> Response {
        try await service.deleteObject(
            repositoryId: repositoryId, objectId: objectId,
            allVersions: try parameters.bool("allVersions", default: true), caller: caller)
        return empty()
    }

    func deleteTree(repositoryId: String, folderId: String) async throws -> Response {
        let unfile = try UnfileObjects(rawValue: parameters.string("unfileObjects") ?? "delete")
            .orThrow(CMISError(.invalidArgument, "unfileObjects must be unfile, deletesinglefiled or delete"))
        let failed = try await service.deleteTree(
            repositoryId: repositoryId, folderId: folderId,
            allVersions: try parameters.bool("allVersions", default: true), unfileObjects: unfile,
            continueOnFailure: try parameters.bool("continueOnFailure", default: false), caller: caller)
        guard !failed.isEmpty else { return empty() }
        return json(status: .internalServerError) { $0.jsonObject { $0.strings("ids", failed) } }
    }

    func move(repositoryId: String, objectId: String) async throws -> Response {
        guard let target = parameters.string("targetFolderId") else {
            throw CMISError(.invalidArgument, "move needs targetFolderId")
        }
        let object = try await service.moveObject(
            repositoryId: repositoryId, objectId: objectId, targetFolderId: target,
            sourceFolderId: parameters.string("sourceFolderId"), caller: caller)
        return json(status: .created, headers: location(object)) { $0.object(object) }
    }

    func addObjectToFolder(repositoryId: String, objectId: String) async throws -> Response {
        guard let folder = parameters.string("folderId") else {
            throw CMISError(.invalidArgument, "addObjectToFolder needs folderId")
        }
        let object = try await service.addObjectToFolder(
            repositoryId: repositoryId, objectId: objectId, folderId: folder,
            allVersions: try parameters.bool("allVersions", default: true), caller: caller)
        return json(status: .created) { $0.object(object) }
    }

    func removeObjectFromFolder(repositoryId: String, objectId: String) async throws -> Response {
        let object = try await service.removeObjectFromFolder(
            repositoryId: repositoryId, objectId: objectId, folderId: parameters.string("folderId"), caller: caller)
        return json(status: .created) { $0.object(object) }
    }

    func checkOut(repositoryId: String, objectId: String) async throws -> Response {
        let object = try await service.checkOut(repositoryId: repositoryId, objectId: objectId, caller: caller)
        return json(status: .created, headers: location(object)) { $0.object(object) }
    }

    func cancelCheckOut(repositoryId: String, objectId: String) async throws -> Response {
        try await service.cancelCheckOut(repositoryId: repositoryId, objectId: objectId, caller: caller)
        return empty()
    }

    func checkIn(repositoryId: String, objectId: String) async throws -> Response {
        let properties = try await propertiesForUpdate(objectId: objectId)
        let object = try await service.checkIn(
            repositoryId: repositoryId, objectId: objectId, major: try parameters.bool("major", default: true),
            properties: properties, content: try content(), comment: parameters["checkinComment"],
            policies: parameters.list("policy"), addACEs: parameters.aces("add"),
            removeACEs: parameters.aces("remove"), caller: caller)
        return json(status: .created, headers: location(object)) { $0.object(object) }
    }

    /// applyPolicy or removePolicy; answers the object as it is now.
    func policy(apply: Bool, repositoryId: String, objectId: String) async throws -> Response {
        guard let policy = parameters.string("policyId") else {
            throw CMISError(.invalidArgument, "\(apply ? "applyPolicy" : "removePolicy") needs policyId")
        }
        if apply {
            try await service.applyPolicy(
                repositoryId: repositoryId, policyId: policy, objectId: objectId, caller: caller)
        } else {
            try await service.removePolicy(
                repositoryId: repositoryId, policyId: policy, objectId: objectId, caller: caller)
        }
        let object = try await service.object(
            repositoryId: repositoryId, id: objectId, context: try parameters.operationContext(), caller: caller)
        return json { $0.object(object) }
    }

    func applyACL(repositoryId: String, objectId: String) async throws -> Response {
        let acl = try await service.applyACL(
            repositoryId: repositoryId, objectId: objectId, addACEs: parameters.aces("add"),
            removeACEs: parameters.aces("remove"), propagation: parameters.string("ACLPropagation"), caller: caller)
        return json { $0.acl(acl) }
    }

    // MARK: Type mutability

    /// The `type` field of createType and updateType: a type definition in the Browser binding's JSON.
    func typeField() throws -> TypeDefinition {
        guard let text = parameters.string("type") else {
            throw CMISError(
                .invalidArgument, "createType and updateType need the type field (a type definition in JSON)")
        }
        do {
            return try BrowserParser.typeDefinition(Data(text.utf8))
        } catch let error as CMISError {
            throw CMISError(.invalidArgument, "the type field cannot be read: \(error.message)")
        }
    }

    func createType(repositoryId: String) async throws -> Response {
        let type = try await service.createType(repositoryId: repositoryId, type: try typeField(), caller: caller)
        return json(status: .created) { $0.typeDefinition(type) }
    }

    func updateType(repositoryId: String) async throws -> Response {
        let type = try await service.updateType(repositoryId: repositoryId, type: try typeField(), caller: caller)
        return json { $0.typeDefinition(type) }
    }

    func deleteType(repositoryId: String) async throws -> Response {
        guard let typeId = parameters.string("typeId") else {
            throw CMISError(.invalidArgument, "deleteType needs typeId")
        }
        try await service.deleteType(repositoryId: repositoryId, typeId: typeId, caller: caller)
        return empty()
    }

    /// The uploaded content as the engine takes it.
    func content() throws(CMISError) -> ContentInput? {
        guard let upload else { return nil }
        return try ContentInput(blob: upload.blob, mimeType: upload.mimeType, fileName: upload.fileName)
    }

    func requiredContent() throws(CMISError) -> ContentInput {
        guard let content = try content() else {
            throw CMISError(.invalidArgument, "this action needs a content part (multipart/form-data with a file)")
        }
        return content
    }

    func location(_ object: CMISObject) -> HTTPFields {
        var headers = HTTPFields()
        if let id = object.id { headers[.location] = objectURL(id) }
        return headers
    }

    /// The folder a create goes into: the URL's object when it names one, else none (unfiled).
    /// Refuses an upload before its content is stored: the XSRF token (from the header, or a `token` field before
    /// the content), the repository, the target's existence and the caller's write permission on it, and a new
    /// document's name when its field came first. Fields after the content are checked by the action itself, and
    /// a blob it does not commit is removed when its lease ends.
    func checkBeforeContent(_ fields: [(String, String)]) async throws {
        var early = self
        early.parameters.add(fields)
        let presented =
            HTTPField.Name(environment.xsrfHeader).flatMap { request.headers[$0] } ?? early.parameters["token"]
        try environment.checkXSRF(context: context, repositoryId: repository, presented: presented)
        let repositoryId = try repositoryId()
        let targetId = try await early.targetObjectId(repositoryId: repositoryId)
        let creates = early.parameters.string("cmisaction")?.lowercased() == "createdocument"
        try await service.checkContentUpload(
            repositoryId: repositoryId, targetId: targetId,
            name: creates ? early.parameters.propertyValue("cmis:name") : nil,
            caller: caller)
    }

    func parentFolder(repositoryId: String) async throws -> String? {
        guard objectPath != nil || parameters.string("objectId") != nil else { return nil }
        return try await targetObjectId(repositoryId: repositoryId)
    }

    func versioningState() throws(CMISError) -> VersioningState? {
        guard let text = parameters.string("versioningState") else { return nil }
        return try VersioningState(rawValue: text)
            .orThrow(CMISError(.invalidArgument, "versioningState must be none, checkedout, major or minor"))
    }

    func createDocument(repositoryId: String) async throws -> Response {
        let parent = try await parentFolder(repositoryId: repositoryId)
        let properties = try await propertiesForCreate(defaultType: "cmis:document")
        let object = try await service.createDocument(
            repositoryId: repositoryId, parentId: parent, properties: properties, content: try content(),
            versioningState: try versioningState(), policies: parameters.list("policy"),
            addACEs: parameters.aces("add"), removeACEs: parameters.aces("remove"), caller: caller)
        return json(status: .created, headers: location(object)) { $0.object(object) }
    }

    func createDocumentFromSource(repositoryId: String) async throws -> Response {
        guard let source = parameters.string("sourceId") else {
            throw CMISError(.invalidArgument, "createDocumentFromSource needs sourceId")
        }
        let parent = try await parentFolder(repositoryId: repositoryId)
        let properties = try await propertiesForCreate(defaultType: nil)
        let object = try await service.createDocumentFromSource(
            repositoryId: repositoryId, sourceId: source, parentId: parent, properties: properties,
            versioningState: try versioningState(), caller: caller)
        return json(status: .created, headers: location(object)) { $0.object(object) }
    }

    func createFolder(repositoryId: String) async throws -> Response {
        guard let parent = try await parentFolder(repositoryId: repositoryId) else {
            throw CMISError(.invalidArgument, "createFolder needs the parent folder's URL (…/root?objectId=…)")
        }
        let properties = try await propertiesForCreate(defaultType: "cmis:folder")
        let object = try await service.createFolder(
            repositoryId: repositoryId, parentId: parent, properties: properties, policies: parameters.list("policy"),
            addACEs: parameters.aces("add"), removeACEs: parameters.aces("remove"), caller: caller)
        return json(status: .created, headers: location(object)) { $0.object(object) }
    }

    func createObject(repositoryId: String, defaultType: String, filed: Bool) async throws -> Response {
        var parent: String?
        if filed { parent = try await parentFolder(repositoryId: repositoryId) }
        let properties = try await propertiesForCreate(defaultType: defaultType)
        let object = try await service.createObject(
            repositoryId: repositoryId, parentId: parent, properties: properties, policies: parameters.list("policy"),
            addACEs: parameters.aces("add"), removeACEs: parameters.aces("remove"), caller: caller)
        return json(status: .created, headers: location(object)) { $0.object(object) }
    }

    /// bulkUpdate: `objectId[n]`, `changeToken[n]`, the properties, `addSecondaryTypeId[n]`,
    /// `removeSecondaryTypeId[n]`; answers `[{"id":…,"newId":…,"changeToken":…}]`.
    func bulkUpdate(repositoryId: String) async throws -> Response {
        let ids = parameters.entries("objectId").compactMap { index, entry in
            entry.value.map { (id: $0, changeToken: parameters.indexed["changeToken"]?[index]?.value) }
        }
        guard !ids.isEmpty else { throw CMISError(.invalidArgument, "bulkUpdate needs objectId[n]") }
        guard ids.count <= environment.limits.maxProperties else {
            throw CMISError(.invalidArgument, "bulkUpdate accepts at most \(environment.limits.maxProperties) objects")
        }
        let form = try parameters.formProperties(limits: environment.limits)
        var typeIds = parameters.list("addSecondaryTypeId")
        if let first = ids.first {
            let object = try await service.object(
                repositoryId: repositoryId, id: first.id,
                context: OperationContext(filter: ["cmis:objectTypeId", "cmis:secondaryObjectTypeIds"]), caller: caller)
            typeIds += [object.objectTypeId].compactMap { $0 } + object.secondaryObjectTypeIds
        }
        let known = try await definitions(typeIds)
        let properties = try PropertyTyping.typed(form, definitions: known)
        let updated = try await service.bulkUpdateProperties(
            repositoryId: repositoryId, objects: ids, properties: properties,
            addSecondaryTypeIds: parameters.list("addSecondaryTypeId"),
            removeSecondaryTypeIds: parameters.list("removeSecondaryTypeId"), caller: caller)
        return json { writer in
            writer.jsonArray { writer in
                for entry in updated {
                    writer.jsonObject { writer in
                        writer.json.write(key: "id", entry.id)
                        writer.optional("newId", entry.newId)
                        writer.optional("changeToken", entry.changeToken)
                    }
                }
            }
        }
    }
}

/// One Browser binding action: what it is addressed to, whether it changes anything, and what performs it.
struct BrowserAction: Sendable {
    /// Addressed to an object URL: the object (by `objectId` or path) is found before ``perform`` runs.
    var onObject: Bool
    /// Changes something: needs the XSRF token where the policy asks for it (everything but a query).
    var changes = true
    /// Performs the action with the call, the repository id and the object's id (empty when not ``onObject``).
    var perform: @Sendable (BrowserCall, _ repositoryId: String, _ objectId: String) async throws -> Response

    /// An action addressed to the repository (or to a folder it finds itself).
    static func repository(
        _ perform: @escaping @Sendable (BrowserCall, String) async throws -> Response
    ) -> BrowserAction {
        BrowserAction(onObject: false) { call, repositoryId, _ in try await perform(call, repositoryId) }
    }

    /// An action on the object the URL names.
    static func object(
        _ perform: @escaping @Sendable (BrowserCall, String, String) async throws -> Response
    ) -> BrowserAction {
        BrowserAction(onObject: true, perform: perform)
    }
}
