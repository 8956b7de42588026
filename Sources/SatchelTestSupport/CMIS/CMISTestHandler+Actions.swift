import Foundation
import HTTPTypes
import Hummingbird
import NIOCore

extension CMISTestHandler {
    /// A `cmisaction` POST: checks the token, then creates, updates or deletes.
    func post(_ form: CMISTestForm, headerToken: String?) -> Response {
        let action = form["cmisaction"] ?? ""
        repository.count(action)
        return repository.store.withLock { store -> Response in
            if let token = store.token, form["token"] != token, headerToken != token {
                return CMISTestJSON.error("permissionDenied", "Invalid or missing token", status: .forbidden)
            }
            if let token = store.token, headerToken == token { store.requests["tokenHeader", default: 0] += 1 }
            guard let objectId = form["objectId"], let target = store.nodes[objectId] else {
                return CMISTestJSON.error(
                    "objectNotFound", "Object not found: \(form["objectId"] ?? "(none)")", status: .notFound)
            }
            switch action {
            case "createFolder", "createDocument":
                return create(in: target, form: form, isFolder: action == "createFolder", store: &store)
            case "update":
                return update(target, form: form, store: &store)
            case "setContent":
                return setContent(target, form: form, store: &store)
            case "delete":
                guard target.id != "root" else {
                    return CMISTestJSON.error("constraint", "The root folder cannot be deleted", status: .conflict)
                }
                guard store.children[target.id, default: []].isEmpty else {
                    return CMISTestJSON.error("constraint", "Folder \(target.name) is not empty", status: .conflict)
                }
                store.nodes[target.id] = nil
                store.children[target.id] = nil
                if let parent = target.parentId { store.children[parent]?.removeAll { $0 == target.id } }
                return Response(status: .ok)
            default:
                return CMISTestJSON.error("invalidArgument", "Unknown action \(action)", status: .badRequest)
            }
        }
    }

    private func create(
        in folder: Node, form: CMISTestForm, isFolder: Bool, store: inout CMISTestRepository.Store
    ) -> Response {
        let properties = form.properties
        guard folder.isFolder else {
            return CMISTestJSON.error("invalidArgument", "\(folder.id) is not a folder", status: .badRequest)
        }
        guard let name = properties["cmis:name"], !name.isEmpty, !name.contains("/") else {
            return CMISTestJSON.error("invalidArgument", "cmis:name is missing or invalid", status: .badRequest)
        }
        if let conflict = conflict(name, in: folder.id, store: store) { return conflict }
        let now = Date()
        let id = String(store.nextId)
        store.nextId += 1
        var node = Node(
            id: id, name: name, parentId: folder.id, isFolder: isFolder, created: now, modified: now, changeToken: 1)
        if !isFolder, let file = form.file {
            node.content = file.data
            node.mimeType = file.contentType ?? "application/octet-stream"
            node.fileName = file.filename ?? name
        }
        store.nodes[id] = node
        store.children[folder.id, default: []].append(id)
        return TestHTTPServer.json(CMISTestJSON.object(node, in: store), status: .created)
    }

    /// setContentStream: replaces a document's content (checking the change token when one is sent).
    private func setContent(_ target: Node, form: CMISTestForm, store: inout CMISTestRepository.Store) -> Response {
        guard !target.isFolder else {
            return CMISTestJSON.error("constraint", "\(target.name) is a folder", status: .conflict)
        }
        if let changeToken = form["changeToken"], changeToken != String(target.changeToken) {
            return CMISTestJSON.error("updateConflict", "\(target.name) was changed meanwhile", status: .conflict)
        }
        guard let file = form.file else {
            return CMISTestJSON.error("invalidArgument", "setContent without content", status: .badRequest)
        }
        var node = target
        node.content = file.data
        node.mimeType = file.contentType ?? node.mimeType
        node.modified = Date()
        node.changeToken += 1
        store.nodes[node.id] = node
        return TestHTTPServer.json(CMISTestJSON.object(node, in: store), status: .created)
    }

    private func update(_ target: Node, form: CMISTestForm, store: inout CMISTestRepository.Store) -> Response {
        var node = target
        if let changeToken = form["changeToken"], changeToken != String(node.changeToken) {
            return CMISTestJSON.error("updateConflict", "\(node.name) was changed meanwhile", status: .conflict)
        }
        for (id, value) in form.properties {
            guard id == "cmis:name" else {
                return CMISTestJSON.error("constraint", "Property \(id) is read-only", status: .conflict)
            }
            if value != node.name, let parent = node.parentId, let conflict = conflict(value, in: parent, store: store)
            {
                return conflict
            }
            node.name = value
        }
        node.modified = Date()
        node.changeToken += 1
        store.nodes[node.id] = node
        return TestHTTPServer.json(CMISTestJSON.object(node, in: store))
    }

    private func conflict(_ name: String, in folderId: String, store: CMISTestRepository.Store) -> Response? {
        guard store.children[folderId, default: []].contains(where: { store.nodes[$0]?.name == name }) else {
            return nil
        }
        return CMISTestJSON.error(
            "nameConstraintViolation", "An object named \(name) already exists in folder \(folderId)",
            status: .conflict)
    }
}
