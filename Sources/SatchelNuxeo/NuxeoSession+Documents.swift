import Foundation
import SatchelHTTP
public import SatchelJSON

extension NuxeoSession {
    /// Who the session is (`me`), with the user's properties.
    public func currentUser() async throws -> NuxeoUser {
        guard case .user(let user) = try await entity(.resource("me")) else {
            throw NuxeoError(.invalidResponse, "me answered no user entity")
        }
        return user
    }

    /// The server and its repositories (`json/cmis`): repository id to its description (`productName`,
    /// `productVersion`…); the default repository is `default`.
    public func serverInfo() async throws -> [String: JSONValue] {
        let response = try await send(NuxeoRequest.site("json", "cmis"))
        do {
            return NuxeoDocument.members(try JSONValue(parsing: response.body))
        } catch {
            throw NuxeoError(.invalidResponse, "json/cmis is not JSON: \(error)")
        }
    }

    /// A document's ACLs (`@acl`): local first, inherited last.
    public func acl(of id: String) async throws -> NuxeoACP {
        guard case .acls(let acp) = try await entity(NuxeoRequest.id(id).adapter("acl")) else {
            throw NuxeoError(.invalidResponse, "@acl answered no acls entity")
        }
        return acp
    }

    /// Grants `permission` (`Read`, `ReadWrite`, `Everything`) on a document to `user`.
    public func addPermission(_ permission: String, to user: String, on id: String) async throws {
        try await execute(
            "Document.AddPermission", input: id, params: ["permission": .string(permission), "username": .string(user)])
    }

    /// Removes every permission granted on a document to `user` directly.
    public func removePermissions(of user: String, on id: String) async throws {
        try await execute("Document.RemovePermission", input: id, params: ["user": .string(user)])
    }

    /// Moves a document into the folder `target` (a path or uid), optionally renamed.
    public func move(_ id: String, to target: String, name: String? = nil) async throws -> NuxeoDocument {
        try await documentOperation("Document.Move", id: id, target: target, name: name)
    }

    /// Copies a document into the folder `target` (a path or uid), optionally named; returns the copy.
    public func copy(_ id: String, to target: String, name: String? = nil) async throws -> NuxeoDocument {
        try await documentOperation("Document.Copy", id: id, target: target, name: name)
    }

    private func documentOperation(
        _ operation: String, id: String, target: String, name: String?
    ) async throws -> NuxeoDocument {
        var params: [String: JSONValue] = ["target": .string(target)]
        if let name { params["name"] = .string(name) }
        return try await documentOperation(operation, input: id, params: params)
    }
}
