import Foundation
import Hummingbird
import SatchelCMISCore
import SatchelJSON
import SatchelRepository

/// Nuxeo's view of a document's access control, over the repository's CMIS ACLs: `@acl`, the `acls` enricher,
/// Automation's `Document.AddPermission` and `Document.RemovePermission`; and who the caller is (`me`,
/// `user/{name}`) and what the server is (`json/cmis`).
///
/// Permissions: Nuxeo's `Read` is `cmis:read`, `ReadWrite` (and `Write`) `cmis:write`, `Everything` `cmis:all`; a
/// direct ACE is in the `local` ACL, an inherited one in `inherited`.
extension NuxeoHandler {
    static let permissions: [(nuxeo: String, cmis: String)] = [
        ("Read", "cmis:read"), ("ReadWrite", "cmis:write"), ("Write", "cmis:write"), ("Everything", "cmis:all"),
    ]

    static func cmisPermission(_ nuxeo: String) throws(CMISError) -> String {
        guard let found = permissions.first(where: { $0.nuxeo.caseInsensitiveCompare(nuxeo) == .orderedSame }) else {
            throw CMISError(.invalidArgument, "the permission \(nuxeo) is not one of Read, ReadWrite, Everything")
        }
        return found.cmis
    }

    static func nuxeoPermission(_ cmis: String) -> String {
        permissions.first { $0.cmis == cmis }?.nuxeo ?? cmis
    }

    /// The ACLs of a document as Nuxeo names them: `[{"name": "local", "aces": […]}, {"name": "inherited", …}]`.
    func acls(of id: String, repository: String, caller: CallerContext) async throws -> JSONValue {
        let acl = try await service(repository).acl(
            repositoryId: repository, objectId: id, onlyBasicPermissions: true, caller: caller)
        func aces(direct: Bool) -> JSONValue {
            .array(
                acl.aces.filter { $0.isDirect == direct }.flatMap { ace in
                    ace.permissions.map { permission -> JSONValue in
                        let name = Self.nuxeoPermission(permission)
                        return [
                            "id": .string("\(ace.principalId):\(name):true:::"), "username": .string(ace.principalId),
                            "externalUser": false, "permission": .string(name), "granted": true, "creator": .null,
                            "begin": .null, "end": .null, "status": "effective",
                        ]
                    }
                })
        }
        return [["name": "local", "aces": aces(direct: true)], ["name": "inherited", "aces": aces(direct: false)]]
    }

    /// `@acl`: the `acls` entity (`acl`: named ACLs, each with `ace`).
    func aclEntity(of id: String, repository: String, caller: CallerContext) async throws -> JSONValue {
        let named = try await acls(of: id, repository: repository, caller: caller).arrayValue ?? []
        return [
            "entity-type": "acls",
            "acl": .array(named.map { ["name": $0["name"] ?? .null, "ace": $0["aces"] ?? .array([])] }),
        ]
    }

    /// `Document.AddPermission`: `permission` to `username` (or each of `users`) on the input document.
    func addPermission(
        _ object: CMISObject, params: JSONObject, repository: String, caller: CallerContext
    )
        async throws
    {
        guard let id = object.id, let permission = params["permission"]?.stringValue else {
            throw CMISError(.invalidArgument, "Document.AddPermission needs permission and username")
        }
        var users = params["users"]?.arrayValue?.compactMap(\.stringValue) ?? []
        if let user = params["username"]?.stringValue { users.append(user) }
        guard !users.isEmpty, users.count <= 100 else {
            throw CMISError(.invalidArgument, "Document.AddPermission needs a username (at most 100 users)")
        }
        let cmis = try Self.cmisPermission(permission)
        _ = try await service(repository).applyACL(
            repositoryId: repository, objectId: id,
            addACEs: users.map { ACE(principalId: $0, permissions: [cmis]) }, removeACEs: [], propagation: nil,
            caller: caller)
    }

    /// `Document.RemovePermission`: the ACE `id` (`user:Permission:…`), or every local permission of `user`.
    func removePermission(
        _ object: CMISObject, params: JSONObject, repository: String, caller: CallerContext
    )
        async throws
    {
        guard let id = object.id else {
            throw CMISError(.invalidArgument, "Document.RemovePermission needs a document")
        }
        var removals: [ACE] = []
        if let aceID = params["id"]?.stringValue {
            let parts = aceID.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count >= 2 else {
                throw CMISError(.invalidArgument, "the ACE id \(aceID) is not user:Permission:…")
            }
            removals = [ACE(principalId: String(parts[0]), permissions: [try Self.cmisPermission(String(parts[1]))])]
        } else if let user = params["user"]?.stringValue ?? params["username"]?.stringValue {
            let acl = try await service(repository).acl(
                repositoryId: repository, objectId: id, onlyBasicPermissions: true, caller: caller)
            removals = acl.aces.filter { $0.isDirect && $0.principalId == user }
        } else {
            throw CMISError(.invalidArgument, "Document.RemovePermission needs id or user")
        }
        guard !removals.isEmpty else { return }
        _ = try await service(repository).applyACL(
            repositoryId: repository, objectId: id, addACEs: [], removeACEs: removals, propagation: nil,
            caller: caller)
    }

    /// `me` and `user/{name}` (the caller's own only: the users file is the authenticator's, not this facade's).
    func user(_ name: String?, caller: CallerContext) throws -> JSONValue {
        guard name == nil || name == caller.user else {
            throw CMISError(.objectNotFound, "no user \(name ?? "") visible here")
        }
        let groups: JSONValue = .array(caller.isAdministrator ? ["administrators", "members"] : ["members"])
        return [
            "entity-type": "user", "id": .string(caller.user), "isAdministrator": .bool(caller.isAdministrator),
            "isAnonymous": false, "extendedGroups": .array([]),
            "properties": [
                "username": .string(caller.user), "firstName": .null, "lastName": .null, "email": .null,
                "company": .null, "groups": groups,
            ],
        ]
    }

    /// `json/cmis`: the repositories as the Browser binding describes them, the shared one as `default`.
    func serverInfo(_ request: Request, context: ServerRequestContext) async -> Response {
        guard let caller = context.caller else { return Self.exception(401, "authentication required") }
        do {
            let infos = try await environment.repositories.repositoryInfos(caller: caller)
            let base = request.serverBaseURL(context) + MountPoints.cmisBrowser
            var writer = BrowserJSONWriter(succinct: true)
            // Keyed by id as the Browser binding's service document is, with the shared repository also as
            // `default` (what Nuxeo's clients read); its URLs stay the repository's own.
            writer.jsonObject { writer in
                for var info in infos {
                    // Nuxeo's clients read the product version as the Nuxeo API level, and choose calls by it
                    // (`Document.Trash` from 10.2 on): the level this API follows.
                    info.productVersion = NuxeoRoutes.apiLevel
                    writer.key(info.id == defaultRepository ? "default" : info.id) {
                        $0.repositoryInfo(info, baseURL: base)
                    }
                }
            }
            return Self.json(try JSONValue(parsing: Data(writer.bytes)))
        } catch {
            return Self.failure(error)
        }
    }
}
