import Foundation
import HTTPTypes
import Hummingbird
import SatchelCMISCore
import SatchelRepository
import SatchelJSON

extension BrowserCall {
    /// A POST: the `cmisaction` form field picks the service.
    func performAction() async throws -> Response {
        let repositoryId = try repositoryId()
        guard let action = parameters.string("cmisaction") else {
            throw CMISError(.invalidArgument, "a Browser binding POST needs the cmisaction form field")
        }
        let name = action.lowercased()
        if name == "query" { return try await query(repositoryId: repositoryId) }
        // Every other action changes something: XSRF first.
        let presented = HTTPField.Name(environment.xsrfHeader).flatMap { request.headers[$0] } ?? parameters["token"]
        try environment.checkXSRF(context: context, repositoryId: repository, presented: presented)
        switch name {
        case "createdocument": return try await createDocument(repositoryId: repositoryId)
        case "createdocumentfromsource": return try await createDocumentFromSource(repositoryId: repositoryId)
        case "createfolder": return try await createFolder(repositoryId: repositoryId)
        case "createitem":
            return try await createObject(repositoryId: repositoryId, defaultType: "cmis:item", filed: true)
        case "createpolicy":
            return try await createObject(repositoryId: repositoryId, defaultType: "cmis:policy", filed: true)
        case "createrelationship":
            return try await createObject(repositoryId: repositoryId, defaultType: "cmis:relationship", filed: false)
        case "bulkupdate": return try await bulkUpdate(repositoryId: repositoryId)
        default: break
        }
        guard objectPath != nil || parameters.string("objectId") != nil else {
            throw CMISError(.invalidArgument, "cmisaction \(action.prefix(60)) needs an object URL (…/root?objectId=…)")
        }
        let objectId = try await targetObjectId(repositoryId: repositoryId)
        switch name {
        case "update":
            let properties = try await propertiesForUpdate(objectId: objectId)
            let object = try await service.updateProperties(
                repositoryId: repositoryId, objectId: objectId, changeToken: parameters.string("changeToken"),
                properties: properties, caller: caller)
            return json { $0.object(object) }
        case "setcontent":
            let object = try await service.setContentStream(
                repositoryId: repositoryId, objectId: objectId,
                overwrite: try parameters.bool("overwriteFlag", default: true),
                changeToken: parameters.string("changeToken"), content: try requiredContent(), caller: caller)
            return json(status: .created) { $0.object(object) }
        case "appendcontent":
            let object = try await service.appendContentStream(
                repositoryId: repositoryId, objectId: objectId,
                isLastChunk: try parameters.bool("isLastChunk", default: false),
                changeToken: parameters.string("changeToken"), content: try requiredContent(), caller: caller)
            return json { $0.object(object) }
        case "deletecontent":
            let object = try await service.deleteContentStream(
                repositoryId: repositoryId, objectId: objectId, changeToken: parameters.string("changeToken"),
                caller: caller)
            return json { $0.object(object) }
        case "delete":
            try await service.deleteObject(
                repositoryId: repositoryId, objectId: objectId,
                allVersions: try parameters.bool("allVersions", default: true), caller: caller)
            return empty()
        case "deletetree":
            let unfile = try UnfileObjects(rawValue: parameters.string("unfileObjects") ?? "delete")
                .orThrow(CMISError(.invalidArgument, "unfileObjects must be unfile, deletesinglefiled or delete"))
            let failed = try await service.deleteTree(
                repositoryId: repositoryId, folderId: objectId,
                allVersions: try parameters.bool("allVersions", default: true), unfileObjects: unfile,
                continueOnFailure: try parameters.bool("continueOnFailure", default: false), caller: caller)
            guard !failed.isEmpty else { return empty() }
            return json(status: .internalServerError) { $0.jsonObject { $0.strings("ids", failed) } }
        case "move":
            guard let target = parameters.string("targetFolderId") else {
                throw CMISError(.invalidArgument, "move needs targetFolderId")
            }
            let object = try await service.moveObject(
                repositoryId: repositoryId, objectId: objectId, targetFolderId: target,
                sourceFolderId: parameters.string("sourceFolderId"), caller: caller)
            return json(status: .created, headers: location(object)) { $0.object(object) }
        case "addobjecttofolder":
            guard let folder = parameters.string("folderId") else {
                throw CMISError(.invalidArgument, "addObjectToFolder needs folderId")
            }
            let object = try await service.addObjectToFolder(
                repositoryId: repositoryId, objectId: objectId, folderId: folder,
                allVersions: try parameters.bool("allVersions", default: true), caller: caller)
            return json(status: .created) { $0.object(object) }
        case "removeobjectfromfolder":
            let object = try await service.removeObjectFromFolder(
                repositoryId: repositoryId, objectId: objectId, folderId: parameters.string("folderId"), caller: caller)
            return json(status: .created) { $0.object(object) }
        case "checkout":
            let object = try await service.checkOut(repositoryId: repositoryId, objectId: objectId, caller: caller)
            return json(status: .created, headers: location(object)) { $0.object(object) }
        case "cancelcheckout":
            try await service.cancelCheckOut(repositoryId: repositoryId, objectId: objectId, caller: caller)
            return empty()
        case "checkin":
            let properties = try await propertiesForUpdate(objectId: objectId)
            let object = try await service.checkIn(
                repositoryId: repositoryId, objectId: objectId, major: try parameters.bool("major", default: true),
                properties: properties, content: try content(), comment: parameters["checkinComment"],
                policies: parameters.list("policy"), addACEs: parameters.aces("add"),
                removeACEs: parameters.aces("remove"), caller: caller)
            return json(status: .created, headers: location(object)) { $0.object(object) }
        case "applypolicy", "removepolicy":
            guard let policy = parameters.string("policyId") else {
                throw CMISError(.invalidArgument, "\(action) needs policyId")
            }
            if name == "applypolicy" {
                try await service.applyPolicy(
                    repositoryId: repositoryId, policyId: policy, objectId: objectId, caller: caller)
            } else {
                try await service.removePolicy(
                    repositoryId: repositoryId, policyId: policy, objectId: objectId, caller: caller)
            }
            let object = try await service.object(
                repositoryId: repositoryId, id: objectId, context: try parameters.operationContext(), caller: caller)
            return json { $0.object(object) }
        case "applyacl":
            let acl = try await service.applyACL(
                repositoryId: repositoryId, objectId: objectId, addACEs: parameters.aces("add"),
                removeACEs: parameters.aces("remove"), propagation: parameters.string("ACLPropagation"), caller: caller)
            return json { $0.acl(acl) }
        default:
            throw CMISError(.invalidArgument, "unknown cmisaction \"\(action.prefix(60))\"")
        }
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
