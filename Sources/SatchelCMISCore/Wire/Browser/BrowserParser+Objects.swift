public import Foundation
import SatchelJSON

extension BrowserParser {
    /// An object (`cmisselector=object`, or the reply to a create/update action), full or succinct.
    ///
    /// ```swift
    /// let object = try BrowserParser.object(data) { typeCache[$0] }
    /// object.properties["cmis:name"]?.stringValue
    /// ```
    public static func object(_ data: Data, typeDefinition: TypeLookup = { _ in nil }) throws -> CMISObject {
        try parse(data, typeDefinition) { json, types in try object(from: json, types: types, requireId: true) }
    }

    /// Allowable actions (`cmisselector=allowableActions`): `{ "canGetChildren": true, … }`.
    public static func allowableActions(_ data: Data) throws -> AllowableActions {
        try allowableActions(from: BrowserJSON.parse(data))
    }

    /// An ACL (`cmisselector=acl`): `{ "aces": [ {principal:{principalId}, permissions, isDirect} ], "isExact" }`.
    public static func acl(_ data: Data) throws -> ACL {
        let json = try BrowserJSON.parse(data)
        return try acl(from: json, isExact: json.bool("isExact") ?? json.bool("exactACL"))
    }

    /// Renditions (`cmisselector=renditions`): `[ {streamId, mimeType, length, kind, …} ]`.
    public static func renditions(_ data: Data) throws -> [Rendition] {
        try BrowserJSON.parse(data).array().map(rendition)
    }

    static let objectKeys: Set<String> = [
        "properties", "succinctProperties", "propertiesExtension", "allowableActions", "relationships",
        "changeEventInfo", "acl", "exactACL", "policyIds", "renditions",
    ]

    static func object(
        from json: BrowserJSON, types: PropertyTyping, requireId: Bool, depth: Int = 0
    ) throws
        -> CMISObject
    {
        _ = try json.object()
        let properties: Properties
        if let succinct = json["succinctProperties"] {
            properties = try succinctProperties(from: succinct, types: types)
        } else if let full = json["properties"] {
            properties = try fullProperties(from: full)
        } else {
            properties = Properties()
        }
        if requireId, properties["cmis:objectId"]?.stringValue == nil {
            throw CMISError(
                .invalidResponse, "the object has no cmis:objectId", path: json.path.isEmpty ? "$" : json.path)
        }
        var object = CMISObject(properties: properties)
        object.allowableActions = try json["allowableActions"].map(allowableActions)
        object.acl = try json["acl"].map { try acl(from: $0, isExact: json.bool("exactACL")) }
        object.policyIds = try json["policyIds"].map { try $0.strings("ids") ?? [] } ?? []
        object.renditions = try json["renditions"]?.array().map(rendition) ?? []
        if let relationships = json["relationships"] {
            guard depth < 16 else {
                throw CMISError(.invalidResponse, "relationships nest too deeply", path: json.path)
            }
            object.relationships = try relationships.array().map {
                try self.object(from: $0, types: types, requireId: requireId, depth: depth + 1)
            }
        }
        if let info = json["changeEventInfo"] {
            object.changeEventInfo = ChangeEventInfo(
                changeType: ChangeType(rawValue: try info.require("changeType").string()),
                changeTime: try info["changeTime"].map(date))
        }
        object.extensions = try extensions(of: json, excluding: objectKeys)
        return object
    }

    static func allowableActions(from json: BrowserJSON) throws -> AllowableActions {
        var actions = Set<AllowableAction>()
        for (key, value) in try json.members() where try value.bool() {
            actions.insert(AllowableAction(rawValue: key))
        }
        return AllowableActions(actions)
    }

    static func acl(from json: BrowserJSON, isExact: Bool?) throws -> ACL {
        ACL(
            aces: try json["aces"]?.array().map { ace in
                ACE(
                    principalId: try ace.require("principal").require("principalId").string(),
                    permissions: try ace.strings("permissions") ?? [], isDirect: try ace.bool("isDirect") ?? true)
            } ?? [],
            isExact: isExact)
    }

    static func rendition(from json: BrowserJSON) throws -> Rendition {
        var rendition = Rendition(
            streamId: try json.require("streamId").string(), mimeType: try json.string("mimeType"),
            length: try json.int64("length"), kind: try json.string("kind"))
        rendition.title = try json.string("title")
        rendition.height = try json.int64("height")
        rendition.width = try json.int64("width")
        rendition.renditionDocumentId = try json.string("renditionDocumentId")
        return rendition
    }
}
